"""HTML pieces the views share: escaped JSON blocks, an event's detail, small tables.

Everything a trace carries is untrusted text (tool results, model output): every value
goes through ``html.escape`` before it reaches a widget.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from typing import Any

from ..model import Event, dumps

__all__ = ["STYLE", "attr_groups", "esc", "event_detail", "flow_links", "json_block",
           "link_html", "plain_text", "ref_sentences", "table"]

# attribute groups of the detail pane, by key prefix (OpenTelemetry's conventions)
_GROUPS = (
    ("GenAI", ("gen_ai.", "llm.", "openinference.", "ai.")),
    ("HTTP", ("http.", "url.", "server.", "client.", "network.", "user_agent.", "rpc.")),
    ("resource", ("service.", "telemetry.", "host.", "process.", "os.", "otel.",
                  "deployment.", "k8s.", "container.", "cloud.")),
)

_MAX_JSON = 20_000  # characters of one JSON block shown; the library has the rest

STYLE = """<style>
.wb-view{font-size:13px}
.wb-view pre{margin:2px 0 6px;padding:6px;background:#f6f8fa;border-radius:4px;
  white-space:pre-wrap;overflow-wrap:break-word;max-height:260px;overflow:auto;font-size:12px}
.wb-view table.wb{border-collapse:collapse;margin:4px 0;max-width:100%}
.wb-view table.wb td,.wb-view table.wb th{border:1px solid #d0d7de;padding:2px 6px;
  text-align:left;vertical-align:top;font-size:12px;line-height:1.35;word-break:normal;
  overflow-wrap:break-word}
.wb-view table.wb th{white-space:nowrap}
.wb-view .wb-scroll{max-width:100%;overflow-x:auto}
.wb-view .widget-select,.wb-view .widget-textarea,.wb-view .widget-text,
.wb-view .widget-html,.wb-view .widget-box{max-width:calc(100% - 4px)}
.wb-view .widget-html-content{min-width:0}
.wb-view tr.wb-offending td{background:#fff8c5;font-weight:600}
.wb-view .wb-cols{display:flex;flex-wrap:wrap;gap:12px}
.wb-view .wb-cols>div{flex:1 1 320px;min-width:0}
.wb-view table.wb-full{width:100%;table-layout:fixed}
.wb-view table.wb th{background:#f6f8fa}
.wb-view .wb-muted{color:#57606a}
.wb-view .wb-err{color:#cf222e;font-weight:600}
.wb-view .wb-ok{color:#1a7f37;font-weight:600}
.wb-view .wb-flow{margin:2px 0}
.wb-view .wb-hit{background:#fff8c5}
.wb-view .wb-token{background:#ddf4ff;border-radius:3px}
.wb-view del{background:#ffcecb;text-decoration:none}
.wb-view ins{background:#aceebb;text-decoration:none}
.wb-attention input,.wb-attention textarea{border-color:#cf222e !important;
  box-shadow:0 0 0 2px #cf222e !important;background:#fff8f7 !important}
.wb-wrap select option{white-space:normal;overflow-wrap:anywhere}
.wb-mono select,.wb-mono textarea{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
  font-size:12px}
</style>"""


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def json_block(value: Any) -> str:
    """A JSON value, indented, escaped and cut at ``_MAX_JSON`` characters."""
    text = (value if isinstance(value, str)
            else json.dumps(value, indent=2, ensure_ascii=False, default=str))
    if len(text) > _MAX_JSON:
        text = text[:_MAX_JSON] + f"\n… {len(text) - _MAX_JSON:,} more characters"
    return f"<pre>{esc(text)}</pre>"


def _short(value: Any, width: int = 60) -> str:
    text = value if isinstance(value, str) else dumps(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def ref_sentences(event: Event, sources: dict[str, tuple[int, str]]) -> list[str]:
    """``"p17" (args.project_id) came from list_projects at step 2 (result.items[0].id)``
    for each data-flow ref; ``sources`` maps an event id to its (seq, name)."""
    out = []
    for r in event.refs:
        value = event.get(r.path)
        where = sources.get(r.event_id)
        origin = (f"{where[1]} at step {where[0]}" if where is not None
                  else f"event {r.event_id} (not in this trace)")
        out.append(f"{_short(value)} ({r.path}) came from {origin} ({r.from_path})")
    return out


def attr_groups(attrs: dict[str, Any]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Every attribute, grouped GenAI, HTTP, resource, other (keys sorted within)."""
    out: dict[str, list[tuple[str, Any]]] = {name: [] for name, _ in _GROUPS}
    out["other"] = []
    for key in sorted(attrs):
        group = next((name for name, prefixes in _GROUPS if key.startswith(prefixes)),
                     "other")
        out[group].append((key, attrs[key]))
    return [(name, items) for name, items in out.items() if items]


def event_detail(event: Event, sources: dict[str, tuple[int, str]],
                 parent: tuple[int, str] | None = None,
                 findings: list[tuple[str, str]] | None = None) -> str:
    """The detail pane of one event: what it was, the findings naming it (rule,
    message), where its arguments came from, its args, result and error, and every
    attribute grouped."""
    dur = event.duration_ns
    head = (f"<b>step {event.seq}</b> · {esc(event.kind)} <b>{esc(event.name)}</b> · "
            f"<span class={'wb-err' if event.status == 'error' else 'wb-ok'}>"
            f"{esc(event.status)}</span>"
            + (f" · {dur / 1e6:,.1f} ms" if dur is not None else "")
            + f" <span class=wb-muted>id {esc(event.event_id)}</span>")
    parts = [f"<div>{head}</div>"]
    if parent is not None:
        parts.append(f"<div class=wb-muted>inside {esc(parent[1])} at step {parent[0]}</div>")
    if event.flags:
        parts.append(f"<div class=wb-muted>flags: {esc(', '.join(event.flags))}</div>")
    if findings:
        parts.append("<div class=wb-event-findings><b>findings naming it</b>" + "".join(
            f"<div class=wb-err>{esc(rule)}: <span style='font-weight:normal'>"
            f"{esc(message)}</span></div>" for rule, message in findings) + "</div>")
    flows = ref_sentences(event, sources)
    if flows:
        parts.append("<div><b>data flow</b>" + "".join(
            f"<div class=wb-flow>{esc(s)}</div>" for s in flows) + "</div>")
    for label, value in (("args", event.args), ("result", event.result),
                         ("error", event.error)):
        if value is not None and value != {} and value != []:
            parts.append(f"<div><b>{label}</b>{json_block(value)}</div>")
    for group, items in attr_groups(event.attrs or {}):
        rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(_short(v, 400))}</td></tr>"
                       for k, v in items)
        parts.append(f"<div class=wb-attrs><b>attributes · {esc(group)}</b><div class=wb-scroll>"
                     f"<table class='wb wb-full'>{rows}</table></div></div>")
    return "<div class=wb-view>" + "".join(parts) + "</div>"


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]],
          classes: Sequence[str | None] | None = None) -> str:
    """A small escaped HTML table; ``classes`` gives an optional class per row."""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = []
    for n, row in enumerate(rows):
        cls = classes[n] if classes is not None else None
        attr = f" class={cls}" if cls else ""
        body.append(f"<tr{attr}>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>")
    # a table wider than the view scrolls inside its own box: nothing is clipped
    return (f"<div class=wb-scroll><table class=wb><tr>{head}</tr>{''.join(body)}</table>"
            "</div>")


def link_html(trace_id: str, seq: int) -> str:
    """The copyable link of one event (``workbench lab --open TRACE:STEP``)."""
    return (f"<div class=wb-muted>link: <code class=wb-link>workbench lab --open "
            f"{esc(trace_id[:12])}:{seq}</code></div>")


def flow_links(event: Event, sources: dict[str, tuple[int, str]],
               parent: tuple[int, str] | None) -> list[tuple[str, str, str]]:
    """(text, event id, icon) of the buttons under the detail: where each argument
    came from, then the parent."""
    links = []
    for r in event.refs:
        if r.event_id in sources:
            seq, name = sources[r.event_id]
            links.append((f"{r.path} ← {name} · step {seq} ({r.from_path})", r.event_id,
                          "arrow-left"))
    if parent is not None and event.parent_id is not None:
        links.append((f"inside {parent[1]} · step {parent[0]}", event.parent_id, "arrow-up"))
    return links


_BLOCK = re.compile(r"</?(?:div|p|pre|tr|td|th|table|br|li|ul)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]+>")


def plain_text(markup: str) -> str:
    """The text of a pane's HTML (what a reader sees), for tests and for printing."""
    text = _TAG.sub("", _BLOCK.sub(" ", markup))
    return re.sub(r"\s+", " ", html.unescape(text)).strip()
