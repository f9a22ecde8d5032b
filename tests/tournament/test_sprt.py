"""The SPRT: Wald's bounds, the GSPRT log-likelihood ratio, and decisions on simulated play."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.tournament.ratings import score_of_elo
from arena.tournament.sprt import Sprt, bounds, llr_approx, llr_logistic
from tests.tournament.test_ratings import game, paired_games

#: Give up on a simulated test after this many samples (counted as a wrong decision).
MAX_SAMPLES = 5000


def test_bounds_are_walds() -> None:
    """alpha = beta = 0.05 gives -ln 19 and ln 19; other error rates give their own logs."""
    assert bounds(0.05, 0.05) == (math.log(0.05 / 0.95), math.log(0.95 / 0.05))
    assert bounds(0.05, 0.05)[1] == pytest.approx(2.9444389791664403, abs=1e-15)
    lower, upper = bounds(0.05, 0.1)
    assert lower == math.log(0.1 / 0.95)
    assert upper == math.log(0.9 / 0.05)
    test = Sprt(0.0, 5.0, 0.01, 0.2)
    assert (test.lower, test.upper) == (math.log(0.2 / 0.99), math.log(0.8 / 0.01))
    with pytest.raises(ValueError, match="alpha"):
        bounds(0.6, 0.5)
    with pytest.raises(ValueError, match="elo0"):
        Sprt(5.0, 0.0)


def constrained_mle_llr(counts: list[int], s0: float, s1: float) -> float:
    """The trinomial GSPRT LLR by brute force: maximise the likelihood over every (L, D, W)
    distribution with mean s, for s = s0 and s = s1, by golden-section search on the draw
    probability (given the mean, the draw probability fixes the distribution)."""
    n = sum(counts)
    freq = [(c if c else 1e-3) / sum(c if c else 1e-3 for c in counts) for c in counts]

    def best(s: float) -> float:
        def loglik(d: float) -> float:
            w = s - d / 2
            loss = 1 - w - d
            return sum(f * math.log(p) for f, p in zip(freq, (loss, d, w), strict=True))

        lo, hi = 1e-12, min(2 * s, 2 * (1 - s)) - 1e-12
        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(200):
            a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            if loglik(a) < loglik(b):
                lo = a
            else:
                hi = b
        return loglik((lo + hi) / 2)

    return n * (best(s1) - best(s0))


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [([30, 40, 50], 0.0, 10.0), ([120, 300, 90], -5.0, 5.0), ([5, 0, 20], 0.0, 50.0)],
)
def test_llr_is_the_generalized_likelihood_ratio(
    counts: list[int], elo0: float, elo1: float
) -> None:
    """The secular-equation LLR equals a brute-force constrained maximum likelihood ratio."""
    expected = constrained_mle_llr(counts, score_of_elo(elo0), score_of_elo(elo1))
    assert llr_logistic(elo0, elo1, counts) == pytest.approx(expected, abs=1e-6)


@given(
    st.lists(st.integers(0, 400), min_size=5, max_size=5).filter(lambda c: sum(c) > 0),
    st.floats(-20, 20),
    st.floats(1, 20),
)
def test_llr_properties(counts: list[int], elo0: float, width: float) -> None:
    """The LLR is finite, flips sign when the hypotheses swap, and is 0 for equal hypotheses."""
    elo1 = elo0 + width
    forward = llr_logistic(elo0, elo1, counts)
    assert math.isfinite(forward)
    assert llr_logistic(elo1, elo0, counts) == pytest.approx(-forward, abs=1e-7)
    assert llr_logistic(elo0, elo0, counts) == pytest.approx(0.0, abs=1e-9)


def test_closed_form_approximation_agrees_on_large_samples() -> None:
    """Near the hypotheses, fishtest's closed form is within a percent of the exact LLR."""
    for counts in ([1187, 7410, 13475, 7378, 1164], [10789, 19328, 33806, 19402, 10543]):
        exact, approx = llr_logistic(-3.0, 1.0, counts), llr_approx(-3.0, 1.0, counts)
        assert approx == pytest.approx(exact, rel=0.01, abs=0.01)
    assert llr_logistic(0.0, 5.0, [0, 0, 0]) == llr_approx(0.0, 5.0, [0, 0, 0]) == 0.0


def test_more_wins_raise_the_llr() -> None:
    """Turning a loss into a win, or a draw into a win, raises the LLR."""
    base = llr_logistic(0.0, 10.0, [40, 30, 40])
    assert llr_logistic(0.0, 10.0, [39, 30, 41]) > base
    assert llr_logistic(0.0, 10.0, [40, 29, 41]) > base
    assert llr_logistic(0.0, 10.0, [0, 0, 10]) > 0 > llr_logistic(0.0, 10.0, [10, 0, 0])


def run(test: Sprt, rng: random.Random, true_elo: float) -> str:
    """Feed simulated results at ``true_elo`` until the test decides (or the cap)."""
    s = score_of_elo(true_elo)
    for _ in range(MAX_SAMPLES):
        if test.paired:
            status = test.add_pair(*paired_games(rng, s, 0.3, 0.3))
        else:
            status = test.add_game(game(rng, s, 0.3))
        if status != "continue":
            return status
    return "undecided"


@pytest.mark.parametrize("paired", [False, True])
def test_sprt_accepts_the_true_hypothesis(paired: bool) -> None:
    """elo0 = 0, elo1 = 40, alpha = beta = 0.05: with the truth at elo1, H1 wins at least 88%
    of 150 seeded runs; with the truth at elo0, H0 wins at least 88% (nominally 95%)."""
    rng = random.Random(11 if paired else 12)
    at_elo1 = [run(Sprt(0.0, 40.0, paired=paired), rng, 40.0) for _ in range(150)]
    at_elo0 = [run(Sprt(0.0, 40.0, paired=paired), rng, 0.0) for _ in range(150)]
    assert at_elo1.count("H1") >= 0.88 * 150
    assert at_elo0.count("H0") >= 0.88 * 150


def test_sprt_decides_quickly_when_the_gap_is_large() -> None:
    """A bot 200 Elo stronger is accepted as better by elo1 = 40 in every run."""
    rng = random.Random(13)
    assert {run(Sprt(0.0, 40.0), rng, 200.0) for _ in range(30)} == {"H1"}
    assert {run(Sprt(0.0, 40.0), rng, -200.0) for _ in range(30)} == {"H0"}


def test_the_decision_is_kept_once_reached() -> None:
    """Results after the decision are counted but do not reopen or flip it."""
    test = Sprt(0.0, 40.0, paired=False)
    while test.status == "continue":
        test.add_game(1.0)
    assert test.status == "H1"
    assert test.llr >= test.upper
    wins = test.counts[2]
    for _ in range(200):
        assert test.add_game(0.0) == "H1"
    assert test.llr < test.lower
    assert test.counts == (200, 0, wins)
    assert test.n == 200 + wins


def test_feeding_the_wrong_kind_of_result_is_refused() -> None:
    """A paired test takes pairs, a game test takes games."""
    with pytest.raises(ValueError, match="add_pair"):
        Sprt(0.0, 5.0).add_game(1.0)
    with pytest.raises(ValueError, match="add_game"):
        Sprt(0.0, 5.0, paired=False).add_pair(1.0, 0.0)
    test = Sprt(0.0, 5.0)
    test.add_pair(1.0, 0.5)
    assert test.counts == (0, 0, 0, 1, 0)
    assert test.llr == llr_logistic(0.0, 5.0, [0, 0, 0, 1, 0])
