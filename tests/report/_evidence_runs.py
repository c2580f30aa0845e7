"""A real run whose failures each point at a span of the case: a forbidden pattern
matched, a banned value found, a citation not in its source, and an output with markup
an LLM could have written. Run through the real runner, stored in a real SQLite file.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

from verifier.cases import CaseLine
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, run_sync
from verifier.gaps.content import RecordPolicy
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report import ReportWriter

CONTRACT = """\
contract: evidence-demo
version: 1
llm_fields: [output]
threshold: 1.0
claims:
  - id: no_apology
    description: The answer never apologises
    rubric: regex
    field: output
    pattern: 'sorry|apologi[sz]e'
    flags: i
    negate: true
  - id: no_slang
    rubric: not_contains
    field: output
    values: [lol, gonna]
  - id: quotes_grounded
    description: Every quote comes from the question
    rubric: citation
    spans: quotes.*
    within: input
"""

HOSTILE = "</pre></details><script>window.__injected = 'output'</script>"
SECRET = "account 4242-7777-secret"

CASES: list[dict[str, object]] = [
    {
        "id": "calm",
        "input": "How do I reset my password?",
        "output": "Open settings and choose reset password.",
        "quotes": ["reset my password"],
    },
    {
        "id": "rude",
        "input": f"Why was I charged twice? ({SECRET})",
        "output": f"Well, I am Sorry about that {HOSTILE} we are gonna fix it.",
        "quotes": ["charged twice", "refund is on its way"],
    },
    {
        "id": "long",
        "input": "Tell me everything.",
        "output": "word " * 800 + "sorry, that is all.",
        "quotes": ["everything"],
    },
]
LONG_MATCH_AT = 4000


def run_demo(
    tmp_path: Path,
    *,
    cases: list[dict[str, object]] = CASES,
    policy: RecordPolicy | None = None,
    sinks: Sequence[ReportWriter] = (),
    contract: str = CONTRACT,
) -> tuple[Path, str]:
    """Runs ``contract`` (the demo's by default) over ``cases`` with reports ``sinks``;
    returns the store's path and the run id."""
    contract_path = tmp_path / "evidence-demo.yaml"
    contract_path.write_text(contract, encoding="utf-8")
    store_path = tmp_path / "gaps.db"
    options = RunOptions() if policy is None else RunOptions(record=policy)
    with SqliteStore(store_path) as store:
        contract = load_contract(contract_path)
        runner = Runner(
            contract, store, plan=build_plan(contract), sinks=list(sinks), options=options
        )
        lines = [CaseLine(i + 1, str(c["id"]), c) for i, c in enumerate(cases)]
        # In a thread of its own: Playwright's sync API keeps an event loop running in
        # this one while a module's browser is open, and a run starts its own loop.
        with ThreadPoolExecutor(1) as pool:
            summary = pool.submit(run_sync, runner, lines).result()
    return store_path, summary.run_id


class ResultMarks(HTMLParser):
    """The marked texts of each ``tr.result`` of a run page, by case and claim."""

    def __init__(self) -> None:
        super().__init__()
        self.marks: dict[tuple[str, str], list[str]] = {}
        self._row: str | None = None
        self._case: list[str] | None = None
        self._case_id = ""
        self._mark: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "tr" and "result" in (found.get("class") or "").split():
            self._row = found.get("data-claim") or ""
        elif tag == "td" and found.get("class") == "case" and self._row is not None:
            self._case = []
        elif tag == "mark" and self._row is not None:
            self._mark = []

    def handle_data(self, data: str) -> None:
        if self._mark is not None:
            self._mark.append(data)
        elif self._case is not None:
            self._case.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._case is not None:
            self._case_id, self._case = "".join(self._case), None
        elif tag == "mark" and self._mark is not None and self._row is not None:
            key = (self._case_id, self._row)
            self.marks.setdefault(key, []).append("".join(self._mark))
            self._mark = None
        elif tag == "tr":
            self._row = None


def marks_of(page: str) -> dict[tuple[str, str], list[str]]:
    """``{(case, claim): [marked text, ...]}`` of a run page."""
    parser = ResultMarks()
    parser.feed(page)
    return parser.marks
