"""Diff: canonical JSON, trace diffs (aligned events, changed fields, reorderings) and
shadow runs of two builds over frozen fixtures."""

from ._builds import BuildRun
from ._canon import canonicalize
from ._canonfile import Canon, CanonError, Pattern, load_canon, parse_canon, parse_pattern
from ._digest import canonical_bytes, digest
from ._html import html_page, html_rows, render_html
from ._reorder import judge
from ._shadow import FixtureResult, ShadowResult, fixtures_in, pretty, shadow
from ._shadowbuilds import ScenarioRates, ShadowBuildsResult, diff_fields, shadow_builds
from ._shadowruns import (
    FieldRate,
    FixtureRates,
    ShadowRunsResult,
    field_rates,
    rate_fields,
    shadow_runs,
)
from ._text import (
    render_diff,
    render_shadow,
    render_shadow_builds,
    render_shadow_runs,
    render_value,
)
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
    "ScenarioRates",
    "ShadowBuildsResult",
    "ShadowResult",
    "ShadowRunsResult",
    "TraceDiff",
    "canonical_bytes",
    "canonicalize",
    "diff_fields",
    "diff_traces",
    "diff_values",
    "digest",
    "field_rates",
    "fixtures_in",
    "html_page",
    "html_rows",
    "judge",
    "load_canon",
    "parse_canon",
    "parse_pattern",
    "pretty",
    "rate_fields",
    "render_diff",
    "render_html",
    "render_shadow",
    "render_shadow_builds",
    "render_shadow_runs",
    "render_value",
    "same_value",
    "shadow",
    "shadow_builds",
    "shadow_runs",
]
