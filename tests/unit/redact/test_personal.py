"""Personal data that is not machine-shaped: names, national ids, addresses, birth dates
(docs/redact-detectors.md). Each case states what must go and what must stay."""

from __future__ import annotations

import pytest

from workbench.redact import DETECTORS, Redactor, find, maybe, scan_value

KEY = bytes(range(32))


def _red() -> Redactor:
    return Redactor(KEY)


# (text, the value that must be gone, its detector)
TEXT_HITS = [
    ("person_name=Omar Silva status=ok", "Omar Silva", "person-name"),
    ("Please update my details to Elena Fischer", "Elena Fischer", "person-name"),
    ("Elena Fischer's order shipped", "Elena Fischer", "person-name"),
    ('{"contact": "Elena Fischer", "n": 2}', "Elena Fischer", "person-name"),
    ("customer_name: Zoë Ångström\nplan: pro", "Zoë Ångström", "person-name"),
    ("X-Customer-Name: Siobhán O'Brien", "Siobhán O'Brien", "person-name"),
    ("My name is Jürgen Müller", "Jürgen Müller", "person-name"),
    ("Regards,\nMarta Kowalska", "Marta Kowalska", "person-name"),
    ("Dear Elena,", "Elena", "person-name"),
    ("Меня зовут Иван Петров", "Иван Петров", "person-name"),
    ("Свяжитесь с Анна Смирнова сегодня", "Анна Смирнова", "person-name"),
    ("我叫王伟", "王伟", "person-name"),
    ("اسمي محمد العلي", "محمد العلي", "person-name"),
    ("SSN: 123-45-6789", "123-45-6789", "us-ssn"),
    ("my SSN is 123 45 6789", "123 45 6789", "us-ssn"),
    ("NINO AB123456C on file", "AB123456C", "uk-nino"),
    ("ni: JG 10 37 62 A", "JG 10 37 62 A", "uk-nino"),
    ("DNI 12345678Z", "12345678Z", "es-dni"),
    ("NIE X1234567L", "X1234567L", "es-nie"),
    ("codice fiscale RSSMRA85T10A562S", "RSSMRA85T10A562S", "it-codice-fiscale"),
    ("CPF 123.456.789-09", "123.456.789-09", "br-cpf"),
    ("cpf=12345678909", "12345678909", "br-cpf"),
    ("Aadhaar 2345 6789 0124", "2345 6789 0124", "in-aadhaar"),
    ("passport number: X1234567", "X1234567", "passport"),
    ("I was born on 12 April 1985", "12 April 1985", "birth-date"),
    ("DOB: 1990-04-12", "1990-04-12", "birth-date"),
    ("She lives at 1600 Amphitheatre Parkway, Mountain View, CA 94043.",
     "1600 Amphitheatre Parkway, Mountain View, CA 94043", "postal-address"),
    ("ship to 221B Baker Street, London NW1 6XE", "221B Baker Street, London NW1 6XE",
     "postal-address"),
]

# texts that must come out unchanged
KEPT_TEXTS = [
    "Dear Sir or Madam,", "Hi Team,", "Hello World", "getWeatherForCity Paris",
    "weather in Paris for Jordan", "deploy api-7f9c-xk2p to us-east-1 at 2024-03-01",
    "model: claude-sonnet-4-20250514", "Claude Sonnet 4 answered", "Rose Gold iPhone case",
    "Austin Texas", "open /home/runner/work/src/main.py", "SSN area 666-12-3456 is never issued",
    "order 123-45-0000 shipped", "DNI 12345678A", "CPF 123.456.789-00",
    "Aadhaar 2345 6789 0123", "order X1234567 shipped", "created 2024-04-12",
    "NewYorkTimesReader", "k8s pod checkout-5d8f7b9c6-x2x9z restarted",
    "SKU-0042 Apple Watch Series 9", "Max Tokens 4096", "Dear Customer,",
]


@pytest.mark.parametrize(("text", "value", "detector"), TEXT_HITS)
def test_personal_data_in_text_is_found_and_replaced(text: str, value: str,
                                                    detector: str) -> None:
    assert maybe(text)
    hits = find(text)
    assert any(text[h.start:h.end] == value and h.detector == detector for h in hits), hits
    out = _red().text(text)
    assert value not in out
    assert _red().text(out) == out  # redacting twice changes nothing


@pytest.mark.parametrize("text", KEPT_TEXTS)
def test_look_alikes_in_text_are_kept(text: str) -> None:
    assert _red().text(text) == text


@pytest.mark.parametrize(("doc", "path"), [
    ({"contact": "Elena Fischer"}, "contact"),
    ({"customerName": "Ана Петрова"}, "customerName"),
    ({"full_name": "王伟"}, "full_name"),
    ({"author": "Nguyễn Văn An"}, "author"),
    ({"first_name": "Zoë", "last_name": "Ångström"}, "first_name"),
    ({"name": "Omar Silva"}, "name"),
    ({"recipient": {"stringValue": "Fatima Zahra"}}, "recipient"),
    ({"dateOfBirth": "1990-04-12"}, "dateOfBirth"),
    ({"home_address": "Hauptstraße 5, 10115 Berlin"}, "home_address"),
    ({"passport_number": "K12345678"}, "passport_number"),
    ({"ssn": "123456789"}, "ssn"),
])
def test_values_under_personal_keys_become_tokens(doc: dict[str, object], path: str) -> None:
    out = _red().value(doc)
    assert out[path] != doc[path]
    assert scan_value(doc) and not scan_value(out)


def test_a_field_value_pair_puts_the_value_under_the_field() -> None:
    doc = {"field": "us_ssn", "value": "123-45-6789"}
    out = _red().value(doc)
    assert out["field"] == "us_ssn" and out["value"].startswith("«national-id:")


@pytest.mark.parametrize("doc", [
    {"name": "get_weather"}, {"name": "Claude Code"}, {"name": "checkout-5d8f7b9c6-x2x9z"},
    {"name": "Jordan"}, {"city": "Paris"}, {"author": "octocat"},
    {"ip_address": "::1"}, {"server_address": "db.internal:5432"},
    {"created_at": "1990-04-12"}, {"file_name": "Elena Fischer.pdf"},
    {"tool_name": "searchFlights"}, {"address": "0x52908400098527886E0F7030069857D2E4169EE7"},
    {"ssn": "666-12-3456"}, {"dob": "unknown"}, {"name": "Visual Studio Code"},
])
def test_machine_values_under_the_same_keys_are_kept(doc: dict[str, object]) -> None:
    assert _red().value(doc) is doc


def test_tokens_are_consistent_across_events() -> None:
    red = _red()
    a = red.value({"contact": "Elena Fischer"})["contact"]
    b = red.text("Please call Elena Fischer")
    assert a.startswith("«person:") and b.endswith(a)


def test_every_new_detector_is_in_the_catalogue() -> None:
    for det in ("person-name", "us-ssn", "uk-nino", "es-dni", "es-nie",
                "it-codice-fiscale", "br-cpf", "in-aadhaar", "passport", "postal-address",
                "birth-date"):
        assert det in DETECTORS


# -- the gate's cost: prose with cue words, the memo ------------------------------------

def test_a_cue_word_before_lower_case_words_opens_no_gate() -> None:
    text = "run customer billing request failed, contact support then retry the customer job"
    assert not maybe(text)
    assert find(text) == []


def test_a_name_in_lower_case_after_a_cue_is_still_found() -> None:
    text = "Regards, al-Amin"
    assert maybe(text)
    assert [(h.category, text[h.start:h.end]) for h in find(text)] == [("person", "al-Amin")]


def test_the_memo_of_the_personal_finders_is_bounded() -> None:
    from workbench.redact import _personal

    memo = _personal._MEMO
    for i in range(memo.MAX_ENTRIES + 10):
        _personal.maybe_personal(f"order {i} for Elena Fischer")
        assert len(memo.gate) + len(memo.found) <= memo.MAX_ENTRIES
    assert memo.chars <= memo.MAX_CHARS
    long_text = "Elena Fischer " * (memo.MAX_STRING // 14 + 1)
    assert _personal.find_personal(long_text)  # found, but not remembered
    assert long_text not in memo.found and long_text not in memo.gate
    many = "x" * memo.MAX_STRING
    for _ in range(memo.MAX_CHARS // memo.MAX_STRING + 2):
        many = many[1:] + "y"
        _personal.maybe_personal(many)
        assert memo.chars <= memo.MAX_CHARS
