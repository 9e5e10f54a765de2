"""``workbench contract import`` of a document some of whose tools cannot be used: the
others imported, the refused ones listed with code, path and hint, exit 4 (partial);
``--strict`` all or nothing (exit 2, nothing written); warnings never change the exit."""

import json

import pytest
import yaml

from tests.support import run, snapshot

DOC = """openapi: 3.1.0
info: {title: Items, version: '1'}
components:
  schemas:
    Item:
      type: object
      required: [id, id]
      properties:
        id: {type: string}
        note: {type: string, nullable: true}
paths:
  /items:
    get:
      operationId: listItems
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
    post:
      operationId: addItem
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Gone'}
      responses: {'204': {description: ok}}
"""


@pytest.fixture(autouse=True)
def no_env_store(monkeypatch, tmp_path):
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def api(tmp_path):
    path = tmp_path / "api.yaml"
    path.write_text(DOC)
    return path


def test_a_partial_import_exits_4_and_lists_each_refusal(capsys, tmp_path, api):
    code, out, err = run(capsys, "contract", "import", api, "--out", tmp_path / "out")
    assert code == 4, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["listItems.yaml"]
    assert "refused[SCHEMA_INVALID]: POST /items at paths./items.post" in err
    assert "'#/components/schemas/Gone' resolves to nothing" in err and "  hint: " in err
    assert "warning[oas30-nullable]: " in err and "components.schemas.Item.properties.note" in err
    assert "warning[duplicate-required]: " in err
    assert "partial: 1 tools imported, 1 refused" in err
    assert "1 descriptors in" in out


def test_json_lists_refused_and_warnings(capsys, api):
    code, out, err = run(capsys, "contract", "import", api, "--json")
    assert code == 4 and err == ""
    doc = json.loads(out)
    assert [t["tool"] for t in doc["tools"]] == ["listItems"]
    [refused] = doc["refused"]
    assert refused["tool"] == "addItem" and refused["operation"] == "POST /items"
    assert refused["code"] == "SCHEMA_INVALID" and refused["hint"]
    assert refused["path"].startswith("paths./items.post")
    assert sorted(w["kind"] for w in doc["warnings"]) == ["duplicate-required",
                                                          "oas30-nullable"]
    item = doc["manifest"]["tools"][0]["output"]["$defs"]["Item"]
    assert item["required"] == ["id"] and item["properties"]["note"]["type"] == [
        "string", "null"]


def test_strict_refuses_everything_and_writes_nothing(capsys, tmp_path, api):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.yaml").write_text("x: 1\n")
    before = snapshot(out)
    code, _, err = run(capsys, "contract", "import", api, "--out", out, "--strict")
    assert code == 2 and "error[SCHEMA_INVALID]" in err and "addItem" in err
    assert snapshot(out) == before


def test_warnings_alone_exit_0(capsys, tmp_path):
    path = tmp_path / "api.yaml"
    doc = yaml.safe_load(DOC)
    del doc["paths"]["/items"]["post"]
    path.write_text(yaml.safe_dump(doc))
    code, out, err = run(capsys, "contract", "import", path)
    assert code == 0 and "warning[duplicate-required]" in err
    assert yaml.safe_load(out)["tools"][0]["tool"] == "listItems"


def test_the_five_line_tool_list_with_recursive_keywords_imports(capsys, tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": {
        "$recursiveAnchor": True, "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$recursiveRef": "#"}}}}}]}))
    code, out, err = run(capsys, "contract", "import", path, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["manifest"]["tools"][0]["input"]["properties"]["kids"]["items"] == {"$ref": "#"}
    assert [w["kind"] for w in doc["warnings"]] == ["recursive-ref"]


def test_a_file_that_cannot_be_read_is_refused_beside_those_that_can(capsys, tmp_path, api):
    broken = tmp_path / "broken.json"
    broken.write_text('{"tools": [')
    code, out, err = run(capsys, "contract", "import", api, broken, "--json")
    assert code == 4
    doc = json.loads(out)
    assert [t["tool"] for t in doc["tools"]] == ["listItems"]
    assert sorted(r["code"] for r in doc["refused"]) == ["INVALID_JSON", "SCHEMA_INVALID"]
    code, _, err = run(capsys, "contract", "import", api, broken)
    assert code == 4 and f"refused[INVALID_JSON]: {broken}: " in err
