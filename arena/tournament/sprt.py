"""The sequential probability ratio test of chess engine testing (fishtest's SPRT).

Question: is bot A stronger than bot B by ``elo1`` (H1) rather than by only ``elo0`` (H0)?
Games are played until the log-likelihood ratio (LLR) of the results leaves the interval
``(lower, upper)`` with Wald's bounds (Wald, "Sequential Tests of Statistical Hypotheses", 1945)::

    lower = ln(beta / (1 - alpha))      # at or below: accept H0
    upper = ln((1 - beta) / alpha)      # at or above: accept H1

where ``alpha`` is the false-positive rate (accepting H1 when the truth is ``elo0``) and
``beta`` the false-negative rate (accepting H0 when the truth is ``elo1``).

The LLR is the *generalized* SPRT (GSPRT) of fishtest, with no draw model (the "logistic" Elo
model, free of BayesElo's draw Elo): both hypotheses are about the expected score per game,
``s0 = L(elo0)`` and ``s1 = L(elo1)`` with ``L(e) = 1 / (1 + 10^(-e/400))``, and each is given
the most likely result distribution with that expectation. With the observed frequencies
``p_i`` of the scores ``a_i`` (a game's 0, 1/2, 1, or a duplicate pair's 0, 1/4, ..., 1 per game)
over ``N`` samples::

    LLR = N * sum_i p_i * ln(p1_i / p0_i),    pK_i = p_i / (1 + x_K * (a_i - sK))

where ``x_K`` solves ``sum_i p_i (a_i - sK) / (1 + x_K (a_i - sK)) = 0`` (the maximum-likelihood
distribution with mean ``sK``: Van den Bergh, "A note on the maximum likelihood estimate of a
multinomial distribution with a given expectation value", support_MLE_multinomial.pdf,
Proposition 1.1; implemented in fishtest as ``LLRcalc.LLR_logistic``). Zero frequencies are
replaced by 1e-3 first, as fishtest's ``regularize`` does, so an all-wins run has a finite LLR.
:func:`llr_approx` is the closed-form approximation of the same quantity,
``N (s1 - s0)(2 s - s0 - s1) / (2 var)`` (fishtest's ``LLR_alt2``, from GSPRT_approximation.pdf),
equal to ``(N/2) * ((s - s0)^2 - (s - s1)^2) / var``.

Paired games (pentanomial) are the right unit for duplicate deals: the two games of one deal
are correlated, and treating them as one sample makes the LLR honest and the test shorter.

Not implemented: fishtest's dynamic overshoot correction of the bounds (Siegmund, Sequential
Analysis, Corollary 8.33), which only matters when results arrive in batches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from arena.tournament.ratings import half_points, score_of_elo

SprtStatus = Literal["continue", "H0", "H1"]

#: The pseudo-count fishtest puts in an empty frequency cell before computing the LLR.
REGULARIZE = 1e-3


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``.

    Raises:
        ValueError: alpha or beta outside (0, 1), or alpha + beta >= 1.
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"need 0 < alpha, beta and alpha + beta < 1, not {alpha}, {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def llr_logistic(elo0: float, elo1: float, counts: Sequence[int]) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``).

    Args:
        elo0: the Elo difference under H0 (logistic Elo).
        elo1: the Elo difference under H1.
        counts: 3 frequencies (losses, draws, wins) or 5 (pair scores 0, 1/2, 1, 3/2, 2).

    Returns:
        The LLR; 0 with no results.
    """
    total, pdf = _pdf(counts)
    if total == 0:
        return 0.0
    s0, s1 = score_of_elo(elo0), score_of_elo(elo1)
    x0, x1 = _secular(pdf, s0), _secular(pdf, s1)
    return total * sum(p * (math.log1p(x0 * (a - s0)) - math.log1p(x1 * (a - s1))) for a, p in pdf)


def llr_approx(elo0: float, elo1: float, counts: Sequence[int]) -> float:
    """The closed-form GSPRT approximation ``N (s1 - s0)(2 s - s0 - s1) / (2 var)``.

    ``s`` and ``var`` are the (regularized) mean and variance of the per-game score of a
    sample; close to the exact :func:`llr_logistic` when ``s0`` and ``s1`` are near ``s``.
    """
    total, pdf = _pdf(counts)
    if total == 0:
        return 0.0
    s0, s1 = score_of_elo(elo0), score_of_elo(elo1)
    mean = sum(p * a for a, p in pdf)
    var = sum(p * (a - mean) ** 2 for a, p in pdf)
    return total * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


class Sprt:
    """An SPRT fed with results one at a time.

    Feed single games with :meth:`add_game` (trinomial) or duplicate-deal pairs with
    :meth:`add_pair` (pentanomial), not both. :attr:`status` is ``"continue"`` until the LLR
    first reaches a bound, then the decision, kept for good: results that arrive afterwards
    (games already running when the test stopped) are still counted in :attr:`counts` and
    :attr:`llr` but do not reopen the test.

    Args:
        elo0: H0's Elo difference (e.g. 0: "no better").
        elo1: H1's Elo difference, larger than elo0 (e.g. 5: "better by 5 Elo").
        alpha: the probability of accepting H1 when the truth is elo0.
        beta: the probability of accepting H0 when the truth is elo1.
        paired: count results as pentanomial pairs (True) or trinomial games (False).
    """

    def __init__(
        self,
        elo0: float,
        elo1: float,
        alpha: float = 0.05,
        beta: float = 0.05,
        *,
        paired: bool = True,
    ) -> None:
        if not elo0 < elo1:
            raise ValueError(f"elo0 must be below elo1, not {elo0} >= {elo1}")
        self.elo0 = elo0
        self.elo1 = elo1
        self.alpha = alpha
        self.beta = beta
        self.paired = paired
        self.lower, self.upper = bounds(alpha, beta)
        self._counts = [0] * (5 if paired else 3)
        self._llr = 0.0
        self._status: SprtStatus = "continue"

    @property
    def counts(self) -> tuple[int, ...]:
        """The frequencies so far: (L, D, W) games, or pairs scoring 0, 1/2, 1, 3/2, 2."""
        return tuple(self._counts)

    @property
    def n(self) -> int:
        """Samples so far: games, or pairs when paired."""
        return sum(self._counts)

    @property
    def llr(self) -> float:
        """The current log-likelihood ratio (:func:`llr_logistic` of :attr:`counts`)."""
        return self._llr

    @property
    def status(self) -> SprtStatus:
        """``"continue"``, or the decision: ``"H0"`` (not better by elo1), ``"H1"`` (better)."""
        return self._status

    def add_game(self, score: float) -> SprtStatus:
        """Count one game (score 1, 0.5 or 0 for the bot under test) and return the status."""
        if self.paired:
            raise ValueError("this test counts duplicate-deal pairs: use add_pair")
        return self._add(half_points(score))

    def add_pair(self, first: float, second: float) -> SprtStatus:
        """Count the two games of one duplicate deal and return the status."""
        if not self.paired:
            raise ValueError("this test counts single games: use add_game")
        return self._add(half_points(first) + half_points(second))

    def _add(self, index: int) -> SprtStatus:
        self._counts[index] += 1
        self._llr = llr_logistic(self.elo0, self.elo1, self._counts)
        if self._status == "continue":
            if self._llr >= self.upper:
                self._status = "H1"
            elif self._llr <= self.lower:
                self._status = "H0"
        return self._status


def _pdf(counts: Sequence[int]) -> tuple[int, list[tuple[float, float]]]:
    """The sample count and the regularized empirical distribution ``[(score, p), ...]``."""
    if len(counts) not in (3, 5) or any(c < 0 for c in counts):
        raise ValueError(f"expected 3 or 5 non-negative counts, not {tuple(counts)}")
    total = sum(counts)
    weights = [float(c) if c > 0 else REGULARIZE for c in counts]
    mass = sum(weights)
    top = len(counts) - 1
    return total, [(i / top, w / mass) for i, w in enumerate(weights)]


def _secular(pdf: Sequence[tuple[float, float]], s: float) -> float:
    """Solve ``sum_i p_i d_i / (1 + x d_i) = 0`` with ``d_i = a_i - s`` for ``x``.

    The left side falls strictly on ``(-1 / max d, -1 / min d)``, where it runs from ``+inf``
    to ``-inf``, so the root is unique; Newton steps kept inside a shrinking bracket (bisection
    when a step leaves it) find it to machine precision in a few iterations.
    """
    d = [a - s for a, _ in pdf]
    lo, hi = -1.0 / max(d), -1.0 / min(d)

    def f(x: float) -> tuple[float, float]:
        value = slope = 0.0
        for di, (_, p) in zip(d, pdf, strict=True):
            q = 1.0 + x * di
            value += p * di / q
            slope -= p * di * di / (q * q)
        return value, slope

    x = 0.0
    for _ in range(200):
        value, slope = f(x)
        if value == 0.0:
            return x
        if value > 0.0:
            lo = x
        else:
            hi = x
        step = x - value / slope
        x = step if lo < step < hi else (lo + hi) / 2.0
        if hi - lo <= 1e-15 * max(1.0, abs(x)) or abs(value) < 1e-15:
            break
    return x
