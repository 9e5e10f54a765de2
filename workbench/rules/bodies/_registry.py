"""The rule bodies, by their key in a rules file (the order error messages list them in).

A body is registered by adding its class here; its module says everything else.
``RuleBody`` (``.._rule``) is what mypy checks each against.
"""

from __future__ import annotations

from .._rule import RuleBody
from ._absent import Absent
from ._before import Before
from ._count import Count
from ._every import Every
from ._exists import Exists
from ._flow import Flow
from ._never import Never
from ._order import Order

__all__ = ["BODIES"]

BODIES: dict[str, type[RuleBody]] = {
    Before.kind: Before,
    Never.kind: Never,
    Count.kind: Count,
    Every.kind: Every,
    Exists.kind: Exists,
    Absent.kind: Absent,
    Order.kind: Order,
    Flow.kind: Flow,
}
