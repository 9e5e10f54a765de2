"""flakes.lock parsing: entries, comments, and the line named in every error."""

import datetime as dt

import pytest

from workbench.pytest_plugin import FlakesError, parse_flakes, stale

TODAY = dt.date(2026, 11, 30)
LOCK = ("# nodeid\tlast_seen\treason\n\n"
        "tests/test_a.py::test_upload\t2026-11-20\tS3 mock drops a part under load\n"
        "  # an indented comment\n"
        "tests/test_a.py::test_sum[3]\t2026-09-01\tfloat rounding on ARM\n")


def test_entries_and_what_they_cover():
    entries = parse_flakes(LOCK, today=TODAY)
    assert [(e.nodeid, e.last_seen.isoformat(), e.reason, e.line) for e in entries] == [
        ("tests/test_a.py::test_upload", "2026-11-20", "S3 mock drops a part under load", 3),
        ("tests/test_a.py::test_sum[3]", "2026-09-01", "float rounding on ARM", 5)]
    up, s3 = entries
    assert up.covers("tests/test_a.py::test_upload")
    assert up.covers("tests/test_a.py::test_upload[gzip]")  # every parametrization
    assert not up.covers("tests/test_a.py::test_upload_fast")
    assert s3.covers("tests/test_a.py::test_sum[3]") and not s3.covers("tests/test_a.py::test_sum[4]")
    assert [e.nodeid for e in stale(entries, TODAY, 30)] == ["tests/test_a.py::test_sum[3]"]
    assert stale(entries, TODAY, 90) == []


@pytest.mark.parametrize(("line", "why"), [
    ("tests/t.py::test_x 2026-11-01 spaces not tabs", "expected 3 tab-separated fields"),
    ("tests/t.py::test_x\t2026-11-01", "found 2"),
    ("tests/t.py::test_x\tyesterday\tflaky", "is not a date"),
    ("tests/t.py::test_x\t2026-13-01\tflaky", "is not a date"),
    ("tests/t.py::test_x\t2027-06-01\tflaky", "in the future"),
    ("tests/t.py::test_x\t2026-11-01\t  ", "the reason is empty"),
    ("test_x\t2026-11-01\tflaky", "is not a pytest node id"),
    ("tests/test_a.py::test_upload\t2026-11-01\tagain", "already listed on line 3"),
])
def test_a_malformed_line_is_an_error_naming_it(line, why):
    with pytest.raises(FlakesError) as err:
        parse_flakes(LOCK + line + "\n", source="flakes.lock", today=TODAY)
    assert err.value.message.startswith("flakes.lock line 6: ") and why in err.value.message
    assert err.value.code == "FLAKES_INVALID" and err.value.details["line"] == 6
