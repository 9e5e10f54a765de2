"""Tool contracts: versioned descriptors of the tools agents call (docs/contracts.md).

A ``Descriptor`` is one tool's contract (``descriptor.schema.json`` is its truth); a
``ToolSet`` holds a set of them by name; ``read_tools`` reads descriptor files,
manifests and folders, and through the importers (``SOURCES``) MCP tool lists and
recordings, OpenAI, Anthropic and Gemini tool lists and OpenAPI documents.
``import_tools`` adds the tool definitions traces recorded and ``write_descriptors``
writes one YAML file per tool; ``import_contracts`` imports tool by tool, listing the
tools it refused (``Refusal``) and the constructs it converted (``Warned``). ``lint``
names what each provider (``PROVIDERS``) would drop or reject; ``export_tools`` writes
a provider's tool JSON. ``diff_tools`` / ``diff_contracts`` compare two sets as an agent
meets them (``contract diff``), judged by the severity policy and by ``Consumer``
contracts (what a workflow depends on); ``diff_sarif`` writes the result for CI.
``check_contracts`` holds recorded tool calls to their descriptors (``contract check``).
``Traffic`` is the store's recorded tool calls and the data flow between them:
``infer_consumer`` turns it into a consumer contract (``contract infer``),
``judge_recorded`` judges a diff against it (``contract diff --recorded``) and
``contract_usage`` counts what it uses (``contract usage``).
"""

from ._check import (
    CONTRACT_RULES,
    Call,
    ContractCheck,
    calls_of,
    check_calls,
    check_contracts,
    consumer_reads,
    input_problems,
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
from ._errors import (
    ConsumerError,
    ContractError,
    ContractVersionError,
    DescriptorExistsError,
    DuplicateToolError,
    ExportError,
    SchemaInvalidError,
    UnknownSourceError,
)
from ._import import (
    ImportResult,
    Written,
    dump_yaml,
    import_contracts,
    import_summary,
    import_tools,
    manifest,
    tools_from_store,
    write_descriptors,
)
from ._infer import (
    InferredConsumer,
    infer_consumer,
)
from ._notes import (
    Refusal,
    Warned,
)
from ._profile import (
    SEVERITIES as LINT_SEVERITIES,
)
from ._profile import (
    Problem,
    ProblemGroup,
    hoist_root,
)
from ._providers import (
    PROVIDERS,
    ExportResult,
    LintResult,
    export_paths,
    export_tools,
    lint,
    lint_paths,
    provider_json,
)
from ._read import (
    SOURCES,
    Source,
    detect_source,
    is_descriptor_doc,
    load_document,
    read_document,
    read_tools,
)
from ._sarif import (
    diff_sarif,
)
from ._traffic import (
    Flow,
    Recorded,
    Traffic,
    Witness,
)
from ._usage import (
    Usage,
    contract_usage,
)
from .diff import (
    CHANGE_KINDS,
    SEVERITIES,
    SINKS,
    Change,
    ContractDiff,
    SchemaChange,
    diff_contracts,
    diff_tools,
    judge_recorded,
    schema_changes,
)
from .mcp import (
    annotations_for,
    side_effect_of,
)
from .openapi import (
    Components,
)
from .schema import (
    check_schema,
    nullable_31,
    resolve_ref,
    to_json_schema,
)

__all__ = [
    "CHANGE_KINDS",
    "CONTRACT_RULES",
    "FIELDS",
    "LINT_SEVERITIES",
    "PROVIDERS",
    "SEVERITIES",
    "SIDE_EFFECTS",
    "SINKS",
    "SOURCES",
    "VERSION",
    "Call",
    "Change",
    "Components",
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
    "DescriptorExistsError",
    "DuplicateToolError",
    "ErrorEnvelope",
    "ExportError",
    "ExportResult",
    "Flow",
    "Idempotency",
    "ImportResult",
    "InferredConsumer",
    "LintResult",
    "Problem",
    "ProblemGroup",
    "Provenance",
    "Recorded",
    "Refusal",
    "SchemaChange",
    "SchemaInvalidError",
    "Source",
    "ToolSet",
    "Traffic",
    "UnknownSourceError",
    "Usage",
    "Warned",
    "Witness",
    "Written",
    "annotations_for",
    "calls_of",
    "check_calls",
    "check_contracts",
    "check_schema",
    "consumer_findings",
    "consumer_reads",
    "contract_usage",
    "descriptor_from_dict",
    "detect_source",
    "diff_contracts",
    "diff_sarif",
    "diff_tools",
    "dump_yaml",
    "export_paths",
    "export_tools",
    "hoist_root",
    "import_contracts",
    "import_summary",
    "import_tools",
    "infer_consumer",
    "input_problems",
    "is_descriptor_doc",
    "judge_recorded",
    "lint",
    "lint_paths",
    "load_consumer",
    "load_document",
    "manifest",
    "nullable_31",
    "parse_consumer",
    "provider_json",
    "read_document",
    "read_tools",
    "resolve_ref",
    "schema_changes",
    "side_effect_of",
    "to_json_schema",
    "tools_from_store",
    "write_descriptors",
]
