"""The starter project ``verifier init`` writes: a contract, its cases, a judge
template with its explanation, and recorded verdicts so the first run needs no key.

The files are package data (``data/``) with the contract's name filled in. The
recordings are not shipped: they are made when the files are written, by running the
new contract in ``record`` mode against a stand-in judge that answers from verdicts
written by hand (``verdicts``), so their cache keys are exactly the ones a replay of
that contract computes, whatever version of verifier wrote them.
"""

from __future__ import annotations

from verifier.scaffold.files import (
    DEFAULT_NAME,
    Scaffold,
    ScaffoldError,
    plan_scaffold,
    write_scaffold,
)

__all__ = ["DEFAULT_NAME", "Scaffold", "ScaffoldError", "plan_scaffold", "write_scaffold"]
