"""Redaction: secrets and personal data replaced by keyed tokens (docs/redact.md).

Detectors (``find``, ``maybe``, ``key_class``, ``looks_secret``) say what is secret;
``Redactor`` replaces it in JSON values and text with tokens such as
``«secret:github-pat:7f3a9c01d2e4»`` that are equal for equal values under one key;
``Scrubber`` replaces known credential values wherever they reappear;
``scan_value`` lists what is left; ``redact_files`` / ``scan_files`` do both for files
(JSON, JSONL, text and Parquet);
``apply_policy`` reduces a trace to what a promotion policy keeps (docs/fixtures.md).
"""

from ._detect import DETECTORS, find, maybe
from ._files import ApplyResult, FileReport, ScanHit, ScanResult, redact_files, scan_files
from ._hits import Hit
from ._keyfile import RedactionKey, redaction_key
from ._keys import key_class, looks_secret
from ._message import error_text, masked, masked_error
from ._parquet import ParquetError
from ._policy import (
    FirstSeen,
    Policy,
    PolicyError,
    apply_policy,
    load_policy,
    parse_policy,
    shape_of,
)
from ._scrub import Scrubber
from ._tokens import TOKEN_RE
from ._walk import Redactor, scan_value

__all__ = [
    "DETECTORS",
    "TOKEN_RE",
    "ApplyResult",
    "FileReport",
    "FirstSeen",
    "Hit",
    "ParquetError",
    "Policy",
    "PolicyError",
    "RedactionKey",
    "Redactor",
    "ScanHit",
    "ScanResult",
    "Scrubber",
    "apply_policy",
    "error_text",
    "find",
    "key_class",
    "load_policy",
    "looks_secret",
    "masked",
    "masked_error",
    "maybe",
    "parse_policy",
    "redact_files",
    "redaction_key",
    "scan_files",
    "scan_value",
    "shape_of",
]
