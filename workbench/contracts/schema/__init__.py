"""JSON Schemas the contracts use: checking a schema against its draft's meta-schema
(``check_schema``, the meta-schemas kept offline), local ``$ref`` resolution, OpenAPI 3.0
schemas converted to JSON Schema 2020-12 (``to_json_schema``), and the normalized shape
the diff and consumer contracts read (``shape``)."""

from ._jsonschema import (
    check_schema,
    expanded_depth,
    resolve_ref,
    walk_refs,
)
from ._normalize import (
    CLOSED,
    LOWER,
    OPEN,
    UPPER,
    Shape,
    description_text,
    same_json,
    shape,
    value_key,
)
from ._oas30 import (
    LIST_KEYWORDS,
    MAP_KEYWORDS,
    SCHEMA_KEYWORDS,
    nullable_31,
    nullable_node,
    recursive_as_ref,
    to_json_schema,
)

__all__ = [
    "CLOSED",
    "LIST_KEYWORDS",
    "LOWER",
    "MAP_KEYWORDS",
    "OPEN",
    "SCHEMA_KEYWORDS",
    "UPPER",
    "Shape",
    "check_schema",
    "description_text",
    "expanded_depth",
    "nullable_31",
    "nullable_node",
    "recursive_as_ref",
    "resolve_ref",
    "same_json",
    "shape",
    "to_json_schema",
    "value_key",
    "walk_refs",
]
