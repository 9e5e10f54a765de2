"""Diff: canonical JSON, trace diffs (aligned events, changed fields, reorderings) and
shadow runs of two builds over frozen fixtures."""

from ._builds import BuildRun
from ._canon import canonicalize
from ._canonfile import Canon, CanonError, Pattern, load_canon, parse_canon, parse_pattern
from ._digest import canonical_bytes, digest
from ._html import render_html
from ._reorder import judge
from ._shadow import FixtureResult, ShadowResult, fixtures_in, pretty, shadow
from ._shadowruns import FieldRate, FixtureRates, ShadowRunsResult, field_rates, shadow_runs
from ._text import render_diff, render_shadow, render_shadow_runs, render_value
from ._tracediff import EventChange, EventRef, Reorder, TraceDiff, diff_traces
from ._values import PathChange, diff_values, same_value

__all__ = [
    "BuildRun",
    "Canon",
    "CanonError",
    "EventChange",
    "EventRef",
    "FieldRate",
    "FixtureRates",
    "FixtureResult",
    "PathChange",
    "Pattern",
    "Reorder",
    "ShadowResult",
    "ShadowRunsResult",
    "TraceDiff",
    "canonical_bytes",
    "canonicalize",
    "diff_traces",
    "diff_values",
    "digest",
    "field_rates",
    "fixtures_in",
    "judge",
    "load_canon",
    "parse_canon",
    "parse_pattern",
    "pretty",
    "render_diff",
    "render_html",
    "render_shadow",
    "render_shadow_runs",
    "render_value",
    "same_value",
    "shadow",
    "shadow_runs",
]
