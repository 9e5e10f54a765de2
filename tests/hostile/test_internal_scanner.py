"""Internal errors are bugs: a CLI run that ends in one fails its test, even a test that
asserted nothing about it (the hook in tests/conftest.py, the check in
tests.support.run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import no_internal_error

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def test_a_passing_test_whose_cli_run_printed_an_internal_error_fails(pytester):
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_inner="""
        import sys

        def test_bug_slips_by():
            sys.stderr.write("error[INTERNAL]: ValueError: boom\\n")

        def test_clean():
            sys.stderr.write("error[LIMIT_EXCEEDED]: f line 1: ...\\n")
        """)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*a CLI run in it ended in an internal error*"])


@pytest.mark.parametrize(("code", "out", "err"), [
    (3, "", "error[INTERNAL]: KeyError: 'x'\n"),
    (2, "", "error[INTERNAL]: boom\n"),
    (3, '{"error": {"code": "INTERNAL", "message": "m"}}', ""),
])
def test_the_runner_refuses_internal_errors(code, out, err):
    with pytest.raises(pytest.fail.Exception, match="internal error"):
        no_internal_error(code, out, err, ["ingest", "x"])


@pytest.mark.parametrize(("code", "err"), [(0, ""), (1, ""), (2, "error[INVALID_JSON]: x\n")])
def test_the_runner_lets_ordinary_endings_pass(code, err):
    no_internal_error(code, "", err, ["ingest", "x"])
