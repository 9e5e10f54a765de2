"""Real OpenAPI documents kept under ``tests/corpus/`` (OpenAI's, Twilio's, Box's, the
Swagger petstore and its 3.1 variant, Redocly's museum, the OpenAPI Initiative's examples; each folder's
SOURCE.md says where from), each pinned to what ``contract import``, ``lint`` and
``diff`` give.

Per document: the operations imported, the refused ones by code, the warnings by
kind and the lint problems over the four providers; per pair of versions of one
document: the changes ``contract diff`` finds from the older to the newer. Each figure
was reviewed against the document (docs/contracts.md "Real documents" says what each
shows). ``python tests/corpus/test_openapi_corpus.py`` prints what they give today, in
the form of ``PINS``.

These folders live in the repository: the test never skips.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from workbench.contracts import diff_tools, import_contracts, lint

HERE = Path(__file__).resolve().parent

#: folder → file → {operations, refused (code → count), warnings (kind → count), lint}
PINS: dict[str, dict[str, dict[str, Any]]] = {
    "openai-openapi": {  # 3.1.0, ~3 MB; 3.0 constructs, $recursiveRef, a required twice
        "openapi-d089641.yaml.gz": {
            "operations": 281, "refused": {}, "lint": 24917,
            "warnings": {"duplicate-required": 1, "oas30-example": 289,
                         "oas30-exclusive-bound": 7, "oas30-nullable": 98,
                         "recursive-ref": 2}},
        "openapi-f85dbe2.yaml.gz": {
            "operations": 288, "refused": {}, "lint": 25301,
            "warnings": {"duplicate-required": 1, "oas30-example": 292,
                         "oas30-exclusive-bound": 7, "oas30-nullable": 98,
                         "recursive-ref": 2}},
    },
    "openapi-box": {  # 3.0.2, ~1.7 MB; 19 operationIds with a `#` in them
        "openapi-f5fd7326.json.gz": {"operations": 296, "refused": {}, "lint": 11312,
                                     "warnings": {"operation-id-renamed": 19}},
        "openapi-c9a878a9.json.gz": {"operations": 296, "refused": {}, "lint": 11357,
                                     "warnings": {"operation-id-renamed": 19}},
    },
    "openapi-twilio-api": {  # 3.0.1, ~1.8 MB
        "twilio_api_v2010-a394867.json.gz": {"operations": 197, "refused": {},
                                             "lint": 6159, "warnings": {}},
        "twilio_api_v2010-d50069b.json.gz": {"operations": 197, "refused": {},
                                             "lint": 6175, "warnings": {}},
    },
    "openapi-twilio-accounts": {  # 3.0.1, small
        "twilio_accounts_v1-9524115.json": {"operations": 18, "refused": {}, "lint": 160,
                                            "warnings": {}},
        "twilio_accounts_v1-55a17be.json": {"operations": 20, "refused": {}, "lint": 156,
                                            "warnings": {}},
    },
    "openapi-petstore": {  # 3.0.2 then 3.0.4
        "openapi-8644aa6.yaml": {"operations": 19, "refused": {}, "lint": 204,
                                 "warnings": {}},
        "openapi-f1ed336.yaml": {"operations": 19, "refused": {}, "lint": 217,
                                 "warnings": {}},
    },
    "openapi-petstore-31": {  # 3.1.0; components referred to by $id and $anchor
        "openapi-5a973d5.yaml": {"operations": 3, "refused": {}, "lint": 138,
                                 "warnings": {"id-ref": 4}},
    },
    "openapi-museum": {  # 3.1.0, small; `example` in its schemas
        "openapi-2c2ede6.yaml": {"operations": 8, "refused": {}, "lint": 120,
                                 "warnings": {"oas30-example": 26}},
        "openapi-2770b2b.yaml": {"operations": 8, "refused": {}, "lint": 123,
                                 "warnings": {"oas30-example": 25}},
    },
    "openapi-oai-examples": {  # 3.0.0 and 3.0.1, the specification's own examples
        "petstore-expanded.yaml": {"operations": 4, "refused": {}, "lint": 26,
                                   "warnings": {"operation-id-renamed": 1}},
        "uspto.yaml": {"operations": 3, "refused": {}, "lint": 16, "warnings": {}},
    },
}
#: folder → (older, newer, changes ``diff_tools`` finds)
DIFFS: dict[str, tuple[str, str, int]] = {
    "openai-openapi": ("openapi-d089641.yaml.gz", "openapi-f85dbe2.yaml.gz", 982),
    "openapi-box": ("openapi-f5fd7326.json.gz", "openapi-c9a878a9.json.gz", 95),
    "openapi-twilio-api": ("twilio_api_v2010-a394867.json.gz",
                           "twilio_api_v2010-d50069b.json.gz", 26),
    "openapi-twilio-accounts": ("twilio_accounts_v1-9524115.json",
                                "twilio_accounts_v1-55a17be.json", 6),
    "openapi-petstore": ("openapi-8644aa6.yaml", "openapi-f1ed336.yaml", 51),
    "openapi-museum": ("openapi-2c2ede6.yaml", "openapi-2770b2b.yaml", 19),
}


@functools.lru_cache(maxsize=4)
def _imported(path: Path) -> Any:
    return import_contracts([path])


def outcome(path: Path) -> tuple[dict[str, Any], Any]:
    """What importing and linting one document gives, in the form of ``PINS``."""
    result = _imported(path)
    return {"operations": len(result.tools),
            "refused": dict(sorted(Counter(r.code for r in result.refused).items())),
            "lint": len(lint(result.tools.values())),
            "warnings": dict(sorted(Counter(w.kind for w in result.warnings).items()))
            }, result.tools


CASES = [(folder, name) for folder, files in PINS.items() for name in files]


@pytest.mark.parametrize(("folder", "name"), CASES, ids=[f"{f}/{n}" for f, n in CASES])
def test_each_document_imports_and_lints_as_pinned(folder, name):
    got, _ = outcome(HERE / folder / name)
    assert got == PINS[folder][name]


@pytest.mark.parametrize("folder", list(DIFFS))
def test_two_versions_diff_as_pinned(folder):
    older, newer, changes = DIFFS[folder]
    old = _imported(HERE / folder / older).tools
    new = _imported(HERE / folder / newer).tools
    assert len(diff_tools(old, new).changes) == changes


def test_every_document_of_the_folders_is_pinned():
    for folder in PINS:
        files = {p.name for p in (HERE / folder).iterdir() if p.name != "SOURCE.md"}
        assert files == set(PINS[folder]), folder


if __name__ == "__main__":  # print what the folders give today, to review before pinning
    for folder in sys.argv[1:] or list(PINS):
        docs = sorted(p for p in (HERE / folder).iterdir() if p.name != "SOURCE.md")
        sets = {}
        for p in docs:
            got, sets[p.name] = outcome(p)
            print(f"{folder}/{p.name}: {got}")
        if folder in DIFFS:
            older, newer, _ = DIFFS[folder]
            print(f"{folder}: diff {older} -> {newer}: "
                  f"{len(diff_tools(sets[older], sets[newer]).changes)} changes")
