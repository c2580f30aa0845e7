"""Score differences kept a byte or so a pair, and Wilcoxon's test read from their counts."""

from __future__ import annotations

from fractions import Fraction

from verifier.compare.score_differences import ScoreDifferences, difference_counts
from verifier.compare.signed_rank import rank_groups, signed_ranks, wilcoxon_signed_rank


def _many(n: int) -> list[Fraction]:
    """``n`` differences in tenths and hundredths, ties and zeros among them."""
    return [Fraction((i * 37) % 21 - 10, 10 if i % 3 else 100) for i in range(n)]


def test_differences_keep_their_order_and_values_past_every_index_width() -> None:
    values = [Fraction(i, 70_001) for i in range(70_000)] + [Fraction(1, 2), Fraction(0)]
    kept = ScoreDifferences(values)
    assert len(kept) == len(values)
    assert kept == values and list(kept) == values
    assert kept[65_600] == values[65_600] and kept[-1] == 0
    assert kept[1:4] == tuple(values[1:4])
    assert kept != values[:-1]


def test_keyed_appends_make_each_difference_once() -> None:
    kept = ScoreDifferences()
    made: list[tuple[float, float]] = []

    def make(pair: tuple[float, float]) -> Fraction:
        made.append(pair)
        return Fraction(pair[0]) - Fraction(pair[1])

    for pair in [(1.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]:
        kept.append_keyed(pair, lambda p=pair: make(p))
    assert made == [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)]
    assert kept == (1, -1, 1, 0, 0)
    assert kept.counts() == {Fraction(1): 2, Fraction(-1): 1, Fraction(0): 2}


def test_wilcoxon_from_counts_equals_wilcoxon_on_every_difference() -> None:
    for n in (7, 40, 3_000):  # exact and normal
        differences = _many(n)
        kept = ScoreDifferences(differences)
        assert wilcoxon_signed_rank(kept) == wilcoxon_signed_rank(list(differences))
        groups, positive = rank_groups(difference_counts(kept))
        ranks, positive_too = signed_ranks(differences)
        assert positive == positive_too
        assert sum(size for _, size in groups) == len(ranks)
        assert sorted(r for r, size in groups for _ in range(size)) == sorted(ranks)


def test_the_median_counts_zeros_and_averages_the_middle_two() -> None:
    kept = ScoreDifferences([Fraction(1, 10), Fraction(0), Fraction(-3, 10), Fraction(1, 2)])
    assert wilcoxon_signed_rank(kept).median_difference == float(Fraction(1, 20))
    assert wilcoxon_signed_rank(ScoreDifferences([Fraction(0)] * 3)).method == "none"
