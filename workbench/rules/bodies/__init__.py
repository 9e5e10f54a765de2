"""The rule bodies: one module each, holding what the body means and how it is parsed,
evaluated in Python and in SQL, worded and kept in a fixture; ``BODIES`` registers them."""

from ._absent import Absent
from ._before import Before
from ._count import Count
from ._every import Every
from ._exists import Exists
from ._flow import Flow
from ._never import Never
from ._order import Order
from ._registry import BODIES

__all__ = ["BODIES", "Absent", "Before", "Count", "Every", "Exists", "Flow", "Never", "Order"]
