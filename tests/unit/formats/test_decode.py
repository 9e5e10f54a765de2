import hashlib
import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.formats import SourceFile
from workbench.formats._decode import (
    _plain,
    iter_json_lines,
    load_document,
    maybe_json,
    parse_time_ns,
    split_lines,
)
from workbench.model import EncodingError, InvalidJSONError


def source(tmp_path: Path, data: bytes) -> SourceFile:
    p = tmp_path / "f.json"
    p.write_bytes(data)
    return SourceFile(p, hashlib.sha256(data).hexdigest(), len(data), data[:65536])


@pytest.mark.parametrize("value, ns", [
    ("2025-11-24T16:00:00Z", 1_764_000_000_000_000_000),
    ("2025-11-24T16:00:00.123456789Z", 1_764_000_000_123_456_789),
    ("2025-11-24T17:00:00+01:00", 1_764_000_000_000_000_000),
    ("2025-11-24 16:00:00.5", 1_764_000_000_500_000_000),  # no zone: UTC
    ("1764000000000000000", 1_764_000_000_000_000_000),     # *UnixNano string
    (1_764_000_000, 1_764_000_000_000_000_000),             # seconds
    (1_764_000_000_000, 1_764_000_000_000_000_000),         # milliseconds
    (1_764_000_000_000_000, 1_764_000_000_000_000_000),     # microseconds
    ([1_764_000_000, 250], 1_764_000_000_000_000_250),      # hrtime pair
    (1764000000.25, 1_764_000_000_250_000_000),
    (None, None), ("", None), ("yesterday", None), (True, None),
    ("2025-13-45T00:00:00Z", None),
])
def test_parse_time_ns(value, ns):
    assert parse_time_ns(value) == ns


def test_maybe_json_decodes_objects_and_arrays_only():
    assert maybe_json('{"a": 1}') == {"a": 1}
    assert maybe_json(' [1, 2] ') == [1, 2]
    assert maybe_json('{"a": ') == '{"a": '
    assert maybe_json("42") == "42"
    assert maybe_json("plain") == "plain"
    assert maybe_json(7) == 7


def test_load_document_names_line_and_column(tmp_path):
    with pytest.raises(InvalidJSONError) as info:
        load_document(source(tmp_path, b'{\n  "a": [1, 2,\n'))
    assert "line" in info.value.message and info.value.code == "INVALID_JSON"


def test_non_utf8_is_an_encoding_error_naming_the_line(tmp_path):
    with pytest.raises(EncodingError) as info:
        load_document(source(tmp_path, b'{"a":\n "caf\xe9"}'))
    assert info.value.details["line"] == 2
    with pytest.raises(EncodingError) as info:
        list(iter_json_lines(source(tmp_path, b'{"a": 1}\n\n{"b": "\xff"}\n')))
    assert info.value.details["line"] == 3


def test_json_lines_skip_blank_lines_and_name_bad_ones(tmp_path):
    got = list(iter_json_lines(source(tmp_path, b'{"a": 1}\n\n  \n[2]\n')))
    assert got == [(1, {"a": 1}), (4, [2])]
    with pytest.raises(InvalidJSONError) as info:
        list(iter_json_lines(source(tmp_path, b'{"a": 1}\n{"b": \n')))
    assert info.value.details["line"] == 2


def test_epoch_numbers_beyond_int64_are_not_times():
    assert parse_time_ns(9223372036854776.0) is None   # read as microseconds: too large
    assert parse_time_ns(10**25) is None


#: the definition of a plain line: no run of 20 among the digits, "-", "\\" and "u"
_NOT_PLAIN = re.compile(rb"[-0-9\\u]{20}")


@pytest.mark.parametrize("data, plain", [
    (b'{"t":"1748736000147000000"}', True),           # 19 digits: an OTLP timestamp
    (b'{"n":12345678901234567890}', False),            # 20 digits
    (b'{"n":-1234567890123456789}', False),            # "-" and 19
    (b'"\\u0031\\u0032\\u0033\\u0034"', False),   # escaped digits
    (b"-" * 19 + b"x" + b"-" * 19, True),
    (b"u" * 20, False),
    (b"U" * 40, True),
])
def test_plain_marks_runs_of_twenty(data, plain):
    assert _plain(data) is plain


_RUNS = st.lists(st.sampled_from([b"0", b"5", b"9", b"-", b"\\", b"u"]), min_size=15,
                 max_size=25).map(b"".join)
_OTHERS = st.sampled_from([b"a", b"U", b"/", b":", b'"', b" ", b".", b"\xff", b"\x00"])


@given(st.lists(st.one_of(_RUNS, _OTHERS), max_size=12).map(b"".join))
def test_plain_is_no_run_of_twenty(data):
    assert _plain(data) is (_NOT_PLAIN.search(data) is None)


def _lines_file(tmp_path, sizes):
    data = b"".join(b"x" * (n - 1) + b"\n" for n in sizes)
    return source(tmp_path, data), data


@pytest.mark.parametrize("workers", [0, 1, 2, 4])
def test_split_lines_covers_the_file_at_line_starts(tmp_path, workers):
    src, data = _lines_file(tmp_path, [100 + (i * 37) % 300 for i in range(400)])
    ranges = split_lines(src, 16, workers=workers)
    assert ranges[0].start == 0 and ranges[-1].end == len(data)
    for a, b in itertools.pairwise(ranges):
        assert a.end == b.start and data[b.start - 1:b.start] == b"\n"
    if workers == 0:
        assert len(ranges) == 16
    else:  # a 2*workers-th of what is left, shrinking to about a 16th of the file
        sizes = [r.end - r.start for r in ranges]
        assert sizes[0] >= len(data) // (2 * workers)
        assert all(s >= len(data) // 16 for s in sizes[:-1])
        assert max(sizes[-2:]) < len(data) // 16 * 3 // 2 + 400  # no sliver at the end
        assert sizes[-1] >= len(data) // 32
        assert all(a > b - 400 for a, b in itertools.pairwise(sizes))  # lines: < 400 bytes


def test_split_lines_of_one_long_line_is_the_file(tmp_path):
    src, data = _lines_file(tmp_path, [5000])
    assert [(r.start, r.end) for r in split_lines(src, 16, workers=2)] == [(0, len(data))]
