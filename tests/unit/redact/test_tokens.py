"""Keyed tokens: stable per key, different per key and per value, category in the token."""

import hashlib
import hmac
import re

import pytest

from workbench.redact import TOKEN_RE, Redactor
from workbench.redact._tokens import HEX_DIGITS, make_token, token_hex

KEY = bytes(range(32))
OTHER = bytes(range(1, 33))


def test_the_hex_is_the_hmac_of_category_nul_value():
    want = hmac.new(KEY, b"email\0bob@example.com", hashlib.sha256).hexdigest()[:HEX_DIGITS]
    assert token_hex(KEY, "email", "bob@example.com") == want
    assert Redactor(KEY).token("email", "bob@example.com") == f"«email:{want}»"


def test_secret_tokens_name_their_detector():
    t = Redactor(KEY).token("secret", "hunter2", "url-password")
    assert re.fullmatch(r"«secret:url-password:[0-9a-f]{12}»", t)


@pytest.mark.parametrize("category", ["email", "phone", "card", "iban", "ip", "id"])
def test_pii_tokens_carry_their_category(category):
    t = Redactor(KEY).token(category, "x")
    assert t.startswith(f"«{category}:") and TOKEN_RE.fullmatch(t)


def test_stable_per_key_across_redactors():
    a, b = Redactor(KEY), Redactor(KEY)
    assert a.token("secret", "v", "jwt") == b.token("secret", "v", "jwt")
    assert a.token("secret", "v", "jwt") == a.token("secret", "v", "jwt")


def test_different_per_key():
    assert Redactor(KEY).token("email", "a@b.io") != Redactor(OTHER).token("email", "a@b.io")


def test_different_per_value_and_per_category():
    r = Redactor(KEY)
    assert r.token("email", "a@b.io") != r.token("email", "c@b.io")
    # the category is part of the HMAC input, not only of the text
    assert r.token("email", "x")[-13:] != r.token("phone", "x")[-13:]


def test_one_secret_found_by_two_detectors_keeps_its_digest():
    r = Redactor(KEY)
    assert r.token("secret", "s3cr3t", "bearer")[-13:] == r.token("secret", "s3cr3t", "jwt")[-13:]


def test_pseudonyms_are_ids_and_stay_put():
    r = Redactor(KEY)
    p = r.pseudonym("proj-17")
    assert p.startswith("«id:") and TOKEN_RE.fullmatch(p)
    assert r.pseudonym(p) == p
    assert r.pseudonym(17) == r.pseudonym("17")
    assert r.pseudonym("proj-17") != r.pseudonym("proj-18")
    assert r.pseudonym({"a": 1}) == r.pseudonym({"a": 1})


def test_token_re_matches_what_we_write_only():
    r = Redactor(KEY)
    for t in (r.token("secret", "v", "github-pat"), r.token("ip", "10.0.0.1"), r.pseudonym(1)):
        assert TOKEN_RE.fullmatch(t)
    for not_token in ("«str:12»", "«int»", "«secret:x»", "«email:1c9e»", "«Email:0123456789ab»",
                      "«secret:Bad_Id:0123456789ab»", "email:0123456789ab"):
        assert not TOKEN_RE.fullmatch(not_token), not_token


def test_bad_keys_and_categories_are_refused():
    with pytest.raises(ValueError):
        Redactor(b"short")
    with pytest.raises(ValueError):
        Redactor("a string key")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        make_token(KEY, "password", "x")
    with pytest.raises(ValueError):
        Redactor(KEY).token("password", "x")


# -- the store's key ---------------------------------------------------------------------------

def test_the_store_key_is_made_once_private_and_kept(tmp_path):
    from workbench.store import Store
    s = Store(tmp_path / "s")
    key = s.redaction_key()
    f = tmp_path / "s" / "redaction.key"
    assert len(key) == 32 and f.read_text().strip() == key.hex()
    assert f.stat().st_mode & 0o777 == 0o600
    assert Store(tmp_path / "s").redaction_key() == key
    assert Store(tmp_path / "other").redaction_key() != key
    assert sorted(p.name for p in f.parent.iterdir()) == [".lock", "redaction.key", "store.json"]


def test_processes_racing_on_a_new_store_get_one_key(tmp_path):
    import subprocess
    import sys
    code = ("import sys; from workbench.store import Store; "
            "print(Store(sys.argv[1]).redaction_key().hex())")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "s")],
                              stdout=subprocess.PIPE, text=True) for _ in range(6)]
    keys = {p.communicate()[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert keys == {(tmp_path / "s" / "redaction.key").read_text().strip()}
    assert not [p for p in (tmp_path / "s").iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("content", ["", "zz" * 32, "ab" * 16, "ab" * 33])
def test_a_damaged_key_is_store_corrupt(tmp_path, content):
    from workbench.model import StoreCorruptError
    from workbench.store import Store
    s = Store(tmp_path / "s")
    s.redaction_key()
    (tmp_path / "s" / "redaction.key").write_text(content)
    with pytest.raises(StoreCorruptError) as e:
        s.redaction_key()
    assert "redaction.key" in e.value.message and e.value.hint


def test_a_key_that_cannot_be_written_is_a_clear_error(tmp_path, monkeypatch):
    import errno
    import os

    from workbench.model import StoreError
    from workbench.store import Store

    def no_links(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    with pytest.raises(StoreError) as e:
        Store(tmp_path / "s").redaction_key()
    assert e.value.code == "STORE_UNWRITABLE" and e.value.hint
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [".lock", "store.json"]
