"""PromoteView without a browser: a preview on opening, the button that writes the
next version, a second press that writes nothing, and the CLI's refusals shown in the
view with nothing written."""

from __future__ import annotations

import json

from workbench.notebook import PromoteView

from .conftest import RULES, TRACE


def test_preview_then_promote_then_nothing_new(store, tmp_path):
    fixtures = tmp_path / "fixtures"
    view = PromoteView(store, TRACE, rules=RULES, name="archive-incident",
                       minimize="approval-before-archive", fixtures=fixtures)
    cand = view.candidate
    assert cand is not None and view.error == "" and not view.stale
    assert cand.manifest["trace"]["events"] == 3 and cand.manifest["source"]["events"] == 14
    # the three steps kept still show a finding of every rule
    assert [f["rule"] for f in cand.manifest["expected_findings"]] == [
        "approval-before-archive", "archive-owned-only", "list-filters-by-owner-id"]
    assert "archive-incident: the first version under" in view.status_text
    assert "manifest.json (preview)" in view.manifest.value
    assert not fixtures.exists()                     # a preview writes nothing
    view.promote_button.click()                      # what pressing the button does
    result = view.result
    assert result is not None and result.written and result.fixture == "archive-incident/v1"
    manifest = json.loads((fixtures / "archive-incident" / "v1" / "manifest.json").read_text())
    assert manifest["content_sha256"] == cand.content_sha256
    assert (fixtures / "fixtures.lock").is_file()
    assert view.status_text.startswith("wrote archive-incident/v1")
    again = view.promote()
    assert again is not None and not again.written and again.version == 1
    assert "unchanged: already holds this content: archive-incident/v1" in view.status_text
    assert sorted(p.name for p in (fixtures / "archive-incident").iterdir()) == ["v1"]


def test_a_changed_input_is_previewed_again_and_a_new_version_needs_a_note(store, tmp_path):
    fixtures = tmp_path / "fixtures"
    view = PromoteView(store, TRACE, rules=RULES, name="archive-incident",
                       minimize="approval-before-archive", fixtures=fixtures)
    assert view.promote() is not None
    view.minimize.value = "(keep every event)"
    assert view.stale and "inputs changed" in view.status_text
    assert view.promote() is None
    assert view.error.startswith("error[NOTE_REQUIRED]: archive-incident/v2 differs from v1")
    assert sorted(p.name for p in (fixtures / "archive-incident").iterdir()) == ["v1"]
    # the view names its note field, not the CLI's flag, and keeps the preview on screen
    assert "hint: write in the note field above" in view.status_text
    assert "--note" not in view.status_text and "wb-attention" in view.note._dom_classes
    assert "manifest.json (preview)" in view.manifest.value and view.candidate is not None
    view.note.value = "keep every event: the whole incident (events, manifest)"
    result = view.promote()
    assert result is not None and result.fixture == "archive-incident/v2", view.error
    assert "wb-attention" not in view.note._dom_classes


def test_promote_succeeds_on_first_press_over_the_committed_fixtures(store, tmp_path):
    """A fresh clone: the repository's fixtures were promoted from another store (another
    key); pressing Promote in the triage notebook finds the same content, not a new
    version that needs a note."""
    import shutil

    from tests.support import REPO
    fixtures = tmp_path / "fixtures"
    shutil.copytree(REPO / "traces" / "fixtures", fixtures)
    view = PromoteView(store, TRACE, rules=RULES, name="archive-incident",
                       minimize="approval-before-archive", fixtures=fixtures)
    assert "v1 already holds this content" in view.status_text
    assert "Promote writes nothing" in view.status_text
    view.promote_button.click()
    assert view.error == "" and view.result is not None and not view.result.written
    assert "unchanged: already holds this content: archive-incident/v1" in view.status_text


def test_refusals_are_shown_and_nothing_is_written(store, tmp_path):
    fixtures = tmp_path / "fixtures"
    view = PromoteView(store, TRACE, rules=RULES, name="Bad Name!", fixtures=fixtures)
    assert view.candidate is None and view.error.startswith("error[FIXTURE_NAME]")
    assert view.promote() is None and not fixtures.exists()
    view.name.value = "archive-incident"
    view.policy.value = "version: 1\nkeep: [bogus.path]\n"
    assert view.preview() is None and view.error.startswith("error[POLICY_INVALID]")
    view.policy.value = "version: 1\nkeep: [kind]\n"   # the tool names become shapes
    assert view.preview() is None
    assert view.error.startswith("error[POLICY_HIDES_FINDING]")
    assert "hint:" in view.status_text and not fixtures.exists()


def test_a_clean_trace_needs_allow_clean(store, tmp_path):
    rules = tmp_path / "clean.yaml"
    rules.write_text("version: 1\nrules:\n  lists-something:\n    exists: {tool: list_projects}\n")
    view = PromoteView(store, TRACE, rules=rules, name="clean-run", fixtures=tmp_path / "f")
    assert view.error.startswith("error[CLEAN_TRACE]")
    view.allow_clean.value = True
    result = view.promote()
    assert result is not None and result.written and result.manifest["expected_findings"] == []


def test_minimize_finding_2_then_1_then_promote_names_the_findings_own_trace(store, tmp_path):
    """The widgets as a user drives them: one MinimizeView run on archive-owned-only's
    finding 2, then on finding 1 (both stored, no TRACE_EXISTS), then Promote of finding
    1: the manifest names finding 1's minimization, the one that keeps step 8."""
    from workbench.notebook import MinimizeView

    from .conftest import ARCHIVE_P18, ARCHIVE_P19

    shrink = MinimizeView(store, TRACE, rules=RULES, rule="archive-owned-only", finding=2)
    shrink.run_button.click()
    second = shrink.stored
    assert shrink.error == "" and second is not None
    shrink.finding_box.value = 1
    shrink.run_button.click()
    first = shrink.stored
    assert shrink.error == "" and first is not None and first != second
    assert {first, second} <= set(store.trace_ids())
    owns = {tid: {e.event_id for e in store.trace(tid).events} for tid in (first, second)}
    assert ARCHIVE_P18 in owns[first] and ARCHIVE_P19 not in owns[first]
    assert ARCHIVE_P19 in owns[second] and ARCHIVE_P18 not in owns[second]
    fixtures = tmp_path / "fixtures"
    view = PromoteView(store, TRACE, rules=RULES, name="archive-incident",
                       minimize="archive-owned-only", fixtures=fixtures)
    assert view.finding.value == 1
    view.promote_button.click()
    assert view.error == "" and view.result is not None
    manifest = json.loads((fixtures / "archive-incident" / "v1" / "manifest.json").read_text())
    assert manifest["trace"] == {"trace_id": first, "events": 3}
    # finding 2 through the view's own field: its trace, in a new version
    view.finding.value = 2
    view.note.value = "finding 2 of archive-owned-only (events, manifest)"
    view.promote_button.click()
    assert view.error == "" and view.result is not None
    assert view.result.fixture == "archive-incident/v2"
    assert view.result.manifest["trace"] == {"trace_id": second, "events": 3}
    # back to finding 1: v1's content, which v1 holds (no v3, no note asked)
    view.note.value = ""
    view.finding.value = 1
    assert view.preview() is not None
    assert "archive-incident: v1 already holds this content" in view.status_text
    view.promote_button.click()
    assert view.error == "" and view.result is not None and not view.result.written
    assert view.result.fixture == "archive-incident/v1"
    assert "unchanged: already holds this content: archive-incident/v1" in view.status_text
    assert sorted(p.name for p in (fixtures / "archive-incident").iterdir()) == ["v1", "v2"]
