"""Personal data that is not machine-shaped, for ``bench/redact.py``: a labelled corpus
made here with a seed (``_redactpeople.py`` scores it).

Positives (``kind`` positive; each must be gone after redaction):

- person names of several cultures and scripts — Latin with diacritics, English,
  West African, Cyrillic, CJK (Chinese, Japanese, Korean), Arabic — under name keys in
  JSON (``customer_name``, ``contact``, ``recipient``, ``author``, ``fullName``,
  ``first_name``/``last_name``, ``name``), OTLP attributes, ``{"field", "value"}``
  pairs, JSON inside JSON strings, ``key=value`` log lines, YAML, HTTP headers, and free
  text with a cue (``my name is``, ``Dear``, ``Regards,``, ``меня зовут``, ``我叫``,
  ``اسمي``) or without one (``Please update my details to …``). The name lists are
  written here (not taken from the gazetteer our detector uses), and include names
  the gazetteer lacks;
- national ids made here with their check digits: US SSN, UK NINO, Spanish DNI and
  NIE, Italian codice fiscale, Brazilian CPF, Aadhaar (Verhoeff), passports (context
  only), in text with context words and under their keys;
- postal addresses and birth dates under their keys and after context words.

Negatives (``kind`` negative; each must come out unchanged): the same id shapes with a
wrong check digit or an unissued range, product names, ``camelCase`` identifiers, pod
and model names, file paths, city names as tool arguments, ``Dear Sir`` templates, ISO
dates that are not birth dates, machine addresses under address-like keys.

Each record: ``{id, kind, type, category, container: text|json, context, payload,
parts}``; ``parts`` are the values that must be gone (none for a negative).
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from random import Random
from typing import Any

__all__ = ["IDS", "NAMES", "NEGATIVE_KINDS", "generate"]

# -- names (written here) ---------------------------------------------------------------

NAMES: dict[str, list[tuple[str, str]]] = {
    "latin-diacritics": [("Zoë", "Ångström"), ("José", "Hernández"), ("François", "Lefèvre"),
                         ("Søren", "Kjærgaard"), ("Łukasz", "Wiśniewski"),
                         ("Małgorzata", "Kowalczyk"), ("Jürgen", "Müller"),
                         ("João", "Gonçalves"), ("Chloé", "Dubois"), ("İlker", "Öztürk"),
                         ("Núria", "Puig"), ("Siobhán", "O'Brien"), ("Björn", "Sigurðsson"),
                         ("Ana", "Lima"), ("Elena", "Fischer"), ("Omar", "Silva")],
    "english-african": [("Sarah", "Johnson"), ("Michael", "Brown"), ("Priya", "Patel"),
                        ("Kwame", "Mensah"), ("Chinedu", "Okafor"), ("Aisha", "Bello"),
                        ("Emily", "Carter"), ("David", "Thompson"), ("Grace", "Adeyemi"),
                        ("Thomas", "Wright")],
    "cyrillic": [("Иван", "Петров"), ("Анна", "Смирнова"), ("Дмитрий", "Соколов"),
                 ("Ольга", "Кузнецова"), ("Олександр", "Шевченко"), ("Мария", "Иванова"),
                 ("Сергей", "Волков"), ("Наталья", "Морозова"), ("Алексей", "Лебедев")],
    "cjk": [("王", "伟"), ("李", "娜"), ("张", "敏"), ("刘", "洋"), ("陈", "静"), ("杨", "帆"),
            ("佐藤", "健"), ("鈴木", "花子"), ("김", "민준"), ("이", "서연"), ("黄", "磊")],
    "arabic": [("محمد", "العلي"), ("فاطمة", "الزهراء"), ("أحمد", "حسن"), ("خالد", "منصور"),
               ("ليلى", "عبدالله"), ("يوسف", "إبراهيم"), ("مريم", "سعيد"), ("عمر", "الفاروق")],
}


def _full(script: str, given: str, family: str) -> str:
    if script == "cjk":
        return given + family  # family name first, no space: 王伟, 佐藤健
    return f"{given} {family}"


_JSON_KEYS = ["customer_name", "contact", "recipient", "author", "fullName", "person_name",
              "patientName", "CardHolder"]
_TEXT_CUES = {
    "cjk": ["我叫{n}。", "联系人：{n}", "My name is {n}."],
    "arabic": ["اسمي {n}", "My name is {n}.", "Regards,\n{n}"],
    "cyrillic": ["Меня зовут {n}.", "Please update my details to {n}.", "Regards,\n{n}"],
    "*": ["Please update my details to {n}.", "My name is {n} and I need help.",
          "Regards,\n{n}", "Dear {n}, your order shipped.", "Book a table for {n} at 7pm",
          "Ticket assigned to {n} yesterday"],
}


def _name_record(rng: Random, i: int, script: str) -> dict[str, Any]:
    given, family = rng.choice(NAMES[script])
    n = _full(script, given, family)
    ctx = ["json-key", "json-name", "first-last", "otlp-attr", "field-value", "json-in-json",
           "kv-log", "yaml", "header", "text"][i % 10]
    if ctx == "json-key":
        payload: Any = {rng.choice(_JSON_KEYS): n, "plan": "pro", "seats": 3}
    elif ctx == "json-name":
        payload = {"type": "customer", "name": n, "id": f"cus_{rng.randrange(10**6)}"}
    elif ctx == "first-last":
        payload = {"first_name": given, "last_name": family, "tier": "gold"}
        return {"container": "json", "context": ctx, "payload": payload,
                "parts": [given, family]}
    elif ctx == "otlp-attr":
        payload = {"attributes": [{"key": "user.full_name", "value": {"stringValue": n}},
                                  {"key": "http.method", "value": {"stringValue": "GET"}}]}
    elif ctx == "field-value":
        payload = {"updates": [{"field": "person_name", "value": n},
                               {"field": "status", "value": "active"}]}
    elif ctx == "json-in-json":
        payload = {"role": "tool", "content": json.dumps({"contact": n, "ok": True},
                                                         ensure_ascii=False)}
    elif ctx == "kv-log":
        payload = rng.choice([f"2024-05-01T10:00:00Z INFO profile person_name={n} status=ok",
                              f'level=info msg="updated" customer_name="{n}" plan=pro'])
    elif ctx == "yaml":
        payload = f"customer:\n  full_name: {n}\n  plan: pro\n"
    elif ctx == "header":
        payload = f"GET /v1/orders HTTP/1.1\nHost: api.example.com\nX-Customer-Name: {n}\n"
    else:
        payload = rng.choice(_TEXT_CUES.get(script, _TEXT_CUES["*"])).format(n=n)
    return {"container": "json" if not isinstance(payload, str) else "text",
            "context": ctx, "payload": payload, "parts": [n]}


# -- national ids (check digits computed here) -----------------------------------------

_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _ssn(rng: Random, valid: bool) -> str:
    area = rng.choice([rng.randint(1, 665), rng.randint(667, 899)]) if valid else rng.choice(
        [0, 666, rng.randint(900, 999)])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def _nino(rng: Random, valid: bool) -> str:
    first = "ABCEGHJKLMNOPRSTWXYZ" if valid else "DFIQUV"
    second = "ABCEGHJKLMNPRSTWXYZ"
    while True:
        prefix = rng.choice(first) + rng.choice(second)
        if prefix not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
            break
    digits = "".join(rng.choice(string.digits) for _ in range(6))
    return f"{prefix} {digits[:2]} {digits[2:4]} {digits[4:]} {rng.choice('ABCD')}"


def _dni(rng: Random, valid: bool) -> str:
    n = rng.randrange(10**7, 10**8)
    letter = _DNI_LETTERS[n % 23]
    if not valid:
        letter = _DNI_LETTERS[(n + rng.randint(1, 22)) % 23]
    return f"{n:08d}{letter}"


def _nie(rng: Random, valid: bool) -> str:
    head = rng.choice("XYZ")
    n = rng.randrange(10**6, 10**7)
    value = int(str("XYZ".index(head)) + f"{n:07d}")
    letter = _DNI_LETTERS[(value + (0 if valid else rng.randint(1, 22))) % 23]
    return f"{head}{n:07d}{letter}"


_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4,
                    18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23], strict=True))


def _cf(rng: Random, valid: bool) -> str:
    letters = "".join(rng.choice("BCDFGHLMNPRSTVZ") for _ in range(6))
    body = (letters + f"{rng.randint(40, 99):02d}" + rng.choice("ABCDEHLMPRST")
            + f"{rng.randint(1, 28) + rng.choice([0, 40]):02d}" + rng.choice("ADFGHLMZ")
            + f"{rng.randint(1, 999):03d}")
    total = 0
    for i, ch in enumerate(body):
        total += _CF_ODD[ch] if i % 2 == 0 else (int(ch) if ch.isdigit() else ord(ch) - 65)
    check = chr(65 + (total + (0 if valid else rng.randint(1, 25))) % 26)
    return body + check


def _cpf(rng: Random, valid: bool) -> str:
    d = [rng.randint(0, 9) for _ in range(9)]
    for n in (10, 11):
        s = sum(x * w for x, w in zip(d, range(n, 1, -1), strict=False))
        d.append((s * 10 % 11) % 10)
    if not valid:
        d[10] = (d[10] + rng.randint(1, 9)) % 10
    s = "".join(map(str, d))
    return f"{s[:3]}.{s[3:6]}.{s[6:9]}-{s[9:]}"


_V_D = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6], [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_V_P = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2], [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
_V_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def _aadhaar(rng: Random, valid: bool) -> str:
    body = str(rng.randint(2, 9)) + "".join(rng.choice(string.digits) for _ in range(10))
    c = 0
    for i, ch in enumerate(reversed(body)):
        c = _V_D[c][_V_P[(i + 1) % 8][int(ch)]]
    check = _V_INV[c] if valid else (_V_INV[c] + rng.randint(1, 9)) % 10
    s = body + str(check)
    return f"{s[:4]} {s[4:8]} {s[8:]}"


def _passport(rng: Random, valid: bool) -> str:
    return rng.choice(string.ascii_uppercase) + "".join(
        rng.choice(string.digits) for _ in range(rng.choice([7, 8])))


IDS: dict[str, tuple[Callable[[Random, bool], str], list[str], list[str]]] = {
    # kind: (generator, context phrases, keys)
    "us-ssn": (_ssn, ["SSN: {v}", "my social security number is {v}", "ssn={v}"],
               ["ssn", "us_ssn", "socialSecurityNumber"]),
    "uk-nino": (_nino, ["National Insurance number {v}", "NINO: {v}", "ni: {v}"],
                ["nino", "national_insurance_number"]),
    "es-dni": (_dni, ["DNI {v}", "mi DNI es {v}", "NIF: {v}"], ["dni", "nif"]),
    "es-nie": (_nie, ["NIE {v}", "tarjeta NIE: {v}", "NIE={v}"], ["nie"]),
    "it-codice-fiscale": (_cf, ["codice fiscale {v}", "C.F. {v}", "CF: {v}"],
                          ["codice_fiscale", "codiceFiscale"]),
    "br-cpf": (_cpf, ["CPF {v}", "meu CPF é {v}", "cpf: {v}"], ["cpf"]),
    "in-aadhaar": (_aadhaar, ["Aadhaar {v}", "my aadhaar number is {v}", "UIDAI no {v}"],
                   ["aadhaar", "aadhaar_number"]),
    "passport": (_passport, ["passport number: {v}", "Passport No. {v}", "pasaporte {v}"],
                 ["passport_number", "passportNo"]),
}


def _id_record(rng: Random, i: int, kind: str, valid: bool) -> dict[str, Any]:
    gen, phrases, keys = IDS[kind]
    v = gen(rng, valid)
    if i % 3 == 2:
        payload: Any = {"customer": {"id": f"c-{rng.randrange(10**5)}", rng.choice(keys): v}}
        ctx = "json-key"
    elif i % 3 == 1:
        payload = {"role": "user", "content": "Please update: " + rng.choice(phrases)
                   .format(v=v)}
        ctx = "json-text"
    else:
        payload = f"2024-05-01 INFO kyc check {rng.choice(phrases).format(v=v)} result=pass"
        ctx = "log"
    return {"container": "text" if isinstance(payload, str) else "json", "context": ctx,
            "payload": payload, "parts": [v]}


# -- addresses and birth dates ----------------------------------------------------------

_STREETS = [("221B", "Baker Street", "London NW1 6XE"),
            ("1600", "Amphitheatre Parkway", "Mountain View, CA 94043"),
            ("742", "Evergreen Terrace", "Springfield, OR 97403"),
            ("15", "Hauptstraße", "10115 Berlin"), ("12", "Rue de Rivoli", "75001 Paris"),
            ("8", "Calle de Alcalá", "28014 Madrid"), ("3", "Via Roma", "00184 Roma"),
            ("42", "Elm Road", "Leeds LS1 4AP"), ("1", "Infinite Loop", "Cupertino, CA 95014"),
            ("27", "улица Арбат", "Москва 119002")]


def _address(rng: Random) -> str:
    num, street, city = rng.choice(_STREETS)
    if street[0].islower() or street.startswith(("Hauptstraße", "Calle", "Via", "Rue")):
        return f"{street} {num}, {city}" if not street.startswith("Rue") else (
            f"{num} {street}, {city}")
    return f"{num} {street}, {city}"


def _address_record(rng: Random, i: int) -> dict[str, Any]:
    a = _address(rng)
    ctx = ["json-key", "text-context", "log", "yaml"][i % 4]
    if ctx == "json-key":
        key = rng.choice(["home_address", "shipping_address", "address", "street_address",
                          "mailingAddress", "address_line1"])
        payload: Any = {"order": 17, key: a}
    elif ctx == "text-context":
        payload = {"role": "user", "content": rng.choice(
            ["Please ship to {a}.", "I live at {a}.", "My new address is {a}.",
             "Deliver to {a} tomorrow"]).format(a=a)}
    elif ctx == "log":
        payload = f"INFO shipping label created address: {a}\n"
    else:
        payload = f"customer:\n  billing_address: {a}\n  plan: pro\n"
    return {"container": "text" if isinstance(payload, str) else "json", "context": ctx,
            "payload": payload, "parts": [a]}


_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]


def _date(rng: Random) -> str:
    y, m, d = rng.randint(1940, 2006), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice([f"{y}-{m:02d}-{d:02d}", f"{d:02d}/{m:02d}/{y}", f"{d:02d}.{m:02d}.{y}",
                       f"{_MONTHS[m - 1]} {d}, {y}", f"{d} {_MONTHS[m - 1]} {y}"])


def _birth_record(rng: Random, i: int) -> dict[str, Any]:
    v = _date(rng)
    ctx = ["json-key", "text-context", "log"][i % 3]
    if ctx == "json-key":
        payload: Any = {"patient": {"id": "p-17", rng.choice(
            ["dob", "date_of_birth", "birthDate", "birthday"]): v}}
    elif ctx == "text-context":
        payload = {"role": "user", "content": rng.choice(
            ["I was born on {v}.", "My date of birth is {v}", "DOB: {v}",
             "geboren am {v}", "Дата рождения: {v}"]).format(v=v)}
    else:
        payload = f"INFO verify identity dob={v} result=match"
    return {"container": "text" if isinstance(payload, str) else "json", "context": ctx,
            "payload": payload, "parts": [v]}


# -- look-alikes that must stay ----------------------------------------------------------

_PRODUCTS = ["Apple Watch Series 9", "Rose Gold iPhone case", "Jordan Retro 4", "Tesla Model Y",
             "Dyson V15 Detect", "Visual Studio Code", "Claude Code", "Google Chrome",
             "Amazon Echo Dot", "Kindle Paperwhite", "Nike Air Max", "Ford Mustang"]
_CAMEL = ["getCustomerName", "updateContactDetails", "ElenaFischerService",
          "JohnDoeController", "fetchUserProfile", "setRecipientName", "parseFullName",
          "AuthorListView", "sendToPatient", "MariaDbConnector"]
_MACHINE = ["checkout-5d8f7b9c6-x2x9z", "claude-sonnet-4-20250514", "gpt-4.1-mini",
            "/home/elena/projects/app/main.py", "C:\\Users\\omar\\Documents\\report.docx",
            "api-gateway-7f9c8d-k2p4q", "llama-3.1-70b-instruct", "s3://bucket/maria/2024/"]
_CITIES = ["Paris", "Austin", "Florence", "Sydney", "Charlotte", "Jackson", "Victoria",
           "Santiago", "Georgetown", "Lincoln", "Madison", "Chelsea", "Adelaide", "Orlando"]
_TEMPLATES = ["Dear Sir or Madam,\nPlease find the invoice attached.", "Dear Customer,",
              "Dear Valued Customer, your plan renews soon.", "Hi Team,\nthe build is green.",
              "Hello World", "Dear Hiring Manager,", "Dear Sir,\nthank you for your order.",
              "To whom it may concern,", "Hi there, how can I help?", "Dear Colleagues,"]


def _negative(rng: Random, i: int, kind: str) -> dict[str, Any]:
    if kind == "product-name":
        p = rng.choice(_PRODUCTS)
        payload: Any = rng.choice([{"name": p, "sku": "SKU-0042", "price": 399},
                                   {"product": p}, f"Added {p} to the cart"])
    elif kind == "camel-case":
        c = rng.choice(_CAMEL)
        payload = rng.choice([{"name": c, "type": "function"}, f"called {c}() twice",
                              {"tool_name": c}])
    elif kind == "machine-name":
        m = rng.choice(_MACHINE)
        payload = rng.choice([{"name": m}, {"model": m}, f"pod {m} restarted", {"path": m}])
    elif kind == "city-argument":
        c = rng.choice(_CITIES)
        payload = rng.choice([{"name": "get_weather", "arguments": {"city": c}},
                              {"origin": c, "destination": rng.choice(_CITIES)},
                              f'get_weather(city="{c}")', f"What is the weather in {c}?",
                              {"location": c, "units": "metric"}])
    elif kind == "greeting-template":
        payload = rng.choice(_TEMPLATES)
    elif kind == "iso-date":
        y, m, d = rng.randint(1940, 2025), rng.randint(1, 12), rng.randint(1, 28)
        v = f"{y}-{m:02d}-{d:02d}"
        payload = rng.choice([{"created_at": v}, {"date": v, "amount": 12},
                              f"deployed on {v}", f"released {d} {_MONTHS[m - 1]} {y}",
                              {"start_date": v, "end_date": v}])
    elif kind == "machine-address":
        payload = rng.choice([{"server_address": "db.internal:5432"},
                              {"address": "0x52908400098527886E0F7030069857D2E4169EE7"},
                              {"listen_address": "0.0.0.0:8080"},
                              {"email_address_verified": True, "address_type": "billing"},
                              "bind address: 0.0.0.0:9090"])
    elif kind == "passport-shape":
        v = _passport(rng, True)
        payload = rng.choice([f"order {v} shipped", {"order_id": v}, f"ticket {v} closed"])
    else:  # an id kind with a wrong check digit or an unissued range
        return {**_id_record(rng, i, kind.removesuffix("-invalid"), False), "parts": []}
    return {"container": "text" if isinstance(payload, str) else "json",
            "context": "-", "payload": payload, "parts": []}


NEGATIVE_KINDS = ["product-name", "camel-case", "machine-name", "city-argument",
                  "greeting-template", "iso-date", "machine-address", "passport-shape",
                  *(f"{k}-invalid" for k in IDS if k != "passport")]


def generate(seed: int, per_type: int) -> list[dict[str, Any]]:
    """The corpus: ``per_type`` records per positive and negative kind."""
    out: list[dict[str, Any]] = []

    def add(kind: str, typ: str, category: str, make: Callable[[Random, int], dict]) -> None:
        rng = Random(f"{seed}:people:{typ}")
        for i in range(per_type):
            rec = make(rng, i)
            out.append({"id": f"{typ}-{i:03d}", "kind": kind, "type": typ,
                        "category": category, **rec})
    for script in NAMES:
        add("positive", f"name-{script}", "person",
            lambda r, i, s=script: _name_record(r, i, s))
    for k in IDS:
        add("positive", k, "national-id", lambda r, i, k=k: _id_record(r, i, k, True))
    add("positive", "postal-address", "address", _address_record)
    add("positive", "birth-date", "birth-date", _birth_record)
    for k in NEGATIVE_KINDS:
        add("negative", k, "-", lambda r, i, k=k: _negative(r, i, k))
    return out


