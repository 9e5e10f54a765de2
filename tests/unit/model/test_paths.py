import pytest

from workbench.model import STAR, PathSyntaxError, format_path, parse_path


@pytest.mark.parametrize("text, segments", [
    ("args.project_id", ("args", "project_id")),
    ("result.items[0].id", ("result", "items", 0, "id")),
    ("result.items[*].id", ("result", "items", STAR, "id")),
    ("items[-1]", ("items", -1)),
    ('attrs["gen_ai.tool.name"]', ("attrs", "gen_ai.tool.name")),
    ("args.query.limit", ("args", "query", "limit")),
    ('a."x y"', ("a", "x y")),
])
def test_parse(text, segments):
    assert parse_path(text).segments == segments


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a.", "a[x]", "a[", "a b", "[0]x"])
def test_parse_errors_name_the_path(bad):
    with pytest.raises(PathSyntaxError) as info:
        parse_path(bad)
    assert info.value.code == "PATH_SYNTAX"


def test_values_reach_every_match_in_order():
    doc = {"items": [{"id": "p17"}, {"id": "p18"}, {"name": "no id"}]}
    assert parse_path("items[*].id").values(doc) == ["p17", "p18"]
    assert parse_path("items[1].id").values(doc) == ["p18"]
    assert parse_path("items[-1].name").values(doc) == ["no id"]
    assert parse_path("items[9].id").values(doc) == []
    assert parse_path("missing.key").values(doc) == []
    assert parse_path("items.id").values(doc) == []  # no implicit fan-out


def test_concrete_paths_come_back_from_find():
    doc = {"items": [{"id": "a"}, {"id": "b"}]}
    found = [(format_path(p), v) for p, v in parse_path("items[*].id").find(doc)]
    assert found == [("items[0].id", "a"), ("items[1].id", "b")]


def test_dotted_flat_keys_match_longest_first():
    attrs = {"gen_ai.tool.name": "read_file", "gen_ai": {"tool": {"name": "nested"}}}
    assert parse_path("gen_ai.tool.name").values(attrs) == ["nested"]
    assert parse_path("gen_ai.tool.name").values({"gen_ai.tool.name": "flat"}) == ["flat"]
    assert parse_path("gen_ai.usage.input_tokens").values(
        {"gen_ai.usage.input_tokens": 7}) == [7]


def test_star_over_objects_yields_values():
    assert sorted(parse_path("h[*]").values({"h": {"a": 1, "b": 2}})) == [1, 2]


@pytest.mark.parametrize("segments", [
    ("result", "items", 3, "id"), ("attrs", "gen_ai.x"), ("a", 'we"ird'), ("a",)])
def test_format_then_parse_round_trips(segments):
    assert parse_path(format_path(segments)).segments == segments
