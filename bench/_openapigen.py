"""A deterministic (seeded) OpenAPI 3.1 document of N operations, for bench/contracts.py.

Resources with CRUD-like operations over shared component schemas: each resource has an
object schema whose properties reference other components (a money amount, an address,
a page of items, a recursive ``Node`` tree), path, query and header parameters (some
through ``#/components/parameters``), an ``Idempotency-Key`` header on writes, JSON
request bodies, 2xx and error responses (some through ``#/components/responses``),
operation-level security on some operations, and a few without ``operationId``.

    python bench/_openapigen.py OUT.json --operations 2000 [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

_METHODS = ("get", "post", "put", "patch", "delete")
_TYPES = ({"type": "string"}, {"type": "integer", "minimum": 0}, {"type": "number"},
          {"type": "boolean"}, {"type": "string", "format": "date-time"},
          {"type": "string", "enum": ["open", "closed", "archived"]},
          {"type": ["string", "null"], "maxLength": 200})


def _shared() -> dict[str, Any]:
    return {
        "Money": {"type": "object", "required": ["amount", "currency"],
                  "properties": {"amount": {"type": "string", "pattern": "^[0-9]+\\.[0-9]{2}$"},
                                 "currency": {"type": "string", "minLength": 3,
                                              "maxLength": 3}}},
        "Address": {"type": "object", "properties": {
            "line1": {"type": "string"}, "city": {"type": "string"},
            "country": {"type": "string", "enum": ["DE", "FR", "US", "JP"]}}},
        "Node": {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}},
        "Error": {"type": "object", "required": ["code", "message"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"},
            "retryable": {"type": "boolean"}}},
    }


def _resource(rng: random.Random, i: int) -> dict[str, Any]:
    props: dict[str, Any] = {"id": {"type": "string", "readOnly": True}}
    for j in range(rng.randint(3, 12)):
        props[f"field_{j}"] = dict(rng.choice(_TYPES))
    props["total"] = {"$ref": "#/components/schemas/Money"}
    if rng.random() < 0.5:
        props["address"] = {"$ref": "#/components/schemas/Address"}
    if rng.random() < 0.2:
        props["tree"] = {"$ref": "#/components/schemas/Node"}
    if i > 0 and rng.random() < 0.4:
        props["parent"] = {"$ref": f"#/components/schemas/Resource{rng.randrange(i)}"}
    return {"type": "object", "required": ["id", "total"], "properties": props,
            "description": f"Resource {i}."}


def _operation(rng: random.Random, r: int, method: str, item: bool, n: int) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/Resource{r}"}
    op: dict[str, Any] = {"summary": f"{method} resource {r}",
                          "description": f"Operation {n}: {method.upper()} on resource {r}.",
                          "parameters": [], "responses": {}}
    if rng.random() > 0.03:
        op["operationId"] = f"{method}Resource{r}{'Item' if item else 'List'}"
    if method == "get" and not item:
        op["parameters"] += [{"$ref": "#/components/parameters/Cursor"},
                             {"name": "limit", "in": "query",
                              "schema": {"type": "integer", "minimum": 1, "maximum": 100}}]
        op["responses"]["200"] = {"description": "a page", "content": {"application/json": {
            "schema": {"type": "object", "properties": {
                "items": {"type": "array", "items": ref},
                "next_cursor": {"type": ["string", "null"]}}}}}}
    else:
        op["responses"]["200" if method != "delete" else "204"] = (
            {"description": "done"} if method == "delete" else
            {"description": "the resource", "content": {"application/json": {"schema": ref}}})
    if method in ("post", "put", "patch"):
        op["requestBody"] = {"required": True,
                             "content": {"application/json": {"schema": ref}}}
        op["parameters"].append({"name": "Idempotency-Key", "in": "header",
                                 "required": method == "post", "schema": {"type": "string"}})
    op["responses"]["404"] = {"$ref": "#/components/responses/NotFound"}
    if method != "get":
        op["responses"]["409"] = {"description": "conflict", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    if rng.random() < 0.3:
        op["security"] = [{"oauth": [f"resource{r}:{'read' if method == 'get' else 'write'}"]}]
    if rng.random() < 0.02:
        op["deprecated"] = True
    return op


def generate(operations: int, seed: int = 0) -> dict[str, Any]:
    """The document, with ``operations`` operations (five per resource, rounded up)."""
    rng = random.Random(seed)
    schemas = _shared()
    paths: dict[str, Any] = {}
    n = r = 0
    while n < operations:
        schemas[f"Resource{r}"] = _resource(rng, r)
        base = f"/v1/resources{r}"
        item_path = base + "/{id}"
        paths[base] = {}
        paths[item_path] = {"parameters": [{"name": "id", "in": "path", "required": True,
                                            "schema": {"type": "string"}}]}
        for method, item in (("get", False), ("post", False), ("get", True), ("put", True),
                             ("delete", True)):
            if n >= operations:
                break
            paths[item_path if item else base][method] = _operation(rng, r, method, item, n)
            n += 1
        r += 1
    return {
        "openapi": "3.1.0", "info": {"title": "Generated", "version": "1.0.0"},
        "security": [{"apiKey": []}],
        "paths": {p: v for p, v in paths.items() if set(v) - {"parameters"}},
        "components": {
            "schemas": schemas,
            "parameters": {"Cursor": {"name": "cursor", "in": "query",
                                      "schema": {"type": "string"}}},
            "responses": {"NotFound": {"description": "not found", "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}},
            "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "X-Key"},
                                "oauth": {"type": "oauth2", "flows": {}}}}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--operations", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(generate(args.operations, args.seed), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
