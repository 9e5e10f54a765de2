"""Tool contracts: versioned descriptors of the tools agents call (docs/contracts.md).

A ``Descriptor`` is one tool's contract (``descriptor.schema.json`` is its truth); a
``ToolSet`` holds a set of them by name; ``read_tools`` reads descriptor files,
manifests and folders. ``diff_tools`` / ``diff_contracts`` compare two sets as an agent
meets them (``contract diff``), judged by the severity policy and by ``Consumer``
contracts (what a workflow depends on); ``diff_sarif`` writes the result for CI.
"""

from ._check import (
    CONTRACT_RULES,
    Call,
    ContractCheck,
    check_calls,
    check_contracts,
    consumer_reads,
)
from ._consumer import (
    Consumer,
    ConsumerFinding,
    Dependency,
    consumer_findings,
    load_consumer,
    parse_consumer,
)
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
from ._diff import Change, ContractDiff, diff_contracts, diff_tools
from ._errors import (
    ConsumerError,
    ContractError,
    ContractVersionError,
    DuplicateToolError,
    SchemaInvalidError,
    UnknownSourceError,
)
from ._jsonschema import check_schema, pointer, resolve_ref
from ._policy import CHANGE_KINDS, SEVERITIES
from ._read import SOURCES, Source, is_descriptor_doc, load_document, read_tools
from ._sarif import diff_sarif
from ._schemadiff import SchemaChange, schema_changes

__all__ = [
    "CHANGE_KINDS",
    "CONTRACT_RULES",
    "FIELDS",
    "SEVERITIES",
    "SIDE_EFFECTS",
    "SOURCES",
    "VERSION",
    "Call",
    "Change",
    "Consumer",
    "ConsumerError",
    "ConsumerFinding",
    "ContractCheck",
    "ContractDiff",
    "ContractError",
    "ContractVersionError",
    "Dependency",
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
    "check_calls",
    "check_contracts",
    "check_schema",
    "consumer_findings",
    "consumer_reads",
    "descriptor_from_dict",
    "diff_contracts",
    "diff_sarif",
    "diff_tools",
    "is_descriptor_doc",
    "load_consumer",
    "load_document",
    "parse_consumer",
    "pointer",
    "read_tools",
    "resolve_ref",
    "schema_changes",
]
