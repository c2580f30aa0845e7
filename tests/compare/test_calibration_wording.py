"""A calibration vouches for the wording of the claim it measured: `verifier check`
credits it only while the claim still reads so, and says why when it does not."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.compare.test_calibrate_cli import CONTRACT, LABELS, copy_of, judged, verifier
from tests.gaps._backends import chained
from tests.gaps._support import tamper

__all__ = ["judged"]  # the module-scoped store of one judged run, shared

GUESSING = "The reply states what it knows and does not guess"


def calibrated(judged: Path, tmp_path: Path) -> Path:
    """A copy of the judged store, calibrated against the labels."""
    store = copy_of(judged, tmp_path)
    done = verifier(tmp_path, "calibrate", "--labels", str(LABELS), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return store


def check_warnings(tmp_path: Path, contract: Path, store: Path) -> list[str]:
    done = verifier(tmp_path, "check", str(contract), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if "warning:" in line]


def reworded(tmp_path: Path, old: str, new: str) -> Path:
    """The fixture contract with one text of a claim changed."""
    contract = tmp_path / "replies.yaml"
    text = CONTRACT.read_text(encoding="utf-8")
    assert old in text
    contract.write_text(text.replace(old, new), encoding="utf-8")
    return contract


def created_at(store: Path) -> str:
    with sqlite3.connect(store) as conn:
        (when,) = conn.execute("SELECT max(created_at) FROM calibrations").fetchone()
    return str(when)


def test_an_inverted_instruction_is_no_longer_credited_with_its_old_calibration(
    judged: Path, tmp_path: Path
) -> None:
    store = calibrated(judged, tmp_path)
    (before,) = check_warnings(tmp_path, CONTRACT, store)
    assert "claim 'formal_tone'" in before  # only 7 labelled cases; no_guessing is credited

    inverted = reworded(tmp_path, GUESSING, "The reply is rude and wrong")
    found = check_warnings(tmp_path, inverted, store)

    (guessing,) = [w for w in found if "'no_guessing'" in w]
    with sqlite3.connect(store) as conn:
        (run,) = conn.execute("SELECT DISTINCT run_id FROM calibrations").fetchone()
    assert guessing.endswith(
        f"warning: calibration of claim 'no_guessing' (run {run}) was measured on another "
        f"wording of the claim (instruction changed since {created_at(store)}): not credited; "
        "run `verifier calibrate` on a run of the claim as it reads now"
    )
    # Put back as it was, the claim is the one measured again.
    (after,) = check_warnings(tmp_path, reworded(tmp_path, GUESSING, GUESSING), store)
    assert after.partition(": warning: ")[2] == before.partition(": warning: ")[2]


def test_new_anchors_or_a_new_pass_mark_are_another_wording_too(
    judged: Path, tmp_path: Path
) -> None:
    store = calibrated(judged, tmp_path)
    old = "instruction: The reply states what it knows and does not guess\n"
    criteria = reworded(tmp_path, old, old + "    criteria: ['Does it avoid guessing?']\n")
    assert any(
        "'no_guessing'" in w and "(criteria changed since" in w
        for w in check_warnings(tmp_path, criteria, store)
    )
    tone = "scale: {min: 1, max: 5, pass_at: 4, anchors: {1: Rude, 3: Neutral, 5: Formal}}"
    rescaled = reworded(tmp_path, tone, tone.replace("pass_at: 4", "pass_at: 3"))
    (warning,) = [w for w in check_warnings(tmp_path, rescaled, store) if "formal_tone" in w]
    assert "was measured on another wording of the claim (scale changed since" in warning
    # What only decides where the claim applies is not its wording.
    gated = reworded(tmp_path, "    after: [has_text]\n", "")
    assert [w for w in check_warnings(tmp_path, gated, store) if "no_guessing" in w] == []


def drop_wording_columns(store: Path) -> None:
    """Makes the store's calibrations what a release before wordings wrote: no wording
    columns, and no seals of them (that release sealed none; the chain is made again
    without them, as that release would have left it)."""
    with sqlite3.connect(store) as conn:
        conn.execute("ALTER TABLE calibrations DROP COLUMN claim_text")
        conn.execute("ALTER TABLE calibrations DROP COLUMN claim_sha")
    strip_record_seals(store)


def strip_record_seals(store: Path) -> None:
    """Takes the calibrations' seals out of the chain, which is made again without them."""
    with sqlite3.connect(store) as conn:
        kept = conn.execute("SELECT kind, subject, body FROM seals WHERE kind != 'record'")
        bodies = [(n, k, s, json.loads(b)) for n, (k, s, b) in enumerate(kept.fetchall(), 1)]
    tamper(store, "DELETE FROM seals", *chained(bodies))


def seal_as_found(store: Path) -> None:
    """What this release's first write to the calibrations does: seals them as found."""
    from verifier.compare.calibration_store import CalibrationStore

    CalibrationStore(store).close()


def test_a_calibration_from_before_wordings_is_judged_by_its_runs_stored_contract(
    judged: Path, tmp_path: Path
) -> None:
    store = calibrated(judged, tmp_path)
    drop_wording_columns(store)
    # Not sealed yet: nothing tells them from forged rows, so none is credited.
    assert all("is not sealed in the store" in w for w in check_warnings(tmp_path, CONTRACT, store))
    seal_as_found(store)
    (before,) = check_warnings(tmp_path, CONTRACT, store)
    assert "claim 'formal_tone'" in before  # no_guessing: its run's contract still reads so

    inverted = reworded(tmp_path, GUESSING, "The reply is rude and wrong")
    assert any(
        "calibration of claim 'no_guessing'" in w and "(instruction changed since" in w
        for w in check_warnings(tmp_path, inverted, store)
    )

    # Its run gone from the store, nothing can tell which wording it measured.
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE calibrations SET run_id = 'run-gone'")
    strip_record_seals(store)  # as an earlier release would have left it, then sealed
    seal_as_found(store)
    found = check_warnings(tmp_path, CONTRACT, store)
    assert any(
        w.endswith(
            "warning: calibration of claim 'no_guessing' (run run-gone, "
            f"{created_at(store)}) did not record the claim's wording, and the store no "
            "longer holds run run-gone to tell which it measured: not credited; run "
            "`verifier calibrate` again"
        )
        for w in found
    ), found


def test_an_older_calibrations_table_gains_the_wording_and_the_store_still_audits(
    judged: Path, tmp_path: Path
) -> None:
    store = calibrated(judged, tmp_path)
    drop_wording_columns(store)
    again = verifier(
        tmp_path, "calibrate", "--labels", str(LABELS), "--store", str(store), "--format", "json"
    )
    assert again.returncode == 0, again.stderr
    shas = {c["claim_id"]: c["claim_sha"] for c in json.loads(again.stdout)["claims"]}
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT claim_id, claim_sha FROM calibrations ORDER BY id").fetchall()
    assert rows[:2] == [("formal_tone", None), ("no_guessing", None)]  # the older two
    assert dict(rows[2:]) == shas and all(len(sha) == 64 for sha in shas.values())
    audit = verifier(tmp_path, "audit", "--store", str(store))
    assert audit.returncode == 0, audit.stdout + audit.stderr
