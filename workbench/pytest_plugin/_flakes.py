"""``flakes.lock``: the tests frozen out of the merge gate, when each was last seen
failing, and why.

One entry per line, three fields separated by tabs::

    # nodeid	last_seen	reason
    tests/e2e/test_upload.py::test_resume	2026-11-02	S3 mock drops the 3rd part under load

``nodeid`` is a pytest node id; without ``[params]`` it covers every parametrization.
``last_seen`` is a date (``YYYY-MM-DD``); ``reason`` is required. ``#`` starts a comment
line; blank lines are ignored. A malformed line is an error naming the file and the line.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..config import ConfigError, ConfigFile

__all__ = ["FlakeEntry", "FlakesError", "load_flakes", "parse_flakes", "stale"]


class FlakesError(ConfigError):
    code = "FLAKES_INVALID"
    default_hint = "each line is nodeid<TAB>last_seen (YYYY-MM-DD)<TAB>reason; # for comments"


# not YAML: a line per entry, so the file shares only the reading and the errors
_FILE = ConfigFile("flakes file", FlakesError,
                   hint="check --flakes or the workbench_flakes ini option")


@dataclass(frozen=True)
class FlakeEntry:
    nodeid: str
    last_seen: dt.date
    reason: str
    line: int

    def covers(self, nodeid: str) -> bool:
        """This entry's test, or one of its parametrizations when the entry has none."""
        return nodeid == self.nodeid or (
            "[" not in self.nodeid and nodeid.startswith(self.nodeid + "["))

    def age(self, today: dt.date) -> int:
        return (today - self.last_seen).days


def parse_flakes(text: str, source: str = "flakes.lock",
                 today: dt.date | None = None) -> list[FlakeEntry]:
    """The entries of a lock file; ``FlakesError`` names the first bad line."""
    today = today or dt.date.today()
    text = text.removeprefix("\ufeff")  # a BOM would glue itself to the first node id
    out: list[FlakeEntry] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue

        def bad(why: str, line_no: int = n) -> ConfigError:
            return _FILE.error(source, why, line_no)

        fields = line.split("\t")
        if len(fields) != 3:
            raise bad(f"expected 3 tab-separated fields (nodeid, last_seen, reason), found "
                      f"{len(fields)}")
        nodeid, seen_text, reason = (f.strip() for f in fields)
        if not nodeid or "::" not in nodeid:
            raise bad(f"{nodeid!r} is not a pytest node id (path::test)")
        try:
            last_seen = dt.date.fromisoformat(seen_text)
        except ValueError:
            raise bad(f"last_seen {seen_text!r} is not a date (YYYY-MM-DD)") from None
        if last_seen > today + dt.timedelta(days=1):
            raise bad(f"last_seen {seen_text} is in the future")
        if not reason:
            raise bad("the reason is empty; say why the test is frozen")
        if nodeid in seen:
            raise bad(f"{nodeid} is already listed on line {seen[nodeid]}")
        seen[nodeid] = n
        out.append(FlakeEntry(nodeid, last_seen, reason, n))
    return out


def load_flakes(path: str | Path, today: dt.date | None = None,
                source: str | None = None) -> list[FlakeEntry]:
    """Read a lock file; ``source`` is how errors name it (default: the path)."""
    return parse_flakes(_FILE.read(path), source or str(Path(path)), today)


def stale(entries: Iterable[FlakeEntry], today: dt.date, max_age_days: int) -> list[FlakeEntry]:
    """Entries not seen failing for more than ``max_age_days``: a dead witness."""
    return [e for e in entries if e.age(today) > max_age_days]
