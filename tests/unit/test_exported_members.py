"""The public names are exactly the intended ones: every package's ``__all__`` lists
each public name it holds and nothing else, and the top level's is pinned by hand."""

import importlib
import types
from pathlib import Path

import pytest

import workbench

PKG = Path(workbench.__file__).parent
PACKAGES = sorted(
    ".".join(p.parent.relative_to(PKG.parent).parts) for p in PKG.rglob("__init__.py"))


def test_top_level_api():
    assert set(workbench.__all__) == {
        "Event", "Ref", "Store", "Trace", "WorkbenchError", "parse_path", "__version__",
        "diff_traces"}


@pytest.mark.parametrize("name", [n for n in PACKAGES if n != "workbench"])
def test_every_package_exports_exactly_its_public_names(name):
    mod = importlib.import_module(name)
    assert hasattr(mod, "__all__"), f"{name} has no __all__"
    for export in mod.__all__:
        assert hasattr(mod, export), f"{name}.{export} is listed but missing"
    public = {k for k, v in vars(mod).items()
              if not k.startswith("_") and not isinstance(v, types.ModuleType)
              and k != "annotations"}
    assert public == set(mod.__all__), (
        f"{name}: public but not in __all__: {sorted(public - set(mod.__all__))}; "
        f"in __all__ but not public: {sorted(set(mod.__all__) - public)}")
    assert len(mod.__all__) == len(set(mod.__all__)), f"{name}.__all__ repeats a name"
