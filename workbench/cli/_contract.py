"""``workbench contract import|lint|export``: tool descriptors from tool lists, API
documents and recorded traces; what each provider would drop or reject; a provider's
tool JSON. Other ``contract`` actions live in their own ``_contract_*`` modules, each
adding itself through ``register_action(actions)`` (``_ACTIONS``)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from ..contracts import (
    LINT_SEVERITIES,
    PROVIDERS,
    ExportResult,
    ImportResult,
    LintResult,
    dump_yaml,
    export_paths,
    import_contracts,
    lint_paths,
    manifest,
    provider_json,
)
from ..model import UsageError
from ..store import Store, resolve_store_path
from ._main import Parser, common, emit, summary

RAW = argparse.RawDescriptionHelpFormatter
#: the modules that add further actions to ``contract``, each with ``register_action``
_ACTIONS: tuple[str, ...] = ("_contract_diff", "_contract_check", "_contract_recorded")


def register(sub: Any) -> None:
    p = sub.add_parser("contract", help=summary("contract"),
                       description="Tool contracts (docs/contracts.md): import descriptors "
                       "from MCP tool lists and recordings, OpenAI, Anthropic and Gemini "
                       "tool lists, OpenAPI documents and recorded traces; lint them against "
                       "each provider's schema rules; export a provider's tool JSON; diff two "
                       "sets as an agent meets them (--recorded: against the traffic the "
                       "store recorded); check recorded calls; infer a consumer contract "
                       "from recorded traffic; count what the traffic uses.",
                       epilog="examples:\n  workbench contract import tools.mcp.json --out "
                              "contracts/\n  workbench contract lint contracts/ --provider "
                              "openai\n  workbench contract export contracts/ --provider "
                              "anthropic --out tools.json\n  workbench contract diff "
                              "old/ new/ --consumer triage.consumer.yaml\n  workbench "
                              "contract infer --consumer ops-agent --out ops.consumer.yaml",
                       formatter_class=RAW)
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    p.set_defaults(func=_missing)
    _register_import(actions)
    _register_lint(actions)
    _register_export(actions)
    for name in _ACTIONS:
        importlib.import_module(f"{__package__}.{name}").register_action(actions)


def _missing(args: argparse.Namespace) -> int:
    raise UsageError("workbench contract: name an action (import, lint, export, …)",
                     hint="run `workbench contract --help` for the actions and examples")


def _register_import(actions: Any) -> None:
    a = actions.add_parser(
        "import", help="descriptors from tool lists, API documents and recorded traces",
        description="Read tool definitions (descriptor files and manifests, MCP tools/list "
        "results and recordings, OpenAI, Anthropic and Gemini tool lists, OpenAPI 3.0/3.1 "
        "documents; the format is detected from the content) and, with --from-store, the "
        "tool definitions the store's traces recorded. Without --out, print them as one "
        "YAML manifest; with --out, write one YAML file per tool, all or nothing. What a "
        "source cannot say stays empty and is listed under source.unknown. A tool (an "
        "OpenAPI operation) whose schema cannot be used is refused on its own and listed "
        "on stderr with its code, path and hint; the others are imported and the exit "
        "status is 4 (partial). Constructs converted on the way (OpenAPI 3.0 keywords in "
        "a 3.1 document, $recursiveRef, a required name given twice) are listed as "
        "warnings and do not change the exit status.",
        epilog="examples:\n  workbench contract import api.yaml --out contracts/\n"
               "  workbench contract import --from-store --trace 4bf92f35 --json\n"
               "  workbench contract import tools.mcp.json > tools.yaml",
        formatter_class=RAW)
    a.add_argument("files", nargs="*", metavar="FILE", help="files or folders to import")
    a.add_argument("--from-store", action="store_true",
                   help="also import the tool definitions of the store's traces")
    a.add_argument("--trace", action="append", default=[], metavar="ID",
                   help="only this trace's tool definitions (repeatable; implies "
                        "--from-store)")
    a.add_argument("--out", metavar="DIR", help="write DIR/<tool>.yaml for each tool")
    a.add_argument("--force", action="store_true",
                   help="replace descriptor files of other content under --out")
    a.add_argument("--strict", action="store_true",
                   help="refuse the whole import (exit 2, nothing written) when any tool "
                        "is refused, instead of importing the others (exit 4)")
    common(a)
    a.set_defaults(func=run_import)


def _register_lint(actions: Any) -> None:
    a = actions.add_parser(
        "lint", help="what each provider would drop or reject",
        description="Name each constraint of the descriptors that a provider's tool API "
        "would drop or reject (OpenAI strict function calling, Anthropic strict tool use, "
        "Gemini's parameters schema, MCP), grouped by rule with a count and one example "
        "each, split into what needs a decision and what export fixes without loss (--json "
        "lists every problem with the tool and the JSON path). Exit 1 when something needs "
        "a decision; what export fixes losslessly alone is exit 0.",
        epilog="examples:\n  workbench contract lint contracts/\n"
               "  workbench contract lint tools.mcp.json --provider openai --json\n"
               "  workbench contract lint contracts/ --severity reject",
        formatter_class=RAW)
    a.add_argument("paths", nargs="+", metavar="DESCRIPTORS",
                   help="descriptor files or folders (or any tool list import reads)")
    a.add_argument("--provider", action="append", choices=PROVIDERS, default=[],
                   help="lint for this provider (repeatable; default: all four)")
    a.add_argument("--severity", choices=LINT_SEVERITIES, default=LINT_SEVERITIES[-1],
                   help="only problems at this severity or above: reject (the provider "
                        "refuses the tool) or drop (it ignores the constraint; the default, "
                        "everything)")
    common(a, store=False)
    a.set_defaults(func=run_lint)


def _register_export(actions: Any) -> None:
    a = actions.add_parser(
        "export", help="write a provider's tool JSON",
        description="Write the descriptors as PROVIDER's tool JSON: OpenAI Chat Completions "
        "tools (strict), Anthropic tools (strict), Gemini function declarations, or an MCP "
        "tools/list result. Rewrites that keep the meaning are made; where meaning would "
        "be lost export refuses (EXPORT_LOSSY) unless --lossy, and where the provider "
        "cannot take a tool at all it refuses (EXPORT_UNSUPPORTED).",
        epilog="examples:\n  workbench contract export contracts/ --provider openai\n"
               "  workbench contract export contracts/ --provider gemini --lossy "
               "--out gemini-tools.json --json",
        formatter_class=RAW)
    a.add_argument("paths", nargs="+", metavar="DESCRIPTORS",
                   help="descriptor files or folders (or any tool list import reads)")
    a.add_argument("--provider", required=True, choices=PROVIDERS, help="the provider")
    a.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    a.add_argument("--lossy", action="store_true",
                   help="export even where meaning is lost, and list what was dropped")
    common(a, store=False)
    a.set_defaults(func=run_export)


def run_import(args: argparse.Namespace) -> int:
    from_store = args.from_store or bool(args.trace)
    if not args.files and not from_store:
        raise UsageError("workbench contract import: name files, or --from-store",
                         hint="run `workbench contract import --help` for examples")
    store = Store(resolve_store_path(args.store)) if from_store else None
    result = import_contracts(args.files, store=store, traces=args.trace, out=args.out,
                              force=args.force, strict=args.strict)
    from ..redact import masked

    doc = result.to_dict()
    for key in ("refused", "warnings"):  # messages quote the document: masked as errors are
        doc[key] = [{k: masked(v) if isinstance(v, str) else v for k, v in item.items()}
                    for item in doc[key]]
    emit(args, doc, lambda: _import_text(result))
    if not args.json:
        _import_notes(doc, sys.stderr)
    return 4 if result.partial else 0


def _import_notes(doc: dict[str, Any], stream: Any) -> None:
    """The warnings (each with its kind and place) and the refused tools (each with its
    code, path and hint), already masked."""
    for w in doc["warnings"]:
        stream.write(f"warning[{w['kind']}]: {w['file']}, {w['path']}: {w['message']}\n")
    for r in doc["refused"]:
        name = r["operation"] or r["tool"]
        where = f"{name} at {r['path']}" if name else r["path"]
        stream.write(f"refused[{r['code']}]: {where}: {r['message']}\n")
        if r["hint"]:
            stream.write(f"  hint: {r['hint']}\n")
    if doc["refused"]:
        stream.write(f"partial: {len(doc['tools'])} tools imported, {len(doc['refused'])} "
                     "refused (--strict refuses the whole import instead)\n")


def _import_text(result: ImportResult) -> str:
    if result.out is None:
        return dump_yaml(manifest(result.tools))
    lines = []
    for w in result.written:
        d = result.tools[w.tool]
        src = d.source
        unknown = f"; unknown: {', '.join(src.unknown)}" if src and src.unknown else ""
        lines.append(f"{w.status} {w.path} ({src.format if src else '?'}{unknown})")
    counts = {s: sum(w.status == s for w in result.written)
              for s in ("written", "replaced", "unchanged")}
    lines.append(f"{len(result.written)} descriptors in {result.out} ("
                 + ", ".join(f"{n} {s}" for s, n in counts.items() if n) + ")"
                 if result.written else f"no tools found; nothing written to {result.out}")
    return "\n".join(lines)


def run_lint(args: argparse.Namespace) -> int:
    result = lint_paths(args.paths, args.provider or PROVIDERS, args.severity)
    emit(args, result.to_dict(), lambda: _lint_text(result))
    return 1 if result.decisions else 0


_HEADS = {True: "needs a decision", False: "export fixes without loss"}


def _lint_text(result: LintResult) -> str:
    """One block per rule: its count, its tools and one example; what needs a decision
    first."""
    lines: list[str] = []
    heading = None
    for g in result.groups():
        if g.decision is not heading:
            heading = g.decision
            n = result.decisions if g.decision else result.fixable
            lines.append(f"{_HEADS[g.decision]}: {n} problem(s)")
        e = g.example
        lines.append(f"  {g.rule}  {g.severity}, export: {g.fix}  {g.count} in "
                     f"{g.tools} tool(s)\n      e.g. {e.tool} {e.path}: {e.message}")
    where = ", ".join(result.providers)
    hidden = (f" ({result.hidden} less severe than {result.severity} not shown)"
              if result.hidden else "")
    if result.problems:
        tools = len({p.tool for p in result.problems})
        lines.append(f"{len(result.problems)} problems in {tools} of {len(result.tools)} tools "
                     f"({where}): {result.decisions} need a decision, {result.fixable} "
                     f"export fixes without loss{hidden}")
    else:
        lines.append(f"no problems: {len(result.tools)} tools fit {where}{hidden}")
    return "\n".join(lines)


def run_export(args: argparse.Namespace) -> int:
    result = export_paths(args.paths, args.provider, lossy=args.lossy, out=args.out)
    if args.out is None and not args.json:
        sys.stdout.write(provider_json(result.document))
        _notes(result, sys.stderr)
        return 0
    emit(args, result.to_dict(args.out), lambda: _export_text(result, args.out))
    return 0


def _export_text(result: ExportResult, out: str) -> str:
    lines = [f"wrote {len(result.tools)} tools for {result.provider} to {out}"]
    lines += _note_lines(result)
    return "\n".join(lines)


def _note_lines(result: ExportResult) -> list[str]:
    lines = [f"dropped {p.tool} {p.path}: {p.message}" for p in result.dropped]
    lines += [f"limit {p.tool}: {p.message}" for p in result.limits]
    fields = sorted({f for fs in result.omitted.values() for f in fs})
    if fields:
        lines.append(f"not carried by {result.provider}'s tool format: {', '.join(fields)}")
    return lines


def _notes(result: ExportResult, stream: Any) -> None:
    if stream.isatty():
        for line in _note_lines(result):
            stream.write(line + "\n")
