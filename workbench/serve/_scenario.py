"""Scenario files: which exchanges are served, how requests match them, which failures
are injected (docs/serve.md). Recordings named on the command line are served as they
are, with the default matching.

Files a scenario names are read relative to its folder and must stay inside it (a
scenario is reviewed as a unit; ``../``, an absolute path, a URL or a link out of the
folder is ``REF_OUTSIDE``, through ``config.resolve_ref``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Node, RefError, resolve_ref
from ._errors import SCENARIO_FILE, ScenarioError
from ._exchange import BODY_MODES, Exchange, Match, exchanges_of, read_recording
from ._failures import Failure, parse_failure

__all__ = ["Scenario", "load_sources", "parse_failures"]

_ENTRY_KEYS = ("id", "file", "request", "response", "match", "failures")
_MATCH_KEYS = ("query", "headers", "body")


@dataclass
class Scenario:
    """What one server run serves: its exchanges in order, the run-wide failures."""

    name: str
    sources: list[str]
    exchanges: list[Exchange] = field(default_factory=list)
    failures: tuple[Failure, ...] = ()


def parse_failures(texts: list[str], *, where: str = "--failure") -> tuple[Failure, ...]:
    out: list[Failure] = []
    for text in texts:
        f = parse_failure(str(text))
        if isinstance(f, str):
            raise ScenarioError(f"{where}: {f}", code="UNKNOWN_FAILURE_MODE",
                                hint="docs/serve.md lists the failure modes and their "
                                     "arguments")
        out.append(f)
    return tuple(out)


def load_sources(paths: list[str | os.PathLike[str]],
                 failures: tuple[Failure, ...] = ()) -> Scenario:
    """Scenario files (``.yaml``/``.yml``) and recordings, in the order given."""
    names: list[str] = []
    exchanges: list[Exchange] = []
    run_failures = list(failures)
    for raw in paths:
        p = Path(raw)
        if _is_scenario(p):
            name, ex, fs = _load_scenario(p)
            names.append(name)
            exchanges.extend(ex)
            run_failures.extend(fs)
        else:
            names.append(p.name)
            traces = read_recording(p)
            found = exchanges_of(traces, str(p), prefix=p.stem, match=Match())
            if not found:
                raise ScenarioError(_nothing_in(p, traces), code="NO_EXCHANGES",
                                    hint="serve a recording with at least one answered "
                                         "HTTP request", file=str(p))
            exchanges.extend(found)
    if not exchanges:
        raise ScenarioError("nothing to serve: no answered HTTP exchange in "
                            + ", ".join(str(p) for p in paths), code="NO_EXCHANGES",
                            hint="serve a recording with at least one answered request")
    _unique_ids(exchanges)
    return Scenario(" + ".join(names), [str(p) for p in paths], exchanges,
                    tuple(run_failures))


def _nothing_in(path: Path, traces: list[Any]) -> str:
    http = [e for t in traces for e in t.events if e.kind == "http"]
    if http and all(type(e.result) is dict and isinstance(e.result.get("status"), str)
                    for e in http):
        return (f"{path}: its HTTP exchanges are kept as shapes only (a promotion "
                "policy reduced them); promote with a policy that keeps args and result "
                "to serve it")
    return f"{path} holds no answered HTTP exchange"


def _is_scenario(path: Path) -> bool:
    """A ``.yaml``/``.yml`` file whose document is a mapping with ``exchanges`` (a VCR
    cassette is YAML too, with ``interactions``)."""
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return False
    doc = SCENARIO_FILE.parse_yaml(SCENARIO_FILE.read(path), str(path))
    return doc is not None and doc.kind == "mapping" and (
        doc.get("exchanges") is not None or doc.get("interactions") is None)


def _unique_ids(exchanges: list[Exchange]) -> None:
    seen: dict[str, int] = {}
    for ex in exchanges:
        n = seen.get(ex.id, 0)
        seen[ex.id] = n + 1
        if n:
            ex.id = f"{ex.id}~{n + 1}"


def _load_scenario(path: Path) -> tuple[str, list[Exchange], list[Failure]]:
    source = str(path)
    doc = SCENARIO_FILE.parse(SCENARIO_FILE.read(path), source)
    name_node = doc.get("name")
    name = str(name_node.value) if name_node is not None else path.stem
    base = _match(doc.get("match"), Match())
    failures = list(_failures(doc.get("failures")))
    entries = doc.get("exchanges")
    if entries is None or entries.kind != "sequence" or not entries.items():
        raise (entries or doc).error("`exchanges` must be a list of at least one exchange")
    out: list[Exchange] = []
    for i, entry in enumerate(entries.items(), 1):
        out.extend(_entry(entry, i, path, base))
    return name, out, failures


def _entry(entry: Node, i: int, scenario: Path, base: Match) -> list[Exchange]:
    if entry.kind != "mapping":
        raise entry.error("an exchange is a mapping with `file` or `request`/`response`")
    for key, _ in entry.entries():
        if key.value not in _ENTRY_KEYS:
            raise key.error(f"unknown key {key.value!r} (keys: {', '.join(_ENTRY_KEYS)})")
    match = _match(entry.get("match"), base)
    failures = _failures(entry.get("failures"))
    id_node = entry.get("id")
    file_node = entry.get("file")
    if file_node is not None:
        target = _inside(scenario, file_node)
        prefix = str(id_node.value) if id_node is not None else target.stem
        traces = read_recording(target)
        found = exchanges_of(traces, str(target), prefix=prefix, match=match,
                             failures=failures)
        if not found:
            raise file_node.error(_nothing_in(target, traces), code="NO_EXCHANGES")
        return found
    return [_inline(entry, i, scenario, match, failures)]


def _inline(entry: Node, i: int, scenario: Path, match: Match,
            failures: tuple[Failure, ...]) -> Exchange:
    req, resp = entry.get("request"), entry.get("response")
    if req is None or resp is None or req.kind != "mapping" or resp.kind != "mapping":
        raise entry.error("an exchange has `file`, or both `request` and `response` "
                          "mappings")
    r: dict[str, Any] = req.value
    a: dict[str, Any] = resp.value
    path = r.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        raise req.error("`request.path` must be a path starting with /")
    status = a.get("status", 200)
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        raise resp.error("`response.status` must be an HTTP status code (100-599)")
    id_node = entry.get("id")
    query = r.get("query", {})
    if type(query) is not dict:
        raise req.error("`request.query` must be a mapping")
    return Exchange(
        id=str(id_node.value) if id_node is not None else f"{scenario.stem}#{i}",
        method=str(r.get("method", "GET")).upper(), path=path,
        query={str(k): v if isinstance(v, list) else str(v) for k, v in query.items()},
        headers={str(k).lower(): v for k, v in (r.get("headers") or {}).items()},
        body=r.get("body"), has_body="body" in r, status=status,
        response_headers={str(k).lower(): v for k, v in (a.get("headers") or {}).items()},
        response_body=a.get("body"), has_response_body="body" in a,
        source=str(scenario), match=match, failures=failures)


def _inside(scenario: Path, node: Node) -> Path:
    if not isinstance(node.value, str) or not node.value:
        raise node.error("`file` must be a path relative to the scenario's folder")
    try:  # the one confinement every file that names another goes through
        real = resolve_ref(node.value, scenario.parent)
    except RefError as exc:
        raise node.error(f"{exc.message}: a scenario reads only files in its folder",
                         code=exc.code,
                         hint="keep every file a scenario names in its folder or below"
                         ) from None
    if not real.exists():
        raise node.error(f"no file {node.value} (relative to {scenario.parent})",
                         code="FILE_NOT_FOUND", hint="check the path in the scenario")
    return scenario.parent / node.value


def _match(node: Node | None, base: Match) -> Match:
    if node is None:
        return base
    if node.kind != "mapping":
        raise node.error("`match` is a mapping with query, headers and body")
    for key, _ in node.entries():
        if key.value not in _MATCH_KEYS:
            raise key.error(f"unknown key {key.value!r} (keys: {', '.join(_MATCH_KEYS)})")
    q, h, b = node.get("query"), node.get("headers"), node.get("body")
    if q is not None and not isinstance(q.value, bool):
        raise q.error("`match.query` is true or false")
    if h is not None and (not isinstance(h.value, list)
                          or not all(isinstance(x, str) for x in h.value)):
        raise h.error("`match.headers` is a list of header names")
    if b is not None and b.value not in BODY_MODES:
        raise b.error(f"`match.body` is one of {', '.join(BODY_MODES)}")
    return Match(query=base.query if q is None else bool(q.value),
                 headers=base.headers if h is None else tuple(x.lower() for x in h.value),
                 body=base.body if b is None else str(b.value))


def _failures(node: Node | None) -> tuple[Failure, ...]:
    if node is None:
        return ()
    if node.kind != "sequence":
        raise node.error("`failures` is a list such as [\"status 503\", retry-then-ok]")
    out: list[Failure] = []
    for item in node.items():
        f = parse_failure(str(item.value))
        if isinstance(f, str):
            raise item.error(f, code="UNKNOWN_FAILURE_MODE",
                             hint="docs/serve.md lists the failure modes and their arguments")
        out.append(f)
    return tuple(out)
