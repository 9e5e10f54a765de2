"""A kind of configuration file: what it is called, which error it raises, which keys it
has; reading it, and parsing it as versioned YAML.

Rules files, promotion policies, canon files and ``flakes.lock`` are text files reviewed
like code. Each kind is one ``ConfigFile``; its errors are its own ``ConfigError``
subclass, with stable codes, and every error names the file and, where there is one,
the line::

    WorkbenchError
    └── InputError (ValueError)
        └── ConfigError              CONFIG_INVALID (a base: each kind has its own)
            ├── rules.RulesError     RULES_INVALID, RULES_YAML
            ├── redact.PolicyError   POLICY_INVALID, POLICY_YAML
            ├── diff.CanonError      CANON_INVALID
            └── pytest_plugin.FlakesError  FLAKES_INVALID

A missing file is ``FILE_NOT_FOUND`` of the kind's class; a key given twice in one
mapping is ``DUPLICATE_KEY`` of the kind's class. Every file is read within the limits
of ``model.LIMITS`` (``config_bytes``, ``yaml_depth``, ``config_alias_nodes``,
``config_scalar_chars``, ``integer_digits``): a breach is ``LIMIT_EXCEEDED``. A YAML
kind is a mapping whose ``version`` is 1 (checked first) and whose other keys are the
kind's ``keys``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Generic, TypeVar

import yaml

from ..model import LIMITS, InputError
from ._node import ConfigLoader, DuplicateKeyError, Node

__all__ = ["ConfigError", "ConfigFile", "safe_load"]


class ConfigError(InputError):
    """A configuration file that cannot be used (the base of each kind's error)."""

    code = "CONFIG_INVALID"


E = TypeVar("E", bound=ConfigError)
_BYTES = LIMITS["config_bytes"]


class ConfigFile(Generic[E]):
    """One kind of configuration file.

    ``name`` is how messages call it (``rules file``); ``error`` its error class;
    ``keys`` its top-level keys beside ``version``; ``shape`` what the whole document must
    be, said when it is not a mapping; ``yaml_code`` the code of text that is not YAML
    (default: the class's own); ``hint`` what to do about a missing file.
    """

    def __init__(self, name: str, error: type[E], *, keys: tuple[str, ...] = (),
                 shape: str = "", yaml_code: str | None = None,
                 hint: str = "check the path") -> None:
        self.name, self.error_type, self.keys = name, error, keys
        self.shape = shape or f"a {name} is a mapping with `version: 1`"
        self.yaml_code, self.hint = yaml_code, hint

    def error(self, source: str, message: str, line: int | None = None, *,
              part: str | None = None, **details: Any) -> E:
        """``SOURCE line N, PART: message``, with ``file`` and ``line`` in the details."""
        where = source + (f" line {line}" if line else "") + (f", {part}" if part else "")
        return self.error_type(f"{where}: {message}", file=source, line=line, **details)

    def read(self, path: str | os.PathLike[str]) -> str:
        """The file's text; ``FILE_NOT_FOUND`` when there is none."""
        p = Path(path)
        try:
            size = p.stat().st_size
            if size > _BYTES.value and p.is_file():
                raise _BYTES.breach(str(p), size, file=str(p))
            return p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise self.error_type(f"no {self.name} {p}", code="FILE_NOT_FOUND", hint=self.hint,
                                  file=str(p)) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise self.error_type(f"cannot read the {self.name} {p}: {exc}",
                                  file=str(p)) from None

    def parse(self, text: str, source: str) -> Node:
        """The document: a mapping with ``version: 1`` and no key but the kind's."""
        doc = self.parse_yaml(text, source)
        if doc is None or doc.kind != "mapping":
            raise self.error(source, self.shape)
        version = doc.get("version")
        if version is None:
            raise doc.error("`version: 1` is missing")
        if version.value != 1 or isinstance(version.value, bool):
            raise version.error(f"version must be 1 (found {version.value!r})")
        known = ("version", *self.keys)
        for key, _ in doc.entries():
            if key.value not in known:
                raise key.error(f"unknown key {key.value!r} (keys: {', '.join(known)})")
        return doc

    def parse_yaml(self, text: str, source: str) -> Node | None:
        """Any YAML document (None when the text holds none), every node with its line."""
        if len(text) > _BYTES.value:
            raise _BYTES.breach(source, len(text), file=source)
        try:
            return Node.compose(text, self, source)
        except DuplicateKeyError as exc:
            raise self.error(source, str(exc.problem), exc.line, code="DUPLICATE_KEY",
                             hint="give each key once") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or exc
            raise self.error(source, f"not valid YAML ({problem})", line,
                             code=self.yaml_code) from None


def safe_load(text: str, source: str) -> Any:
    """Plain data from YAML ``text`` as a configuration file is read: within its limits
    (``LIMIT_EXCEEDED``) and with no key given twice (``DuplicateKeyError``, a
    ``yaml.YAMLError``); ``yaml.YAMLError`` when it is not YAML."""
    if len(text) > _BYTES.value:
        raise _BYTES.breach(source, len(text), file=source)
    loader = ConfigLoader(text, source)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
