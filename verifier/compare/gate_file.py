"""Pre-registered gates: the file that fixes the decision rule before the runs.

A gate file says, before anything is run, which claim decides (the *primary* claim),
on which metric, in which direction, at which significance level and, for a single
run, against which threshold; what a significant regression of another claim does
(``secondary``); optionally the effect the hypothesis expects and the cases planned
for it; and it pins the contract and the cases it was written for by their SHA-256.
``verifier gate lock`` writes it and seals the same gate into the store
(``verifier.compare.gate_lock``); ``verifier run --gate`` and ``verifier compare
--gate`` refuse to decide on anything else. The contract's sha is computed as the
store computes it (over the file's source); the cases are pinned by their identity
(``verifier.compare.case_identity``: every field but the outputs), their file's
bytes recorded beside it.

The file is YAML, or JSON when its name ends in ``.json``; both are read with the
contract loader's safe YAML reader, so a problem is reported at its line. It has no
top-level ``contract:`` key, so ``verifier check DIR`` never takes it for a contract.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Final, Literal

import orjson

from verifier._internal.yaml_positions import Positions, YamlProblem, parse_yaml_with_positions
from verifier.errors import Diagnostic, VerifierError

__all__ = [
    "FINDINGS_METRICS",
    "GATE_FORMAT",
    "Direction",
    "Gate",
    "GateError",
    "GateRefused",
    "Metric",
    "SecondaryPolicy",
    "cases_sha256",
    "gate_document",
    "gate_text",
    "read_gate",
    "refuse_changed",
    "refuse_changed_files",
]

Metric = Literal["pass_rate", "mean_score", "precision", "recall", "f1"]
Direction = Literal["not-worse", "better"]
SecondaryPolicy = Literal["block", "report-only"]
METRICS: Final = ("pass_rate", "mean_score", "precision", "recall", "f1")
FINDINGS_METRICS: Final = ("precision", "recall", "f1")
"""A findings claim's measures (``verifier.findings_tally``), which take a ``margin``."""
DIRECTIONS: Final = ("not-worse", "better")
SECONDARY_POLICIES: Final = ("block", "report-only")
GATE_FORMAT: Final = 2
"""Version of the gate file's layout, written as its ``gate:`` key. Format 1 (before
gates pinned case identities and were sealed in a store) still reads."""
_FORMATS: Final = (1, GATE_FORMAT)

_HEX64: Final = re.compile(r"[0-9a-f]{64}")


class GateError(VerifierError):
    """A gate file that cannot be read or has a bad shape (one located line)."""


class GateRefused(VerifierError):
    """The inputs are not the ones the gate was locked on: nothing is decided."""


@dataclass(frozen=True, slots=True)
class Gate:
    """The decision rule fixed before the run.

    Attributes:
        contract_id: The contract's ``contract:`` id, for a reader.
        contract_sha256: SHA-256 of the contract's source, as the store records it.
        cases_sha256: SHA-256 of the cases file's bytes.
        primary_claim: The one claim whose metric decides.
        metric: ``pass_rate`` or ``mean_score`` of the primary claim, or a findings
            claim's ``precision``, ``recall`` or ``f1`` (micro for a single run; the
            paired test of a comparison is on the cases' own figures).
        direction: ``not-worse`` or ``better``.
        threshold: The value a single run's metric is held against (``run --gate``);
            ``None`` when the gate is only for comparisons.
        alpha: One-sided significance level of the comparison's paired test.
        verifier_version: The verifier that locked the gate.
        created_at: When it was locked (ISO 8601, UTC).
        schema_files: SHA-256 of each schema file the contract names, by its name
            (``None``: it names none, or the gate was locked before gates kept them).
        case_identity_sha256: SHA-256 of the cases' identities: every field but the
            outputs (``verifier.compare.case_identity``); ``None`` in a gate locked
            before gates pinned them.
        secondary_policy: ``block``: a significant regression of another claim fails
            the gate; ``report-only``: it is reported and does not decide. The file's
            key is ``secondary``.
        effect: The smallest difference in the primary pass rate the hypothesis
            expects (0.10 for 10 points), or ``None``.
        power: The power planned for ``effect``, or ``None``.
        discordant: The share of cases the plan assumed change result (``None``:
            the least the effect allows, so ``cases_needed`` is a floor).
        cases_needed: The paired cases the exact test needs for ``power`` at
            ``effect``; ``None`` without a plan, or beyond the sizes searched.
        margin: For a findings metric, the difference a comparison must show: under
            ``better`` the candidate must be better by at least this much (0.10: 10
            points), under ``not-worse`` it may be worse by up to this much.
    """

    contract_id: str
    contract_sha256: str
    cases_sha256: str
    primary_claim: str
    metric: Metric
    direction: Direction
    threshold: float | None
    alpha: float
    verifier_version: str
    created_at: str
    schema_files: dict[str, str] | None = None
    case_identity_sha256: str | None = None
    secondary_policy: SecondaryPolicy = "block"
    effect: float | None = None
    power: float | None = None
    discordant: float | None = None
    cases_needed: int | None = None
    margin: float | None = None

    def rule(self) -> str:
        """``(metric, direction, alpha A)``, as the decision line names the rule; a
        margin in percentage points, as reports print the findings figures."""
        if self.margin:
            points = f"{self.margin * 100:g} points"
            said = (
                f"better by at least {points}"
                if self.direction == "better"
                else f"not worse by more than {points}"
            )
            return f"({self.metric}, {said}, alpha {self.alpha:g})"
        return f"({self.metric}, {self.direction}, alpha {self.alpha:g})"


def cases_sha256(path: Path) -> str:
    """SHA-256 of a cases file's bytes, ``canonical.sha256_hex`` of them, read in
    blocks: a cases file can be far larger than memory.

    Raises:
        GateError: The file cannot be read.
    """
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise GateError(f"{path}: cannot read the cases file: {exc.strerror or exc}") from None


# The file's key of a field, where it is not the field's name.
_KEY_OF: Final = {"secondary_policy": "secondary"}
_FIELD_OF: Final = {key: name for name, key in _KEY_OF.items()}


def gate_document(gate: Gate) -> dict[str, Any]:
    """The gate as its file's keys hold it: what ``gate_text`` writes and a lock seals
    (so a gate read back from its file gives the document that was sealed)."""
    document = {"gate": GATE_FORMAT}
    for name, value in asdict(gate).items():
        if name in ("schema_files", "margin") and value is None:
            continue  # as gates locked before it was kept read
        document[_KEY_OF.get(name, name)] = value
    return document


def gate_text(gate: Gate, *, json: bool) -> str:
    """The gate file's text: YAML with a comment saying what it is, or JSON."""
    document = gate_document(gate)
    if json:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"
    head = (
        "# Pre-registered gate for `verifier run --gate` and `verifier compare --gate`:\n"
        "# the decision rule, fixed before the runs. Commit it with the contract.\n"
    )
    # Each value as a JSON scalar, which YAML reads back as written: a sha of digits
    # and one "e" stays a string, where a plain YAML scalar would become a number.
    return head + "".join(f"{k}: {orjson.dumps(v).decode()}\n" for k, v in document.items())


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check(key: str, value: Any) -> str | None:
    """What is wrong with one key's value, or ``None``."""
    if key == "gate":
        known = value in _FORMATS and isinstance(value, int) and not isinstance(value, bool)
        return None if known else f"must be {GATE_FORMAT} (or 1, as older gates wrote it)"
    if key in ("contract_sha256", "cases_sha256", "case_identity_sha256"):
        ok = isinstance(value, str) and _HEX64.fullmatch(value) is not None
        return None if ok else "must be 64 lowercase hexadecimal digits"
    if key == "secondary":
        return None if value in SECONDARY_POLICIES else "must be one of: block, report-only"
    if key == "margin":
        in_range = value is None or (_number(value) and 0 <= value < 1)
        return None if in_range else "must be a number from 0 to below 1, or null"
    if key in ("effect", "discordant"):
        in_range = value is None or (_number(value) and 0 < value <= 1)
        return None if in_range else "must be a number above 0, at most 1, or null"
    if key == "power":
        in_range = value is None or (_number(value) and 0 < value < 1)
        return None if in_range else "must be a number above 0, below 1, or null"
    if key == "cases_needed":
        counted = isinstance(value, int) and not isinstance(value, bool) and value > 0
        return None if value is None or counted else "must be a whole number above 0, or null"
    if key == "metric":
        return None if value in METRICS else "must be one of: " + ", ".join(METRICS)
    if key == "direction":
        return None if value in DIRECTIONS else "must be one of: " + ", ".join(DIRECTIONS)
    if key == "threshold":
        in_range = value is None or (_number(value) and 0 <= value <= 1)
        return None if in_range else "must be a number from 0 to 1, or null"
    if key == "schema_files":
        ok = isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(v, str) and _HEX64.fullmatch(v) is not None
            for k, v in value.items()
        )
        return None if ok else "must map each schema file's name to its sha256"
    if key == "alpha":
        return None if _number(value) and 0 < value < 0.5 else "must be a number above 0, below 0.5"
    return None if isinstance(value, str) and value else "must be a non-empty string"


_KEYS: Final = ("gate", *(_KEY_OF.get(f.name, f.name) for f in fields(Gate)))
_OPTIONAL: Final = (
    "schema_files",
    "case_identity_sha256",
    "secondary",
    "effect",
    "power",
    "discordant",
    "cases_needed",
    "margin",
)


def _located(path: Path, positions: Positions, loc: tuple[str, ...], message: str) -> GateError:
    line, col = positions.of(loc)
    return GateError(str(Diagnostic(str(path), line, col, message)))


def read_gate(path: Path) -> Gate:
    """Reads and checks a gate file.

    Raises:
        GateError: The file cannot be read, is not YAML or JSON, or has an unknown or
            missing key or a bad value; the message names its line.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise GateError(f"{path}: cannot read the gate file: {exc.strerror or exc}") from None
    try:
        data, positions = parse_yaml_with_positions(raw)
    except YamlProblem as exc:
        raise GateError(str(Diagnostic(str(path), exc.line, exc.col, exc.message))) from None
    if not isinstance(data, dict):
        raise _located(path, positions, (), "a gate file is a mapping of keys (see gate lock)")
    for key, value in data.items():
        if key not in _KEYS:
            line, col = positions.of((key,), key=True)
            raise GateError(
                str(Diagnostic(str(path), line, col, f"unknown key {key!r} in a gate file"))
            )
        problem = _check(key, value)
        if problem is not None:
            raise _located(path, positions, (key,), f"{key} {problem}")
    missing = [k for k in _KEYS if k not in data and k not in _OPTIONAL]
    if missing:
        raise _located(path, positions, (), "missing key(s): " + ", ".join(missing))
    values: dict[str, Any] = {_FIELD_OF.get(str(k), str(k)): v for k, v in data.items()}
    del values["gate"]
    for name in ("alpha", "threshold", "effect", "power", "discordant", "margin"):
        if values.get(name) is not None:
            values[name] = float(values[name])
    return Gate(**values)


def refuse_changed(what: str, actual: str, locked: str) -> None:
    """Refuses when ``actual`` (a sha) is not the one the gate was locked on.

    Raises:
        GateRefused: ``WHAT changed since the gate was locked (sha X, gate has Y)``.
    """
    if actual != locked:
        raise GateRefused(
            f"{what} changed since the gate was locked (sha {actual}, gate has {locked})"
        )


def refuse_changed_files(
    actual: Mapping[str, Any], locked: Mapping[str, str] | None, of: str = ""
) -> None:
    """Refuses when a schema file the gate locked (or the contract names now) is not
    the one it was locked on; a gate that kept none checks none.

    Raises:
        GateRefused: ``schema file NAME changed since the gate was locked (...)``.
    """
    if locked is None:
        return
    for name in sorted({*actual, *locked}):
        was = str(actual.get(name, "none"))
        refuse_changed(f"schema file {name}{of}", was, locked.get(name, "none"))
