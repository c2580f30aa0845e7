"""``--sut`` and ``--variant`` of ``verifier run``: the systems named on the command
line, as :class:`~verifier.Sut` and :class:`~verifier.Variants` for the library.
Imported only when ``run`` runs."""

from __future__ import annotations

from pathlib import Path

from verifier.contract.load import LoadedContract
from verifier.errors import SutError
from verifier.files import FileScope
from verifier.run.assembly import Sut
from verifier.run.options import Variants
from verifier.sut.setup import parse_sut_option, parse_variant_option

__all__ = ["systems_of"]


def systems_of(
    loaded: LoadedContract, sut_option: str | None, variants: tuple[str, ...]
) -> tuple[Sut | None, Variants | None]:
    """The system ``--sut`` names, or the two ``--variant`` names (each over the
    contract's own ``sut:`` block, their paths resolved from the current directory).

    Raises:
        SutError: A bad spec or a combination that makes no sense.
    """
    declared = loaded.contract.sut
    here = FileScope.anywhere(Path.cwd())
    if variants:
        if sut_option:
            raise SutError("--sut and --variant exclude each other (each variant names its system)")
        if len(variants) != 2:
            raise SutError(
                f"--variant needs exactly two variants (baseline, candidate), got {len(variants)}"
            )
        named = [parse_variant_option(text, base=declared) for text in variants]
        a, b = (Sut(spec, here, variant=name) for name, spec in named)
        return None, Variants(a, b)
    if sut_option:
        return Sut(parse_sut_option(sut_option, base=declared), here), None
    return None, None
