"""``workbench redact scan|apply`` over Parquet (any Parquet, the fixtures' included),
its refusals, ``--keep-going``, and a promoted fixture that scans clean."""

import base64
import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

from tests.support import EXAMPLES, run
from workbench.redact import TOKEN_RE


@pytest.fixture(autouse=True)
def no_env_store(monkeypatch, tmp_path):
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)
    monkeypatch.chdir(tmp_path)


def _table() -> pa.Table:
    return pa.table({
        "customer_name": ["Elena Fischer", "Omar Silva", None, "Elena Fischer"],
        "args": [json.dumps({"contact": "Ana Lima", "city": "Paris"}), "{}", "x", "{}"],
        "n": [1, 2, 3, 4],
        "notes": pa.array([["ok"], ["Dear Elena, my SSN is 123-45-6789"], [], None]),
        "tool": pa.array(["get_weather", "searchFlights", "get_weather", "x"]
                         ).dictionary_encode(),
    })


@pytest.fixture
def pq_dir(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    pq.write_table(_table(), d / "events.parquet")
    return d


def test_scan_reads_every_string_column_and_json_value(capsys, pq_dir) -> None:
    code, out, _ = run(capsys, "redact", "scan", pq_dir, "--json")
    assert code == 1
    doc = json.loads(out)
    got = sorted((h["path"], h["detector"]) for h in doc["hits"])
    assert got == [("row 0 args.contact", "person-name"),
                   ("row 0 customer_name", "person-name"),
                   ("row 1 customer_name", "person-name"),
                   ("row 1 notes[0]", "person-name"), ("row 1 notes[0]", "us-ssn")]
    assert "Elena" not in out and "123-45" not in out
    assert doc["errors"] == []


def test_apply_writes_parquet_that_scans_clean(capsys, pq_dir, tmp_path) -> None:
    code, out, _ = run(capsys, "redact", "apply", pq_dir, "--out", tmp_path / "clean",
                       "--json")
    assert code == 0
    report = json.loads(out)
    assert report["files"][0]["format"] == "parquet"
    assert report["hits"] == {"person-name": 5, "us-ssn": 1}
    t = pq.read_table(tmp_path / "clean" / "events.parquet")
    assert t.schema == _table().schema
    rows = t.to_pylist()
    assert TOKEN_RE.fullmatch(rows[0]["customer_name"])
    assert rows[0]["customer_name"] == rows[3]["customer_name"]  # same value, same token
    assert json.loads(rows[0]["args"])["city"] == "Paris"
    assert rows[0]["n"] == 1 and rows[1]["tool"] == "searchFlights"
    assert rows[2]["customer_name"] is None and rows[3]["notes"] is None
    code, out, _ = run(capsys, "redact", "scan", tmp_path / "clean")
    assert (code, out.strip()) == (0, "clean: nothing found in 1 files")


def _encrypted(path) -> None:
    class Kms(pe.KmsClient):
        """An in-process key wrapper: a real KMS cannot run here."""

        def __init__(self, config):
            super().__init__()

        def wrap_key(self, key_bytes, master_key_identifier):
            return base64.b64encode(key_bytes)

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return base64.b64decode(wrapped_key)

    props = pe.CryptoFactory(Kms).file_encryption_properties(
        pe.KmsConnectionConfig(),
        pe.EncryptionConfiguration(footer_key="k1", column_keys={"k2": ["n"]},
                                   double_wrapping=False))
    with pq.ParquetWriter(path, _table().schema, encryption_properties=props) as w:
        w.write_table(_table())


@pytest.fixture
def bad_files(pq_dir):
    data = (pq_dir / "events.parquet").read_bytes()
    (pq_dir / "cut.parquet").write_bytes(data[: len(data) // 2])
    (pq_dir / "fake.parquet").write_text("name,ssn\nElena,123-45-6789\n")
    _encrypted(pq_dir / "sealed.parquet")
    return pq_dir


@pytest.mark.parametrize(("name", "code"), [("cut.parquet", "PARQUET_INVALID"),
                                            ("fake.parquet", "PARQUET_INVALID"),
                                            ("sealed.parquet", "PARQUET_ENCRYPTED")])
def test_a_bad_parquet_file_is_refused_by_name(capsys, bad_files, tmp_path, name,
                                               code) -> None:
    rc, out, err = run(capsys, "redact", "scan", bad_files / name)
    assert rc == 2 and out == ""
    assert err.startswith(f"error[{code}]: ") and name in err and "Traceback" not in err
    rc, _, err = run(capsys, "redact", "apply", bad_files, "--out", tmp_path / "o")
    assert rc == 2 and "error[PARQUET_" in err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_keep_going_scans_the_other_files(capsys, bad_files, tmp_path) -> None:
    rc, out, _ = run(capsys, "redact", "scan", bad_files, "--keep-going", "--json")
    assert rc == 1
    doc = json.loads(out)
    assert doc["files"] == 1 and len(doc["hits"]) == 5
    assert sorted((e["file"].rsplit("/", 1)[-1], e["code"]) for e in doc["errors"]) == [
        ("cut.parquet", "PARQUET_INVALID"), ("fake.parquet", "PARQUET_INVALID"),
        ("sealed.parquet", "PARQUET_ENCRYPTED")]
    rc, out, _ = run(capsys, "redact", "apply", bad_files, "--out", tmp_path / "o",
                     "--keep-going")
    assert rc == 1
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["events.parquet"]
    assert "error[PARQUET_ENCRYPTED]: " in out


def test_a_real_process_exits_2_with_the_code(bad_files) -> None:
    p = subprocess.run([sys.executable, "-m", "workbench", "redact", "scan",
                        str(bad_files / "cut.parquet")], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("error[PARQUET_INVALID]: ") and "cut.parquet" in p.stderr


def test_a_promoted_fixture_scans_clean_and_verifies(capsys, tmp_path) -> None:
    case = EXAMPLES / "rules" / "unapproved-destructive"
    lines = (case / "bad.jsonl").read_text().splitlines()
    first = json.loads(lines[1])
    first["args"][0]["parts"][0]["content"] = (
        "Archive team-a's stale projects. My name is Elena Fischer, SSN 123-45-6789.")
    first["attrs"]["customer_name"] = "Omar Silva"
    src = tmp_path / "bad.jsonl"
    src.write_text("\n".join([lines[0], json.dumps(first), *lines[2:]]) + "\n")
    store, fixtures = tmp_path / "store", tmp_path / "fixtures"
    assert run(capsys, "ingest", src, "--store", store)[0] == 0
    code, _, err = run(capsys, "promote", "rules-unapproved-destructive-bad", "--rules",
                       case / "rules.yaml", "--name", "archive", "--store", store,
                       "--fixtures", fixtures)
    assert code == 0, err
    code, out, _ = run(capsys, "redact", "scan", fixtures)
    assert code == 0, out
    blob = b"".join(p.read_bytes() for p in fixtures.rglob("*") if p.is_file())
    assert b"Elena" not in blob and b"123-45-6789" not in blob and b"Omar" not in blob
    code, out, _ = run(capsys, "verify", "--fixtures", fixtures, "--json")
    assert code == 0 and json.loads(out)["problems"] == []


def test_verify_reports_personal_data_left_in_a_fixture(capsys, tmp_path) -> None:
    case = EXAMPLES / "rules" / "unapproved-destructive"
    store, fixtures = tmp_path / "store", tmp_path / "fixtures"
    assert run(capsys, "ingest", case / "bad.jsonl", "--store", store)[0] == 0
    assert run(capsys, "promote", "rules-unapproved-destructive-bad", "--rules",
               case / "rules.yaml", "--name", "archive", "--store", store,
               "--fixtures", fixtures)[0] == 0
    rules = fixtures / "archive" / "v1" / "rules.yaml"  # a listed file: a stray one is
    text = rules.read_text()                             # UNLISTED_FILE, and not read
    rules.write_text(text + "# contact: Elena Fischer\n")
    line = text.count("\n") + 1
    code, out, _ = run(capsys, "verify", "--fixtures", fixtures, "--json")
    assert code == 1
    problems = json.loads(out)["problems"]
    assert [(p["code"], p["message"]) for p in problems if p["code"] == "UNREDACTED"] == [
        ("UNREDACTED", f"rules.yaml: line {line}: person-name left unredacted (promote "
                       "again from a redacted trace)")]
