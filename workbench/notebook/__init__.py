"""Notebook views: thin ipywidgets over the library, each usable alone in any notebook.

Each view takes library objects (a ``Store`` and a trace id, a ``Trace``, a rules file
or ``RuleSet``), calls the same service functions as the CLI, and keeps its state in
attributes and traitlets, so it can be driven from code as well as with the mouse.
Needs the ``lab`` extra (JupyterLab, ipywidgets, Altair, anywidget, vl-convert); charts
render offline. See docs/notebooks.md.
"""

from ._charts import enable_offline
from ._diff_view import DiffView
from ._link import open_link, parse_link
from ._minimize_view import MinimizeView
from ._promote_view import PromoteView
from ._redact_view import RedactChange, RedactView
from ._rule_view import FindingGroup, RuleView
from ._source import TraceSource
from ._trace_view import TraceView

__all__ = ["DiffView", "FindingGroup", "MinimizeView", "PromoteView", "RedactChange",
           "RedactView", "RuleView", "TraceSource", "TraceView", "enable_offline", "open_link",
           "parse_link"]
