"""Hypothesis over the hostile classes: whatever the depth past the limit, the digits,
the shape of the alias bomb or where it sits, the end is exit 2 with LIMIT_EXCEEDED and
the store unchanged (never an internal error, which tests.support.run refuses)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.cases import EVENT
from tests.support import run, snapshot
from workbench.model import LIMITS

# capsys is read (and so emptied) by every run: sharing it between examples is safe
OWN_CAPTURE = [HealthCheck.function_scoped_fixture]
DEPTH = LIMITS["json_depth"].value
YAML_DEPTH = LIMITS["yaml_depth"].value
DIGITS = LIMITS["integer_digits"].value


def _nest(kind: str, depth: int, leaf: str) -> str:
    opener, closer = {"list": ("[", "]"), "object": ('{"k":', "}"),
                      "mixed": ('[{"k":', "}]")}[kind]
    reps = depth if kind != "mixed" else depth // 2 + 1
    return opener * reps + leaf + closer * reps


hostile_json = st.one_of(
    st.builds(_nest, st.sampled_from(["list", "object", "mixed"]),
              st.integers(DEPTH + 1, 4 * DEPTH), st.sampled_from(["1", '"s"', "null"])),
    st.builds(lambda n, sign: sign + "9" * n, st.integers(DIGITS + 1, 3 * DIGITS),
              st.sampled_from(["", "-"])),
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store that exists (ingest creates a missing one before it reads a file)."""
    from workbench.cli import main

    root = tmp_path_factory.mktemp("store") / "store"
    seed = root.parent / "seed.jsonl"
    seed.write_text(json.dumps({**EVENT, "trace_id": "seed"}) + "\n")
    assert main(["ingest", str(seed), "--store", str(root)]) == 0
    return root


@settings(max_examples=25, suppress_health_check=OWN_CAPTURE)
@given(value=hostile_json, key=st.sampled_from(["args", "result", "attrs_value"]),
       wide=st.booleans())
def test_jsonl_beyond_a_limit_is_refused(capsys, tmp_path_factory, store, value, key, wide):
    tmp = tmp_path_factory.mktemp("p")
    event = dict(EVENT)
    if key == "attrs_value":
        event["attrs"] = {"a": "PLACE"}
    else:
        event[key] = "PLACE"
    if wide:  # a 20-digit integer elsewhere sends the line the exact (slower) way
        event["seq"] = 1
        event["result" if key != "result" else "args"] = {"n": "WIDE"}
    line = json.dumps(event).replace('"PLACE"', value).replace('"WIDE"', "9" * 25)
    src = tmp / "t.jsonl"
    src.write_text(line + "\n")
    before = snapshot(store)
    code, _, err = run(capsys, "ingest", src, "--store", store, "--format", "jsonl")
    assert code == 2, err
    assert err.startswith("error[LIMIT_EXCEEDED]: ") and "t.jsonl" in err
    assert snapshot(store) == before


def _laughs(width: int, levels: int) -> str:
    lines = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]"
              for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@settings(max_examples=25, suppress_health_check=OWN_CAPTURE)
@given(width=st.integers(2, 12), levels=st.integers(2, 12),
       target=st.sampled_from(["vcr", "rules"]))
def test_yaml_aliases_are_bounded(capsys, tmp_path_factory, width, levels, target):
    """Alias bombs of any width and height: refused exactly when what they repeat
    passes the budget; read when they stay within it."""
    tmp = tmp_path_factory.mktemp("y")
    limit = LIMITS["yaml_alias_nodes" if target == "vcr" else "config_alias_nodes"]
    # what the aliases repeat: each level names `width` copies of the level before
    size = [1 + width]  # a0: the list node and its items
    for _ in range(1, levels):
        size.append(1 + width * size[-1])
    repeated = sum(width * s for s in size[:-1])
    if target == "vcr":
        text = _laughs(width, levels) + "interactions: []\n"
        src = tmp / "t.yaml"
        argv = ["ingest", src, "--store", tmp / "store", "--format", "vcr"]
    else:
        text = "version: 1\n" + _laughs(width, levels).replace("a0:", "x0:") + \
            "rules: {r: {exists: {tool: x}}}\n"
        src = tmp / "r.yaml"
        argv = ["check", src, "--store", tmp / "store"]
    src.write_text(text)
    code, _, err = run(capsys, *argv)
    if repeated > limit.value:
        assert code == 2 and err.startswith("error[LIMIT_EXCEEDED]: "), err
        assert limit.name in err
    else:
        assert "LIMIT_EXCEEDED" not in err


@settings(max_examples=15, suppress_health_check=OWN_CAPTURE)
@given(depth=st.integers(YAML_DEPTH + 1, 5 * YAML_DEPTH), flow=st.booleans())
def test_deep_yaml_config_is_refused(capsys, tmp_path_factory, depth, flow):
    tmp = tmp_path_factory.mktemp("d")
    if flow:
        body = "drop: " + "[" * depth + "]" * depth + "\n"
    else:
        body = "drop:\n" + "".join("  " * i + "- \n" for i in range(depth))
    canon = tmp / "canon.yaml"
    canon.write_text("version: 1\n" + body)
    example = Path(__file__).resolve().parents[2] / "traces" / "examples" / \
        "archive-incident.otlp.json"
    code, _, err = run(capsys, "diff", example, example, "--canon", canon,
                       "--store", tmp / "store")
    assert code == 2 and err.startswith("error[LIMIT_EXCEEDED]: "), err
    assert "yaml_depth" in err and "canon.yaml" in err
