"""Whatever the judge API answers, every judge result is a trustworthy gap row.

Hypothesis scripts the local Messages API server per request (which case, which
verdict tool, which presentation order): each call takes the next answer drawn for
its request, and the default answer once those run out. Answers are forced tool calls
with valid, odd (unicode, huge, extra keys) or broken input (missing keys, wrong
types, a pass written as text, a score off the scale, wrong claim ids), text without
the tool, refusals, answers cut off, replies naming no served model, HTTP errors
(some echoing the API key), rate limits, server errors, malformed bodies and slow
answers. A contract of two binary claims (asked together), a scale claim and a
pairwise claim runs over two to four cases through the real runner, the real
Anthropic SDK and a SQLite store; then again, with a well-behaved server, over the
same store.

Each result must rest on the last answer its request got: a pass or fail exactly
when that answer was usable (with the verdict it carried and a complete triple naming
the model the server reported), an error otherwise. The record audits clean, holds
one row per case and claim, and never the key; the rerun turns every error into a
verdict (a reply that was not usable is never replayed from the cache).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.judge import behaviours as b
from tests.judge.messages_server import MessagesServer
from verifier.analyses.audit import audit_store
from verifier.cases import CaseLine
from verifier.contract.load import load_contract
from verifier.engine.comparative import combine_orders
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, new_run_id, run_sync
from verifier.gaps.sqlite.store import SqliteStore
from verifier.judge.setup import make_judge_phase
from verifier.llm.limits import CallLimits
from verifier.llm.triple import triple_problems

KEY = "sk-ant-api03-judge-property-FAKE-KEY-0123456789"
MODEL = "claude-haiku-4-5-20251001"
BINARY, SCALE, PAIRWISE = "record_assertion_results", "record_scores", "record_preference"
CONTRACT = """\
contract: judge-property
version: 1
llm_fields: [output, baseline]
judges:
  strict:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    sampling: {max_tokens: 512}
    group: case
claims:
  - id: facts
    judge: strict
    instruction: The output states facts, not guesses
    criteria:
      - Does the output avoid speculation?
  - id: concise
    judge: strict
    instruction: The output is concise
  - id: tone
    judge: strict
    instruction: Formal executive tone
    scale: {min: 1, max: 5, pass_at: 4}
  - id: better
    compare: pairwise
    judge: strict
    instruction: Which answer is more useful?
    outputs: [output, baseline]
"""
CLAIMS = ("facts", "concise", "tone", "better")

# An answer: the behaviour served, and what the row resting on it must say:
# per claim "pass"/"fail" (binary), a score (scale), a winner (pairwise), or None when
# the answer cannot be used.


@dataclass(frozen=True)
class Answer:
    behaviour: b.Behaviour
    verdict: Any = None  # None: not usable

    def __repr__(self) -> str:  # shorter shrunk examples
        raw = repr(self.behaviour)
        return f"Answer({raw[:300]}, verdict={self.verdict!r})"


# Tool input pieces.

_odd_text = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["", "ünïcödé ✓ 判断 \u202e", "line\nbreak\ttab", "\x00nul", "x" * 20_000]),
)
_served = st.sampled_from([b.ECHO, b.ECHO, b.ECHO, "claude-served-other", "клод-μ 2"])
_extra = st.dictionaries(st.sampled_from(["note", "confidence", "ιδ"]), st.integers(), max_size=1)


def _answer(tool_input: Any, verdict: Any, model: str | None) -> Answer:
    return Answer(b.tool_use(tool_input, model=model), verdict)


def _criteria(count: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    one = st.fixed_dictionaries(
        {"criterion": _odd_text, "reasoning": _odd_text, "met": st.booleans()}
    )
    return st.lists(one, min_size=count, max_size=count)


@st.composite
def _binary_entry(draw: st.DrawFn, claim: str) -> tuple[dict[str, Any], str]:
    criteria = draw(_criteria(1)) if claim == "facts" else draw(_criteria(draw(st.integers(0, 2))))
    passed = draw(st.booleans())
    entry = {"id": claim, "criteria": criteria, "reasoning": draw(_odd_text), "pass": passed}
    entry.update(draw(_extra))
    status = "pass" if passed and all(c["met"] for c in criteria) else "fail"
    return entry, status


@st.composite
def valid_binary(draw: st.DrawFn) -> Answer:
    facts, facts_status = draw(_binary_entry("facts"))
    concise, concise_status = draw(_binary_entry("concise"))
    results = draw(st.permutations([facts, concise]))
    return _answer(
        {"results": results}, {"facts": facts_status, "concise": concise_status}, draw(_served)
    )


_WRONG_VALUES = st.sampled_from([None, "true", "false", 1, 0, [], {}, "1", 4.5])


@st.composite
def broken_binary(draw: st.DrawFn) -> Answer:
    facts, _ = draw(_binary_entry("facts"))
    concise, _ = draw(_binary_entry("concise"))
    results: Any = [facts, concise]
    how = draw(
        st.sampled_from(
            ["drop", "retype", "pass_text", "missing", "duplicate", "unknown", "criteria", "empty"]
        )
    )
    entry = results[draw(st.integers(0, 1))]
    if how == "drop":
        del entry[draw(st.sampled_from(["id", "criteria", "reasoning", "pass"]))]
    elif how == "retype":
        key = draw(st.sampled_from(["id", "criteria", "reasoning", "pass"]))
        # Of the wrong values, a text is still a reasoning, and [] still criteria.
        entry[key] = draw(
            _WRONG_VALUES.filter(
                lambda v: (
                    not (key == "reasoning" and isinstance(v, str))
                    and not (key == "criteria" and v == [])
                )
            )
        )
    elif how == "pass_text":
        entry["pass"] = draw(st.sampled_from(["true", "false", "yes", "True"]))
    elif how == "missing":
        results = [entry]
    elif how == "duplicate":
        results = [facts, concise, dict(entry)]
    elif how == "unknown":
        entry["id"] = draw(st.sampled_from(["Facts", "facts ", "tone", "", "ιδ"]))
    elif how == "criteria":
        facts["criteria"] = draw(st.sampled_from([[], facts["criteria"] * 2]))
    else:
        results = draw(st.sampled_from([[], "facts", None]))
    return _answer({"results": results}, None, draw(_served))


@st.composite
def valid_scale(draw: st.DrawFn) -> Answer:
    score = draw(st.integers(1, 5))
    written: Any = draw(st.sampled_from([score, float(score)]))
    entry = {"id": "tone", "reasoning": draw(_odd_text), "score": written, **draw(_extra)}
    return _answer({"results": [entry]}, score, draw(_served))


@st.composite
def broken_scale(draw: st.DrawFn) -> Answer:
    entry: dict[str, Any] = {"id": "tone", "reasoning": draw(_odd_text), "score": 4}
    how = draw(st.sampled_from(["range", "type", "drop", "id"]))
    if how == "range":
        entry["score"] = draw(st.sampled_from([0, 6, -1, 10**30, -(10**30)]))
    elif how == "type":
        entry["score"] = draw(
            st.sampled_from(["4", True, None, 4.5, float("nan"), float("inf"), [4]])
        )
    elif how == "drop":
        del entry[draw(st.sampled_from(["id", "reasoning", "score"]))]
    else:
        entry["id"] = draw(st.sampled_from(["facts", "Tone", ""]))
    return _answer({"results": [entry]}, None, draw(_served))


@st.composite
def valid_pairwise(draw: st.DrawFn) -> Answer:
    winner = draw(st.sampled_from(["1", "2", "tie", 1, 2]))
    tool_input = {"winner": winner, "reasoning": draw(_odd_text), **draw(_extra)}
    return _answer(tool_input, str(winner), draw(_served))


@st.composite
def broken_pairwise(draw: st.DrawFn) -> Answer:
    tool_input: dict[str, Any] = {"winner": "1", "reasoning": draw(_odd_text)}
    if draw(st.booleans()):
        tool_input["winner"] = draw(st.sampled_from(["3", 3, 0, True, None, "Tie", "A", ""]))
    else:
        del tool_input[draw(st.sampled_from(["winner", "reasoning"]))]
    return _answer(tool_input, None, draw(_served))


VALID = {BINARY: valid_binary(), SCALE: valid_scale(), PAIRWISE: valid_pairwise()}
BROKEN = {BINARY: broken_binary(), SCALE: broken_scale(), PAIRWISE: broken_pairwise()}

# Waits stay tiny: retryable errors ask for a few milliseconds.
_QUICK = {"retry-after-ms": "2"}


@st.composite
def unusable(draw: st.DrawFn, tool: str) -> Answer:
    """A reply or failure whose call yields no verdict."""
    valid = draw(VALID[tool]).behaviour.tool_input
    behaviour = draw(
        st.sampled_from(
            [
                b.text_only("I think it passes."),
                b.text_only(""),
                b.refusal(),
                b.max_tokens(valid),
                b.max_tokens(None),
                b.Behaviour("model_context_window_exceeded", tool_input=valid),
                b.no_model(valid or {}),
                b.tool_use(valid or {}, model=""),
                b.tool_use(valid or {}, model="   "),
                b.tool_use([valid]),  # type: ignore[arg-type]  # input that is not an object
                b.tool_use("pass"),  # type: ignore[arg-type]
                b.http_error(400, "prompt is too long"),
                b.http_error(401, f"invalid x-api-key: {KEY}"),
                b.http_error(403, "forbidden"),
                b.http_error(404, "model not found"),
                b.http_error(413, "request too large"),
                b.http_error(408, "timeout", headers=_QUICK),
                b.http_error(409, "conflict", headers=_QUICK),
                b.rate_limited(retry_after=None, retry_after_ms=3),
                b.rate_limited(retry_after=0.005),
                b.rate_limited(retry_after=30),  # longer than max_wait: given up at once
                b.server_error(headers=_QUICK),
                b.overloaded(headers=_QUICK),
                b.http_error(503, f"upstream said {KEY}", headers=_QUICK),
                b.malformed(),  # retried after the phase's own backoff (0.5 s)
            ]
        )
    )
    return Answer(behaviour)


def answer(tool: str) -> st.SearchStrategy[Answer]:
    usable = VALID[tool].flatmap(
        lambda a: st.sampled_from([a, Answer(b.delayed(0.02, a.behaviour), a.verdict)])
    )
    return st.one_of(usable, BROKEN[tool], unusable(tool))


def default_answer(tool: str) -> Answer:
    """What a request gets once its scripted answers are spent: a usable verdict."""
    if tool == BINARY:
        results = [
            {"id": c, "criteria": [{"criterion": "c", "reasoning": "r", "met": True}] * (c == "facts"),
             "reasoning": "fine", "pass": True}
            for c in ("facts", "concise")
        ]  # fmt: skip
        return Answer(b.tool_use({"results": results}), {"facts": "pass", "concise": "pass"})
    if tool == SCALE:
        return Answer(b.tool_use({"results": [{"id": "tone", "reasoning": "ok", "score": 5}]}), 5)
    return Answer(b.tool_use({"winner": "tie", "reasoning": "same"}), "tie")


# Requests: (case id, tool, order) with order "ab" or "ba" for pairwise, "" otherwise.
RequestKey = tuple[str, str, str]
_CASE = re.compile(r"\[case (k\d)\]")


def request_key(body: dict[str, Any]) -> RequestKey:
    tool = body["tool_choice"]["name"]
    content = body["messages"][0]["content"]
    text = content if isinstance(content, str) else "".join(x.get("text", "") for x in content)
    match = _CASE.search(text)
    assert match is not None, text
    case = match.group(1)
    order = ""
    if tool == PAIRWISE:
        order = "ab" if text.index(f"{case} OUTPUT-A") < text.index(f"{case} OUTPUT-B") else "ba"
    return case, tool, order


@dataclass
class ScriptedServer:
    """Serves each request its drawn answers in turn, and remembers what it served."""

    scripts: dict[RequestKey, list[Answer]]
    served: dict[RequestKey, list[Answer]] = field(default_factory=lambda: defaultdict(list))
    models: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> b.Behaviour:
        key = request_key(body)
        with self.lock:
            queue = self.scripts.get(key, [])
            given = queue.pop(0) if queue else default_answer(key[1])
            self.served[key].append(given)
            model = given.behaviour.model
            if given.behaviour.kind != "error":
                self.models.add(str(body["model"]) if model == b.ECHO else str(model))
        return given.behaviour


def expected_rows(served: dict[RequestKey, list[Answer]], case: str) -> dict[str, Any]:
    """Per claim: ("pass"|"fail", score) from the last answers served, or "error"."""
    out: dict[str, Any] = {}
    binary = served[(case, BINARY, "")][-1].verdict
    for claim in ("facts", "concise"):
        out[claim] = "error" if binary is None else (binary[claim], float(binary[claim] == "pass"))
    score = served[(case, SCALE, "")][-1].verdict
    out["tone"] = "error" if score is None else ("pass" if score >= 4 else "fail", (score - 1) / 4)
    first = served[(case, PAIRWISE, "ab")][-1].verdict
    second = served[(case, PAIRWISE, "ba")][-1].verdict
    if first is None or second is None:
        out["better"] = "error"
    else:
        outcome, _ = combine_orders(first, second)
        out["better"] = {"a": ("pass", 1.0), "b": ("fail", 0.0), "tie": ("pass", 0.5)}[outcome]
    return out


def run_once(
    folder: Path, responder: Any, cases: list[CaseLine], limits: CallLimits
) -> tuple[str, list[Any], bool]:
    """One run into ``folder/gaps.db``: its run id, its rows and whether the store audits."""
    loaded = load_contract(folder / "contract.yaml")
    db = folder / "gaps.db"
    run_id = new_run_id()
    with MessagesServer(default=responder) as server, SqliteStore(db) as store:
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        cleared = ("ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL")
        with mock.patch.dict(os.environ, env):
            for name in cleared:
                os.environ.pop(name, None)
            plan = build_plan(loaded)
            phase = make_judge_phase(
                loaded, plan=plan, mode="live", store_path=str(db), recordings=None,
                limits=limits, run_id=run_id,
            )  # fmt: skip
            runner = Runner(
                loaded, store, plan=plan, model_phase=phase, options=RunOptions(run_id=run_id)
            )
            run_sync(runner, cases)
        rows = list(store.iter_rows(run_id))
        audit_ok = audit_store(store).ok
    return run_id, rows, audit_ok


_KEYS = ((BINARY, ""), (SCALE, ""), (PAIRWISE, "ab"), (PAIRWISE, "ba"))
_limits = st.builds(
    CallLimits,
    concurrency=st.sampled_from([1, 3, 8]),
    timeout=st.just(10.0),
    retries=st.integers(0, 2),
    retry_budget=st.sampled_from([0, 1, 100]),
    max_wait=st.just(1.0),
)


@st.composite
def scripts(draw: st.DrawFn, cases: int) -> dict[RequestKey, list[Answer]]:
    drawn: dict[RequestKey, list[Answer]] = {}
    for case in range(cases):
        for tool, order in _KEYS:
            drawn[(f"k{case}", tool, order)] = draw(st.lists(answer(tool), max_size=3))
    return drawn


@settings(
    max_examples=int(os.environ.get("JUDGE_PROPERTY_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), cases=st.integers(2, 4), limits=_limits)
def test_any_judge_answers_give_trustworthy_rows(
    data: st.DataObject, cases: int, limits: CallLimits
) -> None:
    script = data.draw(scripts(cases), label="script")
    lines = [
        CaseLine(
            n + 1,
            f"k{n}",
            {"id": f"k{n}", "input": f"Brief {n}.",
             "output": f"Answer [case k{n}] k{n} OUTPUT-A", "baseline": f"k{n} OUTPUT-B"},
        )
        for n in range(cases)
    ]  # fmt: skip
    server = ScriptedServer({k: list(v) for k, v in script.items()})
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "contract.yaml").write_text(CONTRACT, encoding="utf-8")
        _, rows, audit_ok = run_once(folder, server, lines, limits)
        assert audit_ok
        check_rows(rows, server, cases, limits)

        # Rerun over the same store against a server that always answers well: what was
        # a verdict is replayed from the cache, what was an error is asked again.
        again = ScriptedServer({})
        _, rerun, audit_ok = run_once(folder, again, lines, limits)
        assert audit_ok
        bodies = {(r.case_id, r.claim_id): json.loads(r.body) for r in rerun}
        assert len(rerun) == cases * len(CLAIMS)
        first = {(r.case_id, r.claim_id): json.loads(r.body) for r in rows}
        for key, body in bodies.items():
            assert body["status"] in ("pass", "fail"), (key, body["reason"])
            if first[key]["status"] != "error":
                assert (body["status"], body["score"]) == (
                    first[key]["status"],
                    first[key]["score"],
                ), key


def check_rows(rows: list[Any], server: ScriptedServer, cases: int, limits: CallLimits) -> None:
    assert sorted((r.case_id, r.claim_id) for r in rows) == sorted(
        (f"k{n}", c) for n in range(cases) for c in CLAIMS
    )
    for key, answers in server.served.items():
        # A call is retried at most ``retries`` times per failure, twice for a verdict.
        assert len(answers) <= 2 * (1 + limits.retries), key
    for row in rows:
        assert KEY not in row.body and "FAKE-KEY" not in row.body
        body = json.loads(row.body)
        want = expected_rows(server.served, row.case_id)[row.claim_id]
        where = (row.case_id, row.claim_id, body["reason"][:200])
        if want == "error":
            assert body["status"] == "error", where
            assert body["score"] is None and body["reason"].strip(), where
            assert "\n" not in body["reason"], where
            continue
        assert (body["status"], body["score"]) == want, where
        triple = body["evidence"]["judge"]
        assert triple_problems(triple) == [], where
        assert triple["model_id"] in server.models, where
        tool = {"tone": SCALE, "better": PAIRWISE}.get(row.claim_id, BINARY)
        order = "ab" if tool == PAIRWISE else ""
        last = server.served[(row.case_id, tool, order)][-1].behaviour
        assert triple["model_id"] == (MODEL if last.model == b.ECHO else last.model), where
