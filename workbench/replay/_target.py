"""The replay target: an http(s) URL, the allow-list of writes, and credentials taken
from environment variables (never from the store)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ._errors import AuthEnvError, ReplayTargetError

__all__ = ["READS", "Target", "credentials", "parse_target"]

#: methods that do not write; any other step is a write
READS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Target:
    """Where the steps go: scheme, host, port and a base path prefixed to each step's."""

    url: str
    scheme: str
    host: str
    port: int
    base: str
    writes_allowed: bool = field(default=False)

    @property
    def loopback(self) -> bool:
        return _loopback(self.host)

    def refuse_writes(self, method: str) -> None:
        """``REPLAY_TARGET_REFUSED`` for a write the allow-list does not cover."""
        if method.upper() not in READS and not self.writes_allowed:
            raise ReplayTargetError(
                f"the steps write ({method.upper()}) and {self.host} is neither loopback "
                "nor named with --allow-writes", code="REPLAY_TARGET_REFUSED",
                hint=f"replay against a service you run, or add --allow-writes {self.host} "
                     "if its data may change", target=self.url)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_target(url: str, allow_writes: Iterable[str] = ()) -> Target:
    """An ``http://`` or ``https://`` URL with a host and no credentials in it; writes
    allowed to loopback hosts and to hosts named in ``allow_writes``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ReplayTargetError(f"--target {url!r} is not an http:// or https:// URL",
                                target=url)
    if parts.username is not None or parts.password is not None:
        raise ReplayTargetError("--target carries credentials; they are never taken from "
                                "a URL", hint="pass them with --auth-env VAR")
    if parts.query or parts.fragment:
        raise ReplayTargetError(f"--target {url!r} has a query or fragment; name the "
                                "service's base URL", target=url)
    host = parts.hostname
    allowed = {h.lower().strip("[]") for h in allow_writes}
    return Target(url.rstrip("/"), parts.scheme, host,
                  port or (443 if parts.scheme == "https" else 80), parts.path.rstrip("/"),
                  _loopback(host) or host.lower() in allowed)


def credentials(specs: Iterable[str], environ: Mapping[str, str] | None = None
                ) -> dict[str, str]:
    """Header (lower case) -> value from ``--auth-env`` specs: ``VAR`` is the
    Authorization header, ``HEADER=VAR`` another. An unset or empty variable is
    ``AUTH_ENV_UNSET``."""
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    for spec in specs:
        header, eq, var = spec.rpartition("=")
        header = (header if eq else "authorization").strip().lower()
        if not var or not header or not all(c.isalnum() or c in "-_" for c in header):
            raise AuthEnvError(f"--auth-env {spec!r} is neither VAR nor HEADER=VAR",
                               code="AUTH_ENV_INVALID")
        value = env.get(var)
        if not value:
            raise AuthEnvError(f"--auth-env {var}: the variable is not set", variable=var)
        out[header] = value
    return out
