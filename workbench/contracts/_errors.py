"""The errors of tool contracts, each with a stable code; every message names the file,
and where there is one the tool and the path inside it::

    WorkbenchError
    └── InputError (ValueError)
        └── ContractError               CONTRACT_INVALID
            ├── ContractVersionError    CONTRACT_TOO_NEW
            ├── DuplicateToolError      DUPLICATE_TOOL
            ├── SchemaInvalidError      SCHEMA_INVALID
            ├── UnknownSourceError      UNKNOWN_CONTRACT_FORMAT
            ├── ConsumerError           CONSUMER_INVALID
            ├── DescriptorExistsError   DESCRIPTOR_EXISTS
            └── ExportError             EXPORT_LOSSY, EXPORT_UNSUPPORTED
"""

from __future__ import annotations

from ..config import ConfigError
from ..model import InputError

__all__ = ["ConsumerError", "ContractError", "ContractVersionError", "DescriptorExistsError",
           "DuplicateToolError", "ExportError", "SchemaInvalidError", "UnknownSourceError"]


class ContractError(InputError):
    """A descriptor (or a file meant as one) that cannot be used."""

    code = "CONTRACT_INVALID"
    default_hint = "docs/contracts.md describes the descriptor, field by field"


class ContractVersionError(ContractError):
    code = "CONTRACT_TOO_NEW"
    default_hint = "upgrade the workbench to read this descriptor"


class DuplicateToolError(ContractError):
    code = "DUPLICATE_TOOL"
    default_hint = "a tool name is unique within one set of descriptors"


class SchemaInvalidError(ContractError):
    """An ``input`` or ``output`` that is not a usable JSON Schema: an unknown type, a
    ``$ref`` that resolves to nothing, a ``$ref`` cycle with no way out."""

    code = "SCHEMA_INVALID"
    default_hint = "check the schema against JSON Schema 2020-12"


class UnknownSourceError(ContractError):
    code = "UNKNOWN_CONTRACT_FORMAT"
    default_hint = ("contract import reads descriptors, MCP tools/list results and manifests, "
                    "OpenAI, Anthropic and Gemini tool lists, and OpenAPI 3.x documents")


class ConsumerError(ContractError, ConfigError):
    """A consumer contract that names a tool, a path or a value it cannot depend on."""

    code = "CONSUMER_INVALID"
    default_hint = "docs/contracts.md describes consumer contracts"


class DescriptorExistsError(ContractError):
    """``contract import --out``: a descriptor file of another content is in the way."""

    code = "DESCRIPTOR_EXISTS"
    default_hint = ("review the difference, then pass --force to replace it, or import into "
                    "another --out folder")


class ExportError(ContractError):
    """An export that would lose meaning (``EXPORT_LOSSY``: ``--lossy`` accepts the loss)
    or that the provider cannot take at all (``EXPORT_UNSUPPORTED``: a name it refuses, a
    recursive schema it cannot inline)."""

    code = "EXPORT_LOSSY"
    default_hint = ("`workbench contract lint --provider P` lists each problem; --lossy "
                    "exports anyway and lists what was dropped")
