"""Real traces of the corpus (its first folders, about 40 traces, in one store) checked by
the Spark engine and by the DuckDB engine: the same findings, word for word, for the
bundled rule library and for generic rules that find something in any agent trace."""

from __future__ import annotations

from pathlib import Path

from workbench.ingest import ingest
from workbench.model import WorkbenchError
from workbench.rules import SparkEngine, check, load_rules, parse_rules
from workbench.store import Store

REPO = Path(__file__).resolve().parents[2]

GENERIC = """\
version: 1
rules:
  few-calls:
    description: a trace makes at most three tool calls
    count: {event: {kind: tool_call}, max: 3}
  no-errors:
    description: no event fails after a tool call
    severity: warn
    never: {event: {status: error}, after: {kind: tool_call}}
  args-are-objects:
    description: every tool call's arguments are a JSON object
    every: {event: {kind: tool_call}, where: {args: {type: object}}}
  an-llm-call:
    description: a trace calls a model
    severity: warn
    exists: {kind: llm_call}
"""


def test_corpus_findings_are_duckdbs(corpus: Path, spark_engine: SparkEngine,
                                     tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    ingested = 0
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        if ingested >= 40:  # enough real traces; Spark's time goes by traces
            break
        try:
            ingested += len(ingest([folder], store).traces)
        except WorkbenchError:
            continue  # a folder whose trace ids another folder holds: left out
    assert ingested >= 20
    for rules in (parse_rules(GENERIC),
                  load_rules(REPO / "traces" / "examples" / "rules" / "rules.yaml")):
        want = check(store, rules, record=False).findings
        got = check(store, rules, engine="spark", using=spark_engine, record=False).findings
        assert [f.to_dict() for f in got] == [f.to_dict() for f in want]
        if rules.rules[0].id == "few-calls":
            assert len({f.rule for f in want}) >= 2, "generic rules found too little"

