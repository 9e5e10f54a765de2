"""Where a file that names another file may reach: inside its own folder, nowhere else.

A rules file names JSON Schema files (``schema: {$ref: FILE}``), a fixture names its
trace and rules, a scenario or a consumer contract will name others. Such files come
with a pull request, so a name in them must never make the workbench read a file
outside the naming file's folder, nor anything over the network. ``resolve_ref`` is
the one check every such reader uses: it refuses, before anything is opened,

- a URL of any scheme (``file://…``, ``http(s)://…``, ``data:…``),
- an absolute path (``/etc/passwd``, ``C:\\…``, ``\\\\host\\share``),
- a relative path that leaves the folder (``../x.json``, ``a/../../x.json``, a symbolic
  link inside the folder that points outside it),

each with ``RefError`` (``REF_OUTSIDE``) naming the reference. What it returns is the
resolved path inside the folder (which may not exist: the caller says so its way).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from ..model import InputError

__all__ = ["RefError", "resolve_ref"]

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


class RefError(InputError):
    """A reference that would leave the naming file's folder."""

    code = "REF_OUTSIDE"
    default_hint = ("name a file inside the same folder by a relative path (a schema may "
                    "also point inside itself with #/…); copy what you need there")


def resolve_ref(ref: str, base: str | Path) -> Path:
    """The file ``ref`` names relative to the folder ``base``, or ``RefError`` when it
    would be outside it (see the module docstring). A fragment (``#/…``) is not part
    of the file name: split it off first."""
    if not isinstance(ref, str) or not ref.strip():
        raise RefError(f"an empty reference {ref!r}", ref=str(ref))
    if "\x00" in ref:
        raise RefError(f"the reference {ref!r} holds a NUL character", ref=ref)
    if _SCHEME.match(ref) or ref.startswith("//"):
        raise RefError(f"{ref!r} is a URL; only files inside the folder are read",
                       ref=ref)
    if (PurePosixPath(ref).is_absolute() or PureWindowsPath(ref).is_absolute()
            or ref.startswith("\\")):
        raise RefError(f"{ref!r} is an absolute path; only files inside the folder are "
                       "read", ref=ref)
    root = Path(base).resolve()
    target = (root / ref).resolve()
    if not target.is_relative_to(root):
        raise RefError(f"{ref!r} leaves the folder it is named from", ref=ref)
    return target
