"""The system under test: producing each case's output before its claims are checked.

A contract's ``sut:`` block (``verifier.contract.sut_models.SutSpec``) or
``verifier run --sut`` names a command, a Python function or a prompt on a pinned
model; ``make_stage`` builds the stage the runner calls for every chunk of cases.
"""

from verifier.errors import SutError
from verifier.sut.setup import ModelAccess, make_stage, masked_description, parse_sut_option
from verifier.sut.stage import SutStage

__all__ = [
    "ModelAccess",
    "SutError",
    "SutStage",
    "make_stage",
    "masked_description",
    "parse_sut_option",
]
