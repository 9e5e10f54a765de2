"""Messages that quote input, quoted redacted: the one helper every error path uses.

An error message, hint or detail may quote what it read (``unknown kind 'ghp_…'``, an
id, a file name). ``masked`` replaces every find of the detectors in such text —
URL-encoded ones included — by ``«detector»``. No key is needed (a message is printed
before or without any store), and the text is otherwise unchanged; a store's keyed
tokens (``«secret:github-pat:…»``) are no find, so a message quoting stored ids keeps
them. ``masked_error`` applies it to an error's message, hint and details.
"""

from __future__ import annotations

from typing import Any

from ..model import WorkbenchError
from ._encoded import gate
from ._walk import spans_of

__all__ = ["error_text", "masked", "masked_error"]


def masked(text: str) -> str:
    """``text`` with each secret or personal datum replaced by ``«detector»``."""
    if not isinstance(text, str) or not gate(text):
        return text
    out, pos = [], 0
    for start, end, _category, detector in spans_of(text):
        out.append(text[pos:start])
        out.append(f"«{detector}»")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _masked_value(v: Any) -> Any:
    if isinstance(v, str):
        return masked(v)
    if isinstance(v, dict):
        return {masked(str(k)): _masked_value(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_masked_value(x) for x in v]
    return v


def masked_error(exc: WorkbenchError) -> WorkbenchError:
    """The same error (class, code) with its message, hint and details masked."""
    message, hint = masked(exc.message), masked(exc.hint)
    details = {k: _masked_value(v) for k, v in exc.details.items()}
    if (message, hint, details) == (exc.message, exc.hint, exc.details):
        return exc
    # rebuilt as pickling rebuilds it (WorkbenchError.__reduce__)
    return type(exc)(message, hint=hint, code=exc.code, **details)


def error_text(exc: WorkbenchError) -> str:
    """``error[CODE]: message`` and, where there is one, ``\\n  hint: …``; masked."""
    safe = masked_error(exc)
    return f"error[{safe.code}]: {safe.message}" + (f"\n  hint: {safe.hint}" if safe.hint
                                                     else "")
