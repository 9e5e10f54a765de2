"""Replay scrubs what it sent as a credential from everything an attempt records."""

from __future__ import annotations

from workbench.invariants import Exchange
from workbench.redact import Scrubber
from workbench.replay._scrub import scrub_attempt
from workbench.replay._send import Attempt

KEY = bytes(range(32))


def test_an_attempt_is_scrubbed_everywhere_it_could_be_written():
    x = Exchange("t", "e0", 0, "GET", "/orders", {"q": "Unshaped-Key-42"},
                 {"authorization": "«credential»", "idempotency-key": "idem-1.r1"},
                 None, False, 401, {"x-caller": "Unshaped-Key-42"},
                 {"message": "invalid key Unshaped-Key-42"}, True)
    a = Attempt([x], [b'{"message": "invalid key Unshaped-Key-42"}'],
                ["http://127.0.0.1:1/orders?q=Unshaped-Key-42"], "REPLAY_UNAUTHORIZED",
                "refused Unshaped-Key-42", 0)
    out = scrub_attempt(Scrubber(KEY, [("authorization", "Unshaped-Key-42")]), a)
    assert "Unshaped-Key-42" not in repr(out)
    assert out.exchanges[0].headers["idempotency-key"] == "idem-1.r1"  # not a credential
    assert scrub_attempt(Scrubber(KEY, ()), a) is a
