"""Contract format v1 as frozen pydantic models.

A contract is a YAML mapping: an id and version, the fields an LLM wrote, the pinned
judges, and the claims. A claim has exactly one shape: ``rubric:`` (a deterministic
predicate), ``judge:`` (a pinned LLM judge) or ``compare:`` (two outputs scored
against each other). Every model forbids unknown keys, so a typo is an error rather
than a silently ignored setting.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import (
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from verifier.contract._base import ProviderName, _Frozen, provider_field
from verifier.contract._base import Sampling as Sampling
from verifier.contract.cases_spec import CasesSpec
from verifier.contract.compare_claims import CompareClaim as CompareClaim
from verifier.contract.findings import FindingsClaim
from verifier.contract.overall import Overall, overall_problem
from verifier.contract.rubric_claims import RUBRIC_CLAIM_MODELS, ClaimCommon
from verifier.contract.sut_models import SutSpec
from verifier.fieldpath import compile_path
from verifier.gaps.content import RecordPolicy
from verifier.rubric._base import PathText
from verifier.rubric._scales import Fraction

ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"
MAX_CONTRACT_VERSION = 2**31 - 1
"""The largest version every store holds: PostgreSQL keeps it in an ``INTEGER`` column."""


class Scale(_Frozen):
    """A judge's score scale with the score at which the claim passes."""

    min: int = Field(description="Lowest score.")
    max: int = Field(description="Highest score.")
    pass_at: int = Field(description="A score at or above this passes.")
    anchors: dict[int, str] = Field(
        default_factory=dict, description="What a score means, by score."
    )

    @model_validator(mode="after")
    def _ordered(self) -> Scale:
        if self.min >= self.max:
            raise ValueError(f"scale min ({self.min}) must be below max ({self.max})")
        if not self.min <= self.pass_at <= self.max:
            raise ValueError(f"pass_at ({self.pass_at}) must lie within [{self.min}, {self.max}]")
        outside = [k for k in self.anchors if not self.min <= k <= self.max]
        if outside:
            raise ValueError(f"anchors {outside} lie outside the scale [{self.min}, {self.max}]")
        return self


class Critique(_Frozen):
    """A critique claim: the judge lists the weaknesses it finds, and their count scores.

    ``points[n]`` are the points (0-100) for ``n`` weaknesses; the last entry counts for
    that many or more. The claim's score is those points / 100; it passes at ``pass_at``
    points or more (the default passes only when nothing is found).
    """

    points: tuple[int, ...] = Field(
        default=(100, 75, 50, 25),
        min_length=2,
        description="Points for 0, 1, 2, ... weaknesses found (the last: that many or more); "
        "descending integers 0-100.",
    )
    pass_at: int = Field(default=100, description="The claim passes at this many points or more.")

    @model_validator(mode="after")
    def _descending(self) -> Critique:
        outside = [p for p in self.points if not 0 <= p <= 100]
        if outside:
            raise ValueError(f"critique points {outside} lie outside 0-100")
        if any(a <= b for a, b in zip(self.points, self.points[1:], strict=False)):
            raise ValueError(f"critique points {list(self.points)} must be strictly descending")
        if not self.points[-1] <= self.pass_at <= self.points[0]:
            raise ValueError(
                f"pass_at ({self.pass_at}) must lie within the points "
                f"[{self.points[-1]}, {self.points[0]}]"
            )
        return self


class Compliance(_Frozen):
    """A compliance claim: how well the output follows the instructions it was given.

    The judge names the sections of the instructions followed well and poorly, with
    evidence, and an overall compliance in [0, 1], which is the claim's score.
    """

    pass_at: Fraction = Field(
        default=0.5, description="The claim passes at this overall compliance (0-1) or more."
    )


class StoredPrompt(_Frozen):
    """A prompt kept at the vendor (an OpenAI stored prompt), named by id and version."""

    id: str = Field(min_length=1, description="The vendor's prompt id (`pmpt_...`).")
    version: str | None = Field(
        default=None,
        description="The pinned version of the prompt; required (`verifier check` refuses "
        "a stored prompt without one, as the vendor would serve whatever version is current).",
    )

    @field_validator("version", mode="before")
    @classmethod
    def _version_as_text(cls, value: Any) -> Any:
        # The vendor numbers versions; YAML reads `version: 3` as an integer.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class JudgeSpec(_Frozen):
    """A pinned judge: provider, exact model, prompt template and sampling."""

    provider: ProviderName = provider_field("Who answers the judge calls.")
    model: str = Field(min_length=1, description="An exact, pinned model id (no moving aliases).")
    prompt: str | None = Field(
        default=None,
        description="Prompt template relative to the contract; default: the built-in one.",
    )
    stored_prompt: StoredPrompt | None = Field(
        default=None,
        description="A prompt kept at the vendor instead of a template (provider openai: "
        "the Responses API with a stored prompt's id and version).",
    )
    sampling: Sampling = Field(default_factory=Sampling)
    samples: int = Field(
        default=1, ge=1, le=15, description="Calls per judgment; >1 takes the majority."
    )
    group: Literal["case", "claim"] = Field(
        default="claim", description="One call per case and judge, or one per claim."
    )
    base_url: str | None = Field(
        default=None,
        description="Endpoint: an OpenAI-compatible server's, or a Foundry resource's "
        "(`https://RESOURCE.services.ai.azure.com/anthropic/`).",
    )
    region: str | None = Field(
        default=None,
        min_length=1,
        description="Where a `bedrock` or `vertex` judge is called (`us-east-1`, `us-east5`).",
    )
    project: str | None = Field(
        default=None, min_length=1, description="The Google Cloud project of a `vertex` judge."
    )
    pinned: bool = Field(
        default=True,
        description=(
            "false: accept a model id that is not a pinned snapshot (its verdicts may "
            "move); check then warns instead of refusing it."
        ),
    )


class Reference(_Frozen):
    """Material from the case that a judge compares the output with, shown as fenced data.

    A reference answer is judged, never string-compared: an expected output is one
    acceptable answer, not the only one.
    """

    expected: PathText | None = Field(
        default=None, description="Field path of an expected (good) output."
    )
    bad: PathText | None = Field(
        default=None, description="Field path of a known bad output the output must not resemble."
    )
    why: PathText | None = Field(
        default=None, description="Field path of why the bad output is bad (with `bad`)."
    )
    instructions: PathText | None = Field(
        default=None, description="Field path of the instructions the output was meant to follow."
    )

    @model_validator(mode="after")
    def _something_to_compare(self) -> Reference:
        if self.expected is None and self.bad is None and self.instructions is None:
            raise ValueError("a reference needs at least one of expected, bad or instructions")
        if self.why is not None and self.bad is None:
            raise ValueError("`why` explains a bad output: give `bad` too")
        return self

    def paths(self) -> dict[str, str]:
        """The reference's roles and their field paths, in the order the judge reads them."""
        roles = {
            "instructions": self.instructions,
            "expected": self.expected,
            "bad": self.bad,
            "why": self.why,
        }
        return {role: path for role, path in roles.items() if path is not None}


class JudgeClaim(ClaimCommon):
    """A claim answered by a pinned LLM judge."""

    judge: str = Field(description="Name of a judge declared under `judges`.")
    instruction: str = Field(min_length=1, description="The behaviour the output must show.")
    criteria: tuple[str, ...] = Field(
        default=(), description="Questions the judge answers; all must hold."
    )
    scale: Scale | None = Field(default=None, description="Score on a scale instead of pass/fail.")
    field: PathText = Field(default="output", description="The field judged.")
    reference: Reference | None = Field(
        default=None,
        description="Case fields the judge compares the output with: an expected or known-bad "
        "output, or the instructions given (reference-guided judging).",
    )
    # After `scale` and `reference`: fields validate in order, and these two's checks
    # read those (so an error names the key the reader must change).
    critique: Critique | None = Field(
        default=None, description="List the weaknesses found instead; their count scores."
    )
    compliance: Compliance | None = Field(
        default=None,
        description="Score how well the output follows instructions instead "
        "(needs `reference: {instructions: PATH}`).",
    )

    @field_validator("critique", "compliance")
    @classmethod
    def _one_verdict_kind(cls, value: Any, info: ValidationInfo) -> Any:
        earlier = [k for k in ("scale", "critique") if info.data.get(k) is not None]
        if value is not None and earlier:
            raise ValueError(
                f"a judge claim takes at most one of scale, critique, compliance; "
                f"this claim also has {earlier[0]}"
            )
        return value

    @field_validator("compliance")
    @classmethod
    def _shows_instructions(cls, value: Any, info: ValidationInfo) -> Any:
        # A reference that failed validation is absent from info.data: reported already.
        if value is None or "reference" not in info.data:
            return value
        reference = info.data["reference"]
        if reference is None or reference.instructions is None:
            raise ValueError(
                "a compliance claim needs `reference: {instructions: PATH}`: the judge "
                "must see the instructions the output was meant to follow"
            )
        return value


def _claim_shape(value: Any) -> str | None:
    if isinstance(value, dict):
        for shape in ("rubric", "compare", "judge"):
            if shape in value:
                return shape
        return None
    for shape in ("rubric", "compare", "judge"):
        if hasattr(value, shape):
            return shape
    return None


def claim_union(rubric_names: Iterable[str]) -> Any:
    """A claim's type: one of the shapes, the rubric ones limited to ``rubric_names``
    (by their ``rubric`` key), judge and compare always."""
    compare = Annotated[
        Union[CompareClaim, FindingsClaim],  # noqa: UP007
        Field(discriminator="compare"),
    ]
    shapes: list[Any] = [
        Annotated[JudgeClaim, Tag("judge")],
        Annotated[compare, Tag("compare")],
    ]
    rubric_models: Any = tuple(RUBRIC_CLAIM_MODELS[name] for name in rubric_names)
    if rubric_models:
        rubric = Annotated[Union[rubric_models], Field(discriminator="rubric")]  # noqa: UP007
        shapes.insert(0, Annotated[rubric, Tag("rubric")])
    return Annotated[
        Union[tuple(shapes)],  # noqa: UP007
        Discriminator(
            _claim_shape,
            custom_error_type="claim_shape",
            custom_error_message="a claim needs exactly one of `rubric`, `judge` or `compare`",
        ),
    ]


if TYPE_CHECKING:
    Claim = Union[Any, JudgeClaim, CompareClaim, FindingsClaim]  # noqa: UP007
else:

    class Claim:
        """Any claim the format knows; its schema, which takes every predicate's claim
        model, is made when ``Contract``'s is first built."""

        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
            return handler.generate_schema(claim_union(RUBRIC_CLAIM_MODELS))


class RecordSpec(_Frozen):
    """What the gap store keeps of each case's content (the ``record:`` block)."""

    content: Literal["full", "hashes", "none"] = Field(
        default="full",
        description="full: store each case's content; hashes: only its SHA-256 in every row; "
        "none: neither. Under hashes and none no row keeps text of the case: evidence keeps "
        "positions and lengths, reasons mark quoted text [withheld].",
    )
    redact: tuple[PathText, ...] = Field(
        default=(),
        description="Field paths (`*` allowed) whose values never reach the store: the content "
        "keeps their hash, and rows' reasons and evidence show [redacted] instead.",
    )
    max_bytes: int | None = Field(
        default=None,
        gt=0,
        strict=True,
        description="Texts longer than this many UTF-8 bytes are stored cut, with the hash and "
        "length of the whole.",
    )

    def policy(self) -> RecordPolicy:
        """The policy a run applies (``verifier.gaps.content.RecordPolicy``)."""
        return RecordPolicy(content=self.content, redact=self.redact, max_bytes=self.max_bytes)


class Contract(_Frozen):
    """A verification contract (format v1)."""

    contract: str = Field(pattern=ID_PATTERN, description="Contract id.")
    version: int = Field(
        ge=1,
        le=MAX_CONTRACT_VERSION,
        description="Integer version, bumped by the author.",
    )
    description: str | None = None
    llm_fields: tuple[str, ...] = Field(
        default=(), description="Fields an LLM wrote; equality on them is rejected."
    )
    parse_json: tuple[PathText, ...] = Field(
        default=(),
        description="Field paths (`*` allowed) holding JSON text, such as a logged `output`: "
        "each is parsed once per case, before any claim reads it, so `output.total` finds "
        "the value inside.",
    )
    threshold: Fraction = Field(
        default=1.0, description="A case passes when its score (0-1) >= this."
    )
    judges: dict[str, JudgeSpec] = Field(default_factory=dict)
    sut: SutSpec | None = Field(
        default=None, description="The system under test: produce outputs instead of reading them."
    )
    record: RecordSpec = Field(
        default_factory=RecordSpec,
        description="What the gap store keeps of each case's content.",
    )
    cases: CasesSpec | None = Field(
        default=None, description="Read each cases line as a production log line, mapped."
    )
    claims: tuple[Claim, ...] = Field(min_length=1)
    # After `claims`: its check reads them (and an error names `overall`).
    overall: Overall | None = Field(
        default=None,
        description="A case's overall score: the weighted mean of its scale claims' scores on "
        "their own scale, reported beside the pass share, with `revise_below`.",
    )

    @field_validator("overall")
    @classmethod
    def _overall_made(cls, value: Overall | None, info: ValidationInfo) -> Overall | None:
        # Claims that failed validation are absent from info.data: reported already.
        if value is None or "claims" not in info.data:
            return value
        problem = overall_problem(value, info.data["claims"])
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("parse_json", mode="before")
    @classmethod
    def _paths_listed(cls, value: Any) -> Any:
        if isinstance(value, str):
            raise ValueError(f"parse_json is a list of field paths: write [{value}]")
        return value

    @field_validator("llm_fields")
    @classmethod
    def _paths_compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for path in value:
            compile_path(path)  # a FieldPathError is a ValueError: pydantic reports it
        return value

    def claim(self, claim_id: str) -> Any:
        """Returns the claim with this id, or raises ``KeyError``."""
        for claim in self.claims:
            if claim.id == claim_id:
                return claim
        raise KeyError(claim_id)


def claim_kind(claim: Any) -> Literal["rubric", "judge", "comparative"]:
    """The gap-row kind a claim produces (a findings claim is checked without a model,
    with the rubric claims: its rows are rubric rows)."""
    if isinstance(claim, CompareClaim):
        return "comparative"
    if isinstance(claim, JudgeClaim):
        return "judge"
    return "rubric"
