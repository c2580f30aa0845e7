"""An import of an optional extra's module: one line naming the extra when it is missing."""

from __future__ import annotations

import pytest

from verifier._internal.extras import extra_installed, install_line, needs_extra
from verifier.errors import MissingExtraError, VerifierError


def test_a_missing_module_of_the_extra_is_one_line_naming_the_extra() -> None:
    with pytest.raises(MissingExtraError) as caught, needs_extra("stats", "Pearson's correlation"):
        raise ModuleNotFoundError("No module named 'scipy.stats'", name="scipy.stats")
    assert str(caught.value) == (
        "Pearson's correlation needs the stats extra: pip install 'verifier-llm[stats]'"
    )
    assert "\n" not in str(caught.value) and isinstance(caught.value, VerifierError)
    assert str(caught.value) == install_line("stats", "Pearson's correlation")


def test_a_missing_module_of_no_extra_stays_the_import_error_it_is() -> None:
    with pytest.raises(ModuleNotFoundError), needs_extra("stats", "Krippendorff's alpha"):
        raise ModuleNotFoundError("No module named 'pandas'", name="pandas")


def test_the_block_imports_what_is_installed() -> None:
    with needs_extra("stats", "Spearman's correlation"):
        from scipy import stats
    assert stats.spearmanr([1, 2, 3], [1, 2, 4]).statistic == pytest.approx(1.0)
    assert extra_installed("stats")  # the dev install holds the extra
