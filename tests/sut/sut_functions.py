"""Python functions used as the system under test by the tests."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from typing import Any

_calls = itertools.count()


def answer(text: str) -> str:
    """Answers with a cited sentence."""
    return f"You asked: {text}. [source: Handbook]"


async def answer_async(text: str) -> str:
    await asyncio.sleep(0.01)
    return f"Async answer to {text}. [source: Handbook]"


def structured(question: dict[str, Any]) -> dict[str, Any]:
    return {"answer": str(question["q"]).upper(), "words": len(str(question["q"]).split())}


def explode(text: str) -> str:
    raise ValueError(f"cannot answer {text!r}")


def slow(text: str) -> str:
    time.sleep(3)
    return text


def drifting(text: str) -> str:
    """A different answer on every call: a system with no consistency at all."""
    n = next(_calls)
    return ["Paris is the capital.", "I would guess Lyon, maybe.", "No idea, sorry!"][n % 3]


def empty(text: str) -> str:
    """Answers nothing: a bot whose answer was lost before it returned."""
    return ""


def not_text(text: str) -> int:
    return 42


def sleep_for(seconds: str) -> str:
    """Sleeps the number of seconds it is given: ``30`` is a runaway, ``0`` instant."""
    time.sleep(float(seconds))
    return f"slept {seconds}. [source: Handbook]"


def counts_visits(case: dict[str, Any]) -> int:
    """Changes its input (a list it appends to) and returns how many visits it saw."""
    case["visits"].append("seen")
    return len(case["visits"])


def fails_on_boom(text: str) -> str:
    """Answers like ``answer``, except that an input containing ``boom`` raises."""
    if "boom" in text:
        raise RuntimeError("baseline broke on this case")
    return answer(text)


_MEETING = threading.Barrier(4)


def meet(text: str) -> str:
    """Returns ``together`` once four calls are inside it at once, ``alone`` when it has
    waited 20 s for them in vain: calls that overlap meet however slowly they start."""
    try:
        _MEETING.wait(20)
    except threading.BrokenBarrierError:
        return "alone"
    return f"together {text}"


_REVIEWS = (
    # The same two finding types in other words, then one of them and a new one.
    "1. [high] security: the query is built from user text\n2. [low] naming: `x` says nothing",
    "Review:\n1. [High] Security: SQL injection\n2. [low] naming: rename x\n"
    "3. [low] naming: rename y",
    "1. [high] security: unescaped input\n2. [medium] tests: no test covers the error path",
)
_review_calls = itertools.count()


def reviews(text: str) -> str:
    """A code review in numbered lines whose findings shift on the third call: types
    {security/high, naming/low} twice, then {security/high, tests/medium}."""
    return _REVIEWS[next(_review_calls) % 3]


def reviews_json(text: str) -> str:
    """``reviews`` as JSON text: a list of ``{dimension, severity, specific}``."""
    lines = re.findall(r"\[(\w+)\] (\w+): (.*)", reviews(text))
    return json.dumps([{"dimension": d, "severity": s, "specific": t} for s, d, t in lines])


def reviews_unreadable(text: str) -> str:
    """A review whose second run has a numbered line out of form."""
    return ("1. [high] security: input", "1. high security")[next(_review_calls) % 2]
