"""The HTML report of one stored run: one self-contained file.

It holds a PASS/FAIL banner, the run's summary, a bar chart of every claim's pass rate
(inline SVG drawn in Python) with each claim's description, the judges' stability
triples per judge claim, their noise and the test-retest agreement stored for them by
``verifier audit --resample``, and every result that did not pass with its reason, its
evidence and its case's input and output from the stored content, the span that
decided it marked (up to ``MAX_RESULTS``, the rest counted).
A small inline script filters those results by claim and status; without it the page
shows everything. Nothing is fetched: no stylesheet, font, script or image from
anywhere (ADR 0010).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from verifier import __version__
from verifier.findings_tally import findings_lines
from verifier.gaps.resamples import ResampleRow, TripleAgreement, agreement_of_run
from verifier.gaps.store import GapStore, RunRecord
from verifier.judge_summary import judge_usage_text
from verifier.overall import overall_text
from verifier.report._html_page import content_security_policy, environment, write_atomically
from verifier.report._run_view import CONTENT_BUDGET, MAX_RESULTS, RunView, read_run
from verifier.report._svg import STATUS_COLOURS, bar_chart
from verifier.results import PASS_RATE_NOTE

__all__ = ["FILTER_SCRIPT", "MAX_RESULTS", "render_run_html", "write_run_html"]

FILTER_SCRIPT = """
(function () {
  var controls = document.getElementById("filters");
  if (!controls) { return; }
  var claim = document.getElementById("filter-claim");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input.filter-status"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.result"));
  var count = document.getElementById("shown-count");
  function apply() {
    var wanted = {};
    boxes.forEach(function (box) { wanted[box.value] = box.checked; });
    var shown = 0;
    rows.forEach(function (row) {
      var show = (claim.value === "" || row.dataset.claim === claim.value) &&
        wanted[row.dataset.status] !== false;
      row.hidden = !show;
      if (show) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + " shown";
  }
  claim.addEventListener("change", apply);
  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  controls.hidden = false;
  apply();
})();
"""
"""Shows the filters (hidden until a script can run them) and applies them."""


def render_run_html(view: RunView, retests: Sequence[TripleAgreement] = ()) -> str:
    """The page of one run, as text.

    Args:
        view: The run, as :func:`read_run` read it.
        retests: The test-retest agreement stored for its verdicts, per triple.
    """
    tallies = [(claim.claim_id, claim.tally) for claim in view.claims.values()]
    context: dict[str, Any] = {
        "title": f"verifier run {view.record.run_id} ({view.record.contract_id})",
        "version": __version__,
        "csp": content_security_policy(FILTER_SCRIPT),
        "script": FILTER_SCRIPT,
        "run": view,
        "totals": view.case_totals,
        "overall": overall_text(view.record.summary.get("overall")),
        "findings": findings_lines(view.record.summary.get("findings")),
        "usage": judge_usage_line(view.record.summary.get("usage")),
        "colours": STATUS_COLOURS,
        "chart": bar_chart(tallies),
        "pass_rate_note": PASS_RATE_NOTE if any(t.skipped for _, t in tallies) else None,
        "judged": [c for c in view.claims.values() if c.triples or c.missing_triple],
        "failing_claims": sorted({r.claim_id for r in view.results}),
        "retests": retests,
    }
    return environment().get_template("run.html.j2").render(context)


_USAGE_KEYS = (
    "calls",
    "cached",
    "failed",
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
)


def judge_usage_line(usage: Any) -> str | None:
    """The judge calls and tokens a run recorded, in a line (``None`` when it recorded
    none, or not in the runner's shape)."""
    if not isinstance(usage, dict) or not all(isinstance(usage.get(k), int) for k in _USAGE_KEYS):
        return None
    return judge_usage_text(usage)


def write_run_html(
    store: GapStore,
    record: RunRecord,
    path: Path,
    *,
    max_results: int = MAX_RESULTS,
    content_budget: int = CONTENT_BUDGET,
    resamples: Iterable[ResampleRow] = (),
) -> RunView:
    """Reads one run from ``store`` and writes its HTML report to ``path``.

    Args:
        store: The store holding the run.
        record: The run (``store.run(run_id)`` or ``store.last_run()``).
        path: The file to write; replaced whole, never left half written.
        max_results: How many results that did not pass to list.
        content_budget: Characters of case content shown in all.
        resamples: The store's stored retests (``ResampleStore.all``); those of this
            run are shown per judge triple.

    Returns:
        What the page shows, for a one-line summary.

    Raises:
        StoreError: The store cannot be read.
        OutputError: The file cannot be written.
    """
    view = read_run(store, record, max_results=max_results, content_budget=content_budget)
    retests = agreement_of_run(resamples, record.run_id)
    write_atomically(path, [render_run_html(view, retests)])
    return view
