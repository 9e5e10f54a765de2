"""Tool contracts: versioned descriptors of the tools agents call (docs/contracts.md).

A ``Descriptor`` is one tool's contract (``descriptor.schema.json`` is its truth); a
``ToolSet`` holds a set of them by name; ``read_tools`` reads descriptor files,
manifests and folders; ``schema_changes`` compares two JSON Schemas as what they accept.
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
from ._read import SOURCES, Source, is_descriptor_doc, load_document, read_tools
from ._schemadiff import SchemaChange, schema_changes

__all__ = [
    "FIELDS",
    "SIDE_EFFECTS",
    "SOURCES",
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
    "SchemaChange",
    "SchemaInvalidError",
    "Source",
    "ToolSet",
    "UnknownSourceError",
    "check_schema",
    "descriptor_from_dict",
    "is_descriptor_doc",
    "load_document",
    "pointer",
    "read_tools",
    "resolve_ref",
    "schema_changes",
]
