"""Probing a service on 127.0.0.1 with seeded bugs finds each bug within 300 requests for
every seed 1..20; the same service with the bugs fixed gives no finding. Targets that
are not loopback and writes without ``writes`` are refused before anything is sent."""

from __future__ import annotations

import pytest

from tests.unit.invariants.service import BUGS, DOC, TOKEN, serve
from workbench.invariants import ProbeRefusedError, check_target, judge, parse_spec, probe

SPEC = parse_spec(DOC, "service.yaml")
#: what each seeded bug must be found as
FOUND_AS = {"double_create": ("idempotent_retry", "created a second resource"),
            "repeat_cursor": ("pagination", "repeats"),
            "500_on_type": ("clean_refusal", "answered 500"),
            "ignore_auth": ("refuses_unknown_caller", "without a credential")}
SEEDS = range(1, 21)


@pytest.fixture(scope="module")
def buggy():
    with serve(set(BUGS)) as url:
        yield url


@pytest.fixture(scope="module")
def fixed():
    with serve() as url:
        yield url


@pytest.mark.parametrize("seed", SEEDS)
def test_every_seeded_bug_found_within_300_requests(buggy, seed):
    done = probe(SPEC, buggy, seed=seed, max_requests=300, writes=True, auth=TOKEN)
    assert len(done.exchanges) <= 300
    found = judge(done.exchanges, SPEC).findings
    for bug, (rule, words) in FOUND_AS.items():
        assert any(f.rule == rule and words in f.message for f in found), (seed, bug)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_fixed_service_gives_no_finding(fixed, seed):
    done = probe(SPEC, fixed, seed=seed, max_requests=300, writes=True, auth=TOKEN)
    assert len(done.exchanges) > 20
    assert [f.message for f in judge(done.exchanges, SPEC).findings] == []


def test_each_bug_alone_is_found_and_only_it(fixed):
    for bug, (rule, _) in FOUND_AS.items():
        with serve({bug}) as url:
            done = probe(SPEC, url, seed=3, writes=True, auth=TOKEN)
        rules = {f.rule for f in judge(done.exchanges, SPEC).findings}
        # a 500 to a refused request is clean_refusal's, not no_server_error's
        extra = {"status_declared"} if bug == "500_on_type" else set()
        assert rules == {rule} | extra, bug


def test_same_seed_same_requests(fixed):
    a = probe(SPEC, fixed, seed=5, max_requests=15, auth=TOKEN)
    b = probe(SPEC, fixed, seed=5, max_requests=15, auth=TOKEN)
    assert [(x.method, x.path, x.query) for x in a.exchanges] == [
        (x.method, x.path, x.query) for x in b.exchanges]


def test_without_writes_only_reads_are_sent(fixed):
    done = probe(SPEC, fixed, seed=1, auth=TOKEN)
    assert {x.method for x in done.exchanges} == {"GET"}
    assert done.skipped == ["POST /orders"]
    with pytest.raises(ProbeRefusedError) as e:
        probe(SPEC, fixed, operations=["POST /orders"])
    assert e.value.code == "PROBE_WRITES_REFUSED"


def test_the_credential_is_never_recorded(fixed):
    done = probe(SPEC, fixed, seed=2, max_requests=20, auth=TOKEN)
    assert "probe-token" not in str(done.har())
    assert any(x.headers.get("authorization") == "«credential»" for x in done.exchanges)


@pytest.mark.parametrize("url", ["http://example.com:80", "https://127.0.0.1:8443",
                                 "http://10.0.0.1:8080", "ftp://127.0.0.1", "127.0.0.1:80",
                                 "http://127.0.0.1.example.com/", ""])
def test_only_loopback_http_targets(url):
    with pytest.raises(ProbeRefusedError) as e:
        check_target(url)
    assert e.value.code == "PROBE_TARGET_REFUSED"


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "http://localhost:80/api",
                                 "http://[::1]:8080", "http://127.8.9.10"])
def test_loopback_targets_accepted(url):
    assert check_target(url)[0] in ("127.0.0.1", "localhost", "::1", "127.8.9.10")


def test_generated_header_values_are_sendable(fixed):
    """A required header parameter gets drawn text of any kind; what is sent is printable
    ASCII (http.client refuses the rest), and the probe goes on."""
    import copy

    doc = copy.deepcopy(DOC)
    doc["paths"]["/orders"]["get"]["parameters"].append(
        {"name": "X-Trace", "in": "header", "required": True,
         "schema": {"type": "string", "minLength": 1}})
    spec = parse_spec(doc, "service.yaml")
    for seed in (1, 2, 3):
        done = probe(spec, fixed, seed=seed, max_requests=30, auth=TOKEN)
        sent = [x.headers["x-trace"] for x in done.exchanges if "x-trace" in x.headers]
        assert sent and all(v.isascii() and v.isprintable() for v in sent)
        assert all(x.status is not None for x in done.exchanges)
