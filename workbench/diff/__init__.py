"""Diff: canonical JSON, trace diffs (aligned events, changed fields, reorderings) and
shadow runs of two builds over frozen fixtures."""

from ._builds import BuildRun
from ._canon import canonicalize
from ._canonfile import Canon, CanonError, Pattern, load_canon, parse_canon, parse_pattern
from ._digest import canonical_bytes, digest
from ._html import html_page, html_rows, render_html
from ._reorder import judge
from ._shadow import FixtureResult, ShadowResult, fixtures_in, pretty, shadow
from ._text import render_diff, render_shadow, render_value
from ._tracediff import EventChange, EventRef, Reorder, TraceDiff, diff_traces
from ._values import PathChange, diff_values, same_value

__all__ = [
    "BuildRun",
    "Canon",
    "CanonError",
    "EventChange",
    "EventRef",
    "FixtureResult",
    "PathChange",
    "Pattern",
    "Reorder",
    "ShadowResult",
    "TraceDiff",
    "canonical_bytes",
    "canonicalize",
    "diff_traces",
    "diff_values",
    "digest",
    "fixtures_in",
    "html_page",
    "html_rows",
    "judge",
    "load_canon",
    "parse_canon",
    "parse_pattern",
    "pretty",
    "render_diff",
    "render_html",
    "render_shadow",
    "render_value",
    "same_value",
    "shadow",
]
