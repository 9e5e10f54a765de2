"""The shape of the house (ARCHITECTURE.md): imports point down only — core <- storage <-
services <- surfaces — formats depend on the core alone, and a package's private modules
(``_name``) are its own: another package imports it through its ``__init__``."""

import ast
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "workbench"
LAYER = {"model": 0, "store": 1,
         "formats": 2, "ingest": 2, "rules": 2, "redact": 2, "minimize": 2, "diff": 2,
         "fixtures": 2, "config": 2, "contracts": 2, "serve": 2, "collect": 2, "replay": 2,
         "invariants": 2, "stats": 2, "runs": 2,
         "cli": 3, "notebook": 3, "pytest_plugin": 3, "mcp_server": 3, "__main__": 3}
CORE_THIRD_PARTY = {"pyarrow", "orjson", "yaml"}
#: service packages that depend on the core alone (readers of files, not of each other)
CORE_ONLY = {"formats", "config"}
#: what the root package ``workbench`` may be imported for from inside the package
ROOT_NAMES = {"__version__"}


def module_name(path: Path) -> str:
    """``workbench/formats/otel/_span.py`` -> ``workbench.formats.otel._span``."""
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(path: Path) -> str:
    """The package a file belongs to: itself for an ``__init__``, else its folder."""
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def imports(path: Path, source: str | None = None):
    """``(module, names)`` for each import of the file, modules made absolute."""
    tree = ast.parse(path.read_text() if source is None else source)
    here = package_of(path).split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "workbench" and len(parts) > 1 else None


def _private_owner(target: str, importer_pkg: str) -> str | None:
    """The package whose private module ``target`` reaches into, when the importer is
    neither that package nor inside it; else None."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = ".".join(parts[:i])
            if not (PKG.parent / owner.replace(".", "/")).is_dir():
                owner = owner.rsplit(".", 1)[0]  # a module's private name: its package's
            if not (importer_pkg == owner or importer_pkg.startswith(owner + ".")):
                return owner
    return None


def problems(path: Path, source: str | None = None) -> list[str]:
    """Every import of the file that breaks the house rules, worded."""
    out = []
    here_pkg = package_of(path)
    here = _top(module_name(path)) or path.stem
    for mod, names in imports(path, source):
        if mod.split(".")[0] != "workbench":
            continue
        top = _top(mod)
        if top is None:  # the root package
            if not set(names) <= ROOT_NAMES:
                out.append(f"{here} imports {names} from the root package")
            continue
        if top in LAYER and LAYER[top] > LAYER[here]:
            out.append(f"{here} (layer {LAYER[here]}) imports {top} (layer {LAYER[top]})")
        if here in CORE_ONLY and top not in (here, "model"):
            out.append(f"{here} imports {top}: {here} depends on the core alone")
        targets = [mod] + [f"{mod}.{n}" for n in names if n != "*"]
        for t in targets:
            owner = _private_owner(t, here_pkg)
            if owner is not None:
                out.append(f"{here_pkg} imports {t}, private to {owner}: "
                           f"import it from {owner}'s __init__")
                break
    return out


FILES = sorted(p for p in PKG.rglob("*.py") if p.parent != PKG or p.name == "__main__.py")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_point_down_and_private_stays_private(path):
    assert problems(path) == []


@pytest.mark.parametrize(("where", "source", "expected"), [
    ("model/_event.py", "from ..store import Store\n", "model (layer 0) imports store (layer 1)"),
    ("rules/_check.py", "from ..cli import main\n", "rules (layer 2) imports cli (layer 3)"),
    ("cli/_check.py", "from ..rules._check import check\n",
     "workbench.cli imports workbench.rules._check, private to workbench.rules"),
    ("cli/_check.py", "from ..rules import _check\n",
     "workbench.cli imports workbench.rules._check, private to workbench.rules"),
    ("formats/agents/inspect_ai/_read.py", "from ...chat._message_list import ChatList\n",
     "private to workbench.formats.chat"),
    ("formats/agents/codex/_exec.py", "from ..gemini_cli._map import read_message\n",
     "private to workbench.formats.agents.gemini_cli"),
    ("formats/otel/_span.py", "from ...redact import Redactor\n",
     "formats imports redact: formats depends on the core alone"),
    ("config/_file.py", "from ..store import Store\n", "config imports store"),
    ("notebook/_view.py", "import workbench.diff._canon\n", "private to workbench.diff"),
    ("fixtures/_export.py", "from .. import Store\n", "from the root package"),
])
def test_a_planted_bad_import_is_named(where, source, expected):
    found = problems(PKG / where, source)
    assert any(expected in p for p in found), found


@pytest.mark.parametrize("source", [
    "from ..formats import RawEvent\n",            # another package, through its __init__
    "from .._adapter import RawEvent\n",           # the parent package's own module
    "from ._value import SpanScope\n",             # a sibling module
    "from ...model import loads\n",                # down a layer
])
def test_allowed_imports_pass(source):
    assert problems(PKG / "formats/otel/_span.py", source) == []


@pytest.mark.parametrize("source", [
    "from .._transcript import Transcript\n",     # the parent package's own module
    "from ..._pairing import derived_id\n",       # a module of formats, two levels up
    "from ..gemini_cli import GEMINI_CLI\n",      # a sibling sub-package, through its __init__
])
def test_a_sub_package_reaches_what_its_parents_share(source):
    assert problems(PKG / "formats/agents/codex/_exec.py", source) == []


@pytest.mark.parametrize("path", sorted((PKG / "model").rglob("*.py")),
                         ids=lambda p: p.name)
def test_core_is_pure(path):
    stdlib = set(sys.stdlib_module_names)
    for mod, _ in imports(path):
        top = mod.split(".")[0]
        if top in ("workbench", "__future__"):
            continue
        assert top in stdlib | CORE_THIRD_PARTY, f"core imports {top}"
        assert top not in {"os", "io", "pathlib", "subprocess", "socket", "shutil", "tempfile"}, \
            f"core does I/O through {top}"


def test_every_package_is_placed_in_a_layer():
    for p in PKG.iterdir():
        if p.is_dir() and (p / "__init__.py").exists():
            assert p.name in LAYER, f"{p.name} is not placed in a layer"
