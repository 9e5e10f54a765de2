"""The public names are exactly the intended ones."""

import workbench
import workbench.config
import workbench.diff
import workbench.ingest
import workbench.model
import workbench.redact
import workbench.rules
import workbench.store


def test_top_level_api():
    assert set(workbench.__all__) == {
        "Event", "Ref", "Store", "Trace", "WorkbenchError", "parse_path", "__version__",
        "diff_traces"}


def test_all_names_exist():
    for mod in (workbench, workbench.model, workbench.store, workbench.ingest, workbench.rules,
                workbench.diff, workbench.redact, workbench.config):
        for name in mod.__all__:
            assert hasattr(mod, name), f"{mod.__name__}.{name}"
