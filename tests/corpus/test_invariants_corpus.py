"""Contract invariants on real recordings: the pact-python books interaction held to an
OpenAPI document written here from what the pact describes (clean), and to variants
that break one promise each (found as that invariant); mitmproxy's HAR files, whose
paths no document here describes, are counted as undocumented and never judged."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, corpus_params
from workbench.ingest import ingest
from workbench.invariants import check_invariants, parse_spec
from workbench.store import Store

BOOK_IN = {"type": "object", "additionalProperties": False,
           "required": ["title", "author", "isbn", "publicationDate"],
           "properties": {"title": {"type": "string"}, "author": {"type": "string"},
                          "isbn": {"type": "string", "pattern": "^[0-9X]{10,13}$"},
                          "description": {"type": "string"},
                          "publicationDate": {"type": "string", "format": "date-time"}}}
BOOK = {"type": "object", "required": ["@id", "title", "author", "publicationDate"],
        "properties": {"@id": {"type": "string", "pattern": "^/api/books/"},
                       "@type": {"type": "string", "enum": ["Book"]},
                       "@context": {"type": "string"}, "title": {"type": "string"},
                       "author": {"type": "string"}, "description": {"type": "string"},
                       "publicationDate": {"type": "string", "format": "date-time"},
                       "reviews": {"type": "array", "items": {"type": "object"}}}}
DOC: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "books", "version": "1"},
    "components": {"schemas": {"Book": BOOK, "BookIn": BOOK_IN}},
    "paths": {"/api/books": {"post": {
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/BookIn"}}}},
        "responses": {"200": {"description": "the book", "content": {
            "application/ld+json": {"schema": {"$ref": "#/components/schemas/Book"}}}},
            "422": {"description": "invalid"}}}}}}


def _variant(how: str) -> dict[str, Any]:
    doc = copy.deepcopy(DOC)
    post = doc["paths"]["/api/books"]["post"]
    if how == "created-is-201":
        post["responses"]["201"] = post["responses"].pop("200")
    elif how == "isbn-renamed":
        doc["components"]["schemas"]["Book"]["required"].append("isbn")
    elif how == "closed-input-without-description":
        del doc["components"]["schemas"]["BookIn"]["properties"]["description"]
    elif how == "secured":
        doc["security"] = [{"key": []}]
        doc["components"]["securitySchemes"] = {"key": {"type": "apiKey", "in": "header",
                                                        "name": "X-Key"}}
    return doc


@pytest.fixture(scope="module")
def pact_store(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Store:
    store = Store(tmp_path_factory.mktemp("pact") / "store")
    ingest([corpus / "pact-python" / "v3-http.json"], store)
    return store


@pytest.mark.parametrize(("how", "expected"), [
    ("as-described", set()),
    ("created-is-201", {"status_declared"}),
    ("isbn-renamed", {"shape"}),
    ("closed-input-without-description", {"clean_refusal"}),
    # no request of the pact carries a credential: a recorder's doing, not judged
    ("secured", set()),
])
def test_the_books_pact_judged_against_its_document(pact_store, how, expected):
    doc = DOC if how == "as-described" else _variant(how)
    result = check_invariants(pact_store, parse_spec(doc, "books.yaml"), record=False)
    assert result.judged == 1 and result.undocumented == {}
    assert {f.rule for f in result.findings} == expected
    assert result.not_judged == ({("refuses_unknown_caller", "credential stripped by the "
                                   "recorder: no request of the trace carries x-key"): 1}
                                 if how == "secured" else {})
    for f in result.findings:
        assert "Margaret" not in f.message and "0099740915" not in str(f.to_dict())


HARS = corpus_params(sorted(p.name for p in (CORPUS / "mitmproxy-har").glob("*.har")))


@pytest.mark.parametrize("name", HARS)
def test_undocumented_recordings_are_counted_not_judged(corpus, tmp_path, name):
    store = Store(tmp_path / "store")
    done = ingest([corpus / "mitmproxy-har" / name], store)
    result = check_invariants(store, parse_spec(DOC, "books.yaml"), record=False)
    assert result.findings == [] and result.judged == 0
    assert sum(result.undocumented.values()) == result.exchanges
    assert result.exchanges == sum(t.events for t in done.traces)
