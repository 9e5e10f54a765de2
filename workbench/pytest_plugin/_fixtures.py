"""Promoted fixtures as test items: every ``NAME/vN`` under the fixtures folder.

Per fixture version, the items ``…/NAME/vN/manifest.json::findings`` (its rules still
find the incident's signatures in its trace) and, where ``[tool.workbench] replay`` is
set, ``…/NAME/vN/manifest.json::replay`` (the system under test, driven with the
fixture, gives a trace its rules accept). Both carry the ``workbench_fixture`` marker.

Configuration, in the rootdir's ``pyproject.toml``::

    [tool.workbench]
    fixtures = "traces/fixtures"                       # the default
    replay = "python -m myagent --replay {fixture} --trace-out {out}"
    replay_timeout = 300                               # seconds per run (default)

**Collection.** The folder is collected wherever pytest's own collection reaches it
(``pytest traces/fixtures``, ``pytest traces/fixtures/NAME/v2``, or a plain ``pytest``
from the rootdir without ``testpaths``). A plain ``pytest`` whose ``testpaths`` leave
the folder out still gets the fixtures: the session's collection report gains the
folder's collector, so the items go through pytest's normal machinery (``-k``, ``-m``,
``--deselect``, ``--collect-only``, the flakes lock). Explicit paths on the command line
(``pytest tests/unit``) mean just those paths. ``--no-workbench-fixtures`` (ini:
``workbench_fixtures = false``) turns the items off.

The fixtures service is imported only when a fixture is collected, so projects without
fixtures pay nothing.

**Data only.** Nothing under the fixtures folder is imported: its collectors are not
``pytest.Directory`` nodes, so pytest never loads a ``conftest.py`` from there while
collecting them, and a run refuses to start when the folder holds a ``conftest.py``
(pytest would import one on the command line's path before any plugin could stop it).
A version holding any file it does not list fails its items (docs/security.md).
"""

from __future__ import annotations

import tomllib
import warnings
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["DEFAULT_FOLDER", "FixtureFailure", "FixtureItems", "FixturesSettings",
           "read_settings"]

DEFAULT_FOLDER = "traces/fixtures"
MARKER = "workbench_fixture"
PLUGIN_NAME = "workbench-fixtures"


class FixtureFailure(Exception):
    """A fixture item that failed: the message is the whole report (no traceback)."""


class FixtureWarning(UserWarning):
    """A replayed run that only broke ``warn`` rules."""


class FixturesSettings:
    """``[tool.workbench]`` of the rootdir's pyproject.toml, checked."""

    def __init__(self, root: Path, explicit: bool, replay: str | None, timeout: float) -> None:
        self.root, self.explicit, self.replay, self.timeout = root, explicit, replay, timeout


def _table(rootpath: Path) -> dict[str, Any]:
    path = rootpath / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        raise pytest.UsageError(f"workbench: pyproject.toml cannot be read: {exc}") from None
    table = doc.get("tool", {}).get("workbench", {})
    if not isinstance(table, dict):
        raise pytest.UsageError("workbench: [tool.workbench] must be a table")
    return table


def read_settings(rootpath: Path) -> FixturesSettings:
    """The fixtures folder, the replay command and its timeout, or a usage error."""
    table = _table(rootpath)
    folder = table.get("fixtures", DEFAULT_FOLDER)
    if not isinstance(folder, str) or not folder.strip():
        raise pytest.UsageError("workbench: [tool.workbench] fixtures must be a folder path")
    replay = table.get("replay")
    if replay is not None and not isinstance(replay, str):
        raise pytest.UsageError("workbench: [tool.workbench] replay must be a command string")
    timeout = table.get("replay_timeout", 300)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise pytest.UsageError("workbench: [tool.workbench] replay_timeout must be a "
                                "positive number of seconds")
    if replay is not None:
        from ..fixtures import parse_replay
        from ..model import WorkbenchError
        try:
            parse_replay(replay)
        except WorkbenchError as exc:
            from ..redact import error_text
            raise pytest.UsageError(f"workbench: [tool.workbench] replay: {error_text(exc)}"
                                    ) from None
    root = Path(folder)
    return FixturesSettings(root if root.is_absolute() else rootpath / root,
                            "fixtures" in table, replay, float(timeout))


class FixtureItems:
    """The collection hooks (registered by the plugin's ``pytest_configure``)."""

    def __init__(self, config: pytest.Config, settings: FixturesSettings) -> None:
        self.config, self.settings = config, settings
        self.root = settings.root.resolve()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector
                                 ) -> pytest.Collector | None:
        if path.resolve() == self.root:
            return FixturesFolder.from_parent(parent, path=path)
        return None

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector
                                   ) -> Generator[None, Any, Any]:
        rep = yield
        if isinstance(collector, pytest.Session) and rep.passed and self._add(collector):
            rep.result.append(FixturesFolder.from_parent(collector, path=self.root))
        return rep

    def _add(self, session: pytest.Session) -> bool:
        """Whether a plain run must add the folder its own collection does not reach."""
        config = session.config
        if not self.root.is_dir():
            return False
        source = config.args_source
        if source == pytest.Config.ArgsSource.ARGS:
            return False
        if source == pytest.Config.ArgsSource.INVOCATION_DIR and \
                Path(config.invocation_params.dir).resolve() != config.rootpath.resolve():
            return False
        return not any(session.isinitpath(p) for p in (self.root, *self.root.parents))

    def pytest_report_header(self, config: pytest.Config) -> str | None:
        if not self.root.is_dir():
            return None
        try:
            shown = self.root.relative_to(config.rootpath.resolve())
        except ValueError:
            shown = self.root
        replay = f"replay: {self.settings.replay}" if self.settings.replay else "replay: off"
        return f"workbench: fixtures in {shown} ({replay})"


def _items(config: pytest.Config) -> FixtureItems:
    plugin = config.pluginmanager.get_plugin(PLUGIN_NAME)
    assert isinstance(plugin, FixtureItems)
    return plugin


def _visible_dirs(path: Path) -> list[Path]:
    return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))


def refuse_code(root: Path, rootpath: Path) -> None:
    """A usage error when the fixtures folder holds a ``conftest.py`` anywhere."""
    if not root.is_dir():
        return
    for found in sorted(root.rglob("conftest.py")):
        try:
            shown = found.resolve().relative_to(rootpath.resolve())
        except ValueError:
            shown = found
        raise pytest.UsageError(
            f"workbench: {shown} is Python inside the fixtures folder, which holds data "
            "only; it is not imported and the run stops\n  hint: remove it (`workbench "
            "verify` lists every file a fixture version does not list)")


class _DataFolder(pytest.File):
    """A folder of the fixtures tree. Deliberately not a ``pytest.Directory``: pytest
    loads the ``conftest.py`` of every Directory it collects, and a fixture folder is
    data only (it may come from an untrusted pull request)."""


class FixturesFolder(_DataFolder):
    """The fixtures folder: one collector per fixture name."""

    def collect(self) -> Iterator[pytest.Collector]:
        for d in _visible_dirs(self.path):
            yield FixtureFolder.from_parent(self, path=d)


class FixtureFolder(_DataFolder):
    """One fixture: one collector per version, oldest first."""

    def collect(self) -> Iterator[pytest.Collector]:
        from ..fixtures import parse_version
        found = [(v, d) for d in _visible_dirs(self.path)
                 if (v := parse_version(d.name)) is not None]
        for _, d in sorted(found):
            yield FixtureVersion.from_parent(self, path=d)


class FixtureVersion(_DataFolder):
    """One fixture version folder; its items hang off its manifest, so that a node id
    such as ``traces/fixtures/NAME/v2/manifest.json::findings`` can be run by itself."""

    def collect(self) -> Iterator[pytest.Collector]:
        yield FixtureManifest.from_parent(self, path=self.path / "manifest.json")


class FixtureManifest(pytest.File):
    """The items of one fixture version; they share the fixture, read once."""

    _loaded: Any = None

    def collect(self) -> Iterator[pytest.Item]:
        yield FindingsItem.from_parent(self, name="findings")
        if _items(self.config).settings.replay:
            yield ReplayItem.from_parent(self, name="replay")

    @property
    def fixture_id(self) -> str:
        return f"{self.path.parent.parent.name}/{self.path.parent.name}"

    def fixture(self) -> Any:
        """The loaded fixture; an unreadable one fails each item with the reason."""
        from ..model import WorkbenchError
        if self._loaded is None:
            from ..fixtures import load_fixture, unlisted
            stray = unlisted(self.path.parent)
            try:
                self._loaded = load_fixture(self.path.parent) if not stray else \
                    FixtureFailure(f"fixture {self.fixture_id} holds what it does not "
                                   f"list: {'; '.join(stray)}\n  hint: a fixture version is "
                                   "data only; remove it (`workbench verify` lists it)")
            except WorkbenchError as exc:
                self._loaded = exc
        if isinstance(self._loaded, FixtureFailure):
            raise self._loaded
        if isinstance(self._loaded, WorkbenchError):
            from ..redact import masked_error
            err = masked_error(self._loaded)
            raise FixtureFailure(f"fixture {self.fixture_id} cannot be read: "
                                 f"error[{err.code}]: {err.message}\n  hint: `workbench "
                                 "verify` lists what is wrong with each fixture")
        return self._loaded


class _FixtureItem(pytest.Item):
    parent: FixtureManifest

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_marker(MARKER)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        if isinstance(excinfo.value, FixtureFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"fixture {self.parent.fixture_id}: {self.name}"


class FindingsItem(_FixtureItem):
    """(1) The fixture's rules still find its expected signatures in its trace."""

    def runtest(self) -> None:
        from ..fixtures import check_fixture
        check = check_fixture(self.parent.fixture())
        if not check.ok:
            raise FixtureFailure(check.message())


class ReplayItem(_FixtureItem):
    """(2) Driven with the fixture, the system under test satisfies the rules."""

    def runtest(self) -> None:
        from ..fixtures import replay_fixture
        settings = _items(self.config).settings
        assert settings.replay is not None
        outcome = replay_fixture(self.parent.fixture(), settings.replay,
                                 timeout=settings.timeout, cwd=self.config.rootpath)
        for f in outcome.warnings:
            warnings.warn_explicit(
                f"fixture {outcome.fixture} replay: {f.rule} at step {f.seq} "
                f"({f.operation}): {f.message}", FixtureWarning, str(self.path), 1)
        if not outcome.ok:
            raise FixtureFailure(outcome.message())


def configure(config: pytest.Config, enabled: bool) -> None:
    """Register the fixture items unless turned off (called from ``pytest_configure``)."""
    config.addinivalue_line("markers", f"{MARKER}: a promoted workbench fixture's check "
                            "(docs/fixtures.md)")
    if not enabled:
        return
    settings = read_settings(config.rootpath)
    if settings.explicit and not settings.root.is_dir():
        raise pytest.UsageError(f"workbench: [tool.workbench] fixtures = "
                                f"{str(settings.root)!r} is not a folder")
    config.pluginmanager.register(FixtureItems(config, settings), PLUGIN_NAME)
