"""What an edited description introduces (docs/contracts.md, "Descriptions"): the model
picks tools and fills their arguments by their descriptions, so a description is judged
by the cues it *adds*, not by how much of its text changed.

- ``invisible``: characters a reader does not see — zero-width and joiners, bidi
  overrides and isolates, Unicode tag characters, the byte-order mark, soft hyphens
  (Unicode category ``Cf``) — where the text said none;
- ``concealment``: an instruction to keep something from the user (``do not tell the
  user``, ``without informing``, ``silently``, ``secretly``);
- ``destination``: an outbound destination (a URL, an e-mail address, a host name or
  an IP address);
- ``instruction``: an instruction to the agent (``you must``, ``always``, ``before
  calling``, ``ignore previous instructions``, ``<IMPORTANT>``, ``prefer this``, ``safe to
  call twice``);
- ``tool-reference``: the name of another tool of the set.

A cue counts as added when the new text holds it and the old did not (compared in lower
case, whitespace collapsed). ``CUE_GATE`` says how each is gated: the first three are
never benign in a tool description (``error``); the other two are judged as any drift,
``error`` for a tool that writes and ``warn`` for a read-only one. A rewording that adds
no cue is ``info``, and a consumer that calls the tool does not raise it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["CUE_GATE", "CUE_KINDS", "added_cues", "cues"]

CUE_KINDS = ("invisible", "concealment", "destination", "instruction", "tool-reference")
#: ``break``: an error whatever the tool does; ``drift``: error for writers, warn otherwise
CUE_GATE = {"invisible": "break", "concealment": "break", "destination": "break",
            "instruction": "drift", "tool-reference": "drift"}

_CONCEAL = re.compile(
    r"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not)\s+(?:tell|mention|inform|reveal|"
    r"show|disclose|notify|alert|report\s+(?:this|it)\s+to)\b[^.]*?\buser\b"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting|asking)\b"
    r"|\b(?:secretly|silently|covertly|quietly)\b"
    r"|\bkeep\s+(?:this|it)\s+(?:secret|hidden|private)\b"
    r"|\b(?:hide|conceal)\s+(?:this|it|the)\b"
    r"|\bthe\s+user\s+(?:must|should)\s+not\s+(?:know|see)\b", re.IGNORECASE)
_DESTINATION = re.compile(
    r"\b(?:https?|ftp|wss?|file)://[^\s)>\]\"']+"
    r"|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
    r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"
    r"|\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|ai|co|app|xyz|ru|cn|info|biz|me|sh)\b",
    re.IGNORECASE)
_INSTRUCTION = re.compile(
    r"\byou\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to)\b"
    r"|\b(?:always|never)\s+(?:call|use|include|send|pass|set|ask|run|invoke|read|check|"
    r"confirm|forward|add|copy)\b"
    r"|\b(?:first\s+(?:call|use|run)|before\s+(?:using|calling|any)|after\s+(?:using|calling))\b"
    r"|\bignore\s+(?:all\s+|any\s+)?(?:previous|prior|above|earlier|other)\b"
    r"|\bdisregard\b|\boverride\b|</?important>|\bimportant\s*:"
    r"|\bprefer\s+(?:this|it)\b|\binstead\s+of\s+(?:using|calling)\b"
    r"|\bmake\s+sure\s+(?:to|you)\b|\bdo\s+not\s+(?:use|call)\b"
    r"|\bsafe\s+to\s+(?:call|retry|run|repeat)\b"
    r"|\b(?:call|use|invoke|run)\s+(?:it\s+|this(?:\s+tool)?\s+)?(?:twice|again|repeatedly|"
    r"whenever|every\s+time)\b", re.IGNORECASE)


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _invisible(text: str) -> set[str]:
    return {f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) == "Cf"}


def cues(text: str | None, tools: Iterable[str] = (), own: str | None = None
         ) -> dict[str, set[str]]:
    """Every cue in ``text`` by kind; ``tools`` are the names a tool reference may name
    (``own``, the tool described, is not one)."""
    text = text or ""
    flat = _norm(text)
    found = {
        "invisible": _invisible(text),
        "concealment": {_norm(m.group(0)) for m in _CONCEAL.finditer(flat)},
        "destination": {m.group(0).lower().rstrip(".,;:!?") for m in _DESTINATION.finditer(flat)},
        "instruction": {_norm(m.group(0)) for m in _INSTRUCTION.finditer(flat)},
        "tool-reference": {t for t in tools if t != own and len(t) > 2 and re.search(
            rf"(?<![\w.]){re.escape(t.lower())}(?![\w])", flat)},
    }
    return {k: v for k, v in found.items() if v}


def added_cues(old: str | None, new: str | None, tools: Iterable[str] = (),
               own: str | None = None) -> dict[str, list[str]]:
    """The cues ``new`` holds that ``old`` did not, by kind (``CUE_KINDS`` order)."""
    names = list(tools)
    before, after = cues(old, names, own), cues(new, names, own)
    out = {k: sorted(after[k] - before.get(k, set())) for k in CUE_KINDS if k in after}
    return {k: v for k, v in out.items() if v}
