"""Tool contracts: versioned descriptors of the tools agents call (docs/contracts.md).

A ``Descriptor`` is one tool's contract (``descriptor.schema.json`` is its truth); a
``ToolSet`` holds a set of them by name.
"""

from ._descriptor import (
    FIELDS,
    SIDE_EFFECTS,
    VERSION,
    Deprecation,
    Descriptor,
    ErrorEnvelope,
    Idempotency,
    Provenance,
    ToolSet,
    descriptor_from_dict,
)
from ._errors import (
    ConsumerError,
    ContractError,
    ContractVersionError,
    DuplicateToolError,
    SchemaInvalidError,
    UnknownSourceError,
)
from ._jsonschema import check_schema, pointer, resolve_ref

__all__ = [
    "FIELDS",
    "SIDE_EFFECTS",
    "VERSION",
    "ConsumerError",
    "ContractError",
    "ContractVersionError",
    "Deprecation",
    "Descriptor",
    "DuplicateToolError",
    "ErrorEnvelope",
    "Idempotency",
    "Provenance",
    "SchemaInvalidError",
    "ToolSet",
    "UnknownSourceError",
    "check_schema",
    "descriptor_from_dict",
    "pointer",
    "resolve_ref",
]
