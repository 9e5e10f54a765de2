"""Tool contracts: versioned descriptors of the tools agents call (docs/contracts.md).

A ``Descriptor`` is one tool's contract (``descriptor.schema.json`` is its truth); a
``ToolSet`` holds a set of them by name; ``read_tools`` reads descriptor files,
manifests and folders, and through the importers (``SOURCES``) MCP tool lists and
recordings, OpenAI, Anthropic and Gemini tool lists and OpenAPI documents.
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
from ._import_mcp import annotations_for, side_effect_of
from ._jsonschema import check_schema, pointer, resolve_ref
from ._read import (
    SOURCES,
    Source,
    detect_source,
    is_descriptor_doc,
    load_document,
    read_document,
    read_tools,
)

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
    "SchemaInvalidError",
    "Source",
    "ToolSet",
    "UnknownSourceError",
    "annotations_for",
    "check_schema",
    "descriptor_from_dict",
    "detect_source",
    "is_descriptor_doc",
    "load_document",
    "pointer",
    "read_document",
    "read_tools",
    "resolve_ref",
    "side_effect_of",
]
