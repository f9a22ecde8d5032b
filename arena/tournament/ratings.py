"""Ratings with error bars: a multiplayer skill rating, and Elo for two-player results.

Two families, for two questions:

- **Plackett-Luce skill** (:class:`SkillRatings`, :func:`skill_ratings`): any table size. Each
  finished match updates the ratings of its bots from their ranks, with the Weng-Lin Bayesian
  approximation of the Plackett-Luce model as implemented by `openskill`_ (Weng and Lin, "A
  Bayesian Approximation Method for Online Ranking", JMLR 12, 2011). A bot's skill is a normal
  belief ``mu ± sigma``; the standings are ordered by the conservative estimate
  ``mu - 3 * sigma`` (a value the true skill exceeds with about 99.9% probability), so a bot with
  few games and a lucky start does not top the table over one that has proved itself. The
  updates are online: the result is a deterministic function of the matches *and their order*,
  so feed them in schedule order (table index), not in the order they happened to finish.
- **Elo** (:func:`elo_from_games`, :func:`elo_from_pairs`, :func:`elo_from_counts`): two bots.
  The mean score per game ``s`` (win 1, draw 1/2, loss 0) gives the logistic Elo difference
  ``-400 * log10(1/s - 1)``; the 95% confidence interval is the normal approximation of the
  mean's standard error, mapped through the same function; the likelihood of superiority (LOS)
  is the probability, under that normal approximation, that the true score exceeds 1/2. This is
  fishtest's ``get_elo`` (official-stockfish/fishtest, ``server/fishtest/stats/stat_util.py``).
  It is computed two ways: from single games (*trinomial*: loss, draw, win) and from the two
  games of a duplicate deal taken as one sample (*pentanomial*: the pair scores 0, 1/2, 1, 3/2
  or 2). Pairing removes the luck of the deal from the variance: when a deal favours one seat,
  both bots sit in it once and the pair's score is near 1, so the pentanomial interval is the
  honest (and usually narrower) one; the trinomial one treats correlated games as independent.

.. _openskill: https://openskill.me
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from openskill.models import PlackettLuce, PlackettLuceRating

#: How many standard deviations the conservative estimate subtracts from the mean.
CONSERVATIVE_Z = 3.0

#: The model's prior: openskill's (and TrueSkill's) defaults, mu 25 and sigma 25/3.
PRIOR_MU = 25.0
PRIOR_SIGMA = 25.0 / 3.0

#: Two-sided 95%: the standard normal quantile 0.975 (1.959963984540054).
Z95 = NormalDist().inv_cdf(0.975)

_STANDARD_NORMAL = NormalDist()


# --- Plackett-Luce skill ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SkillRating:
    """One entrant's Plackett-Luce skill.

    Attributes:
        entrant: the entrant's index.
        mu: the mean of the skill belief.
        sigma: its standard deviation (shrinks as the entrant plays).
        matches: the number of matches rated.
    """

    entrant: int
    mu: float
    sigma: float
    matches: int

    @property
    def conservative(self) -> float:
        """``mu - 3 * sigma``: the skill the entrant is almost surely above; the sort key."""
        return self.mu - CONSERVATIVE_Z * self.sigma

    def __str__(self) -> str:
        return f"{self.mu:.2f} ± {self.sigma:.2f}"


class SkillRatings:
    """Plackett-Luce ratings of a fixed set of entrants, updated match by match.

    The model is openskill's ``PlackettLuce`` with its default prior (mu 25, sigma 25/3, beta
    25/6) and ``tau = 0``: a bot is a fixed program whose strength does not drift during a
    tournament, so the dynamics term, meant for people who improve between games, is off and
    sigma only shrinks.

    Args:
        n_entrants: how many entrants; they are numbered from 0.
    """

    def __init__(self, n_entrants: int) -> None:
        if n_entrants < 1:
            raise ValueError(f"need at least one entrant, not {n_entrants}")
        self._model = PlackettLuce(mu=PRIOR_MU, sigma=PRIOR_SIGMA, tau=0.0)
        self._ratings: list[PlackettLuceRating] = [self._model.rating() for _ in range(n_entrants)]
        self._matches = [0] * n_entrants

    def record(self, entrants: Sequence[int], ranks: Sequence[int]) -> None:
        """Rate one finished match.

        Args:
            entrants: the entrant in each seat, in seat order (all different).
            ranks: each seat's finishing rank, lower is better; equal ranks are a tie (a drawn
                match gives every tied seat the same rank). See :func:`match_ranks`.

        Raises:
            ValueError: fewer than two seats, a repeated or unknown entrant, or a rank count
                that does not match the seats.
        """
        if len(entrants) < 2 or len(ranks) != len(entrants):
            raise ValueError("a rated match needs two or more seats, each with a rank")
        if len(set(entrants)) != len(entrants):
            raise ValueError(f"an entrant appears twice at one table: {tuple(entrants)}")
        for entrant in entrants:
            if not 0 <= entrant < len(self._ratings):
                raise ValueError(f"no entrant {entrant}")
        teams = [[self._ratings[e]] for e in entrants]
        rated = self._model.rate(teams, ranks=[float(r) for r in ranks])
        for entrant, team in zip(entrants, rated, strict=True):
            self._ratings[entrant] = team[0]
            self._matches[entrant] += 1

    def rating(self, entrant: int) -> SkillRating:
        """The current rating of one entrant."""
        r = self._ratings[entrant]
        return SkillRating(entrant, float(r.mu), float(r.sigma), self._matches[entrant])

    def standings(self) -> list[SkillRating]:
        """Every entrant, best first: by conservative estimate, then mu, then entrant index."""
        ratings = [self.rating(e) for e in range(len(self._ratings))]
        return sorted(ratings, key=lambda r: (-r.conservative, -r.mu, r.entrant))


def skill_ratings(
    n_entrants: int, matches: Iterable[tuple[Sequence[int], Sequence[int]]]
) -> list[SkillRating]:
    """Rate every match in order and return the standings, best first.

    Args:
        n_entrants: how many entrants.
        matches: ``(entrants, ranks)`` per finished match, in a fixed order (the schedule's),
            as for :meth:`SkillRatings.record`.

    Returns:
        Every entrant's rating, ordered by the conservative estimate ``mu - 3 sigma``.
    """
    table = SkillRatings(n_entrants)
    for entrants, ranks in matches:
        table.record(entrants, ranks)
    return table.standings()


def match_ranks(
    scores: Sequence[int], ranking: Sequence[int], retired: Iterable[int] = ()
) -> tuple[int, ...]:
    """Each seat's rank (0 best) from a match result, with ties for equal scores.

    Seats still in play rank by score, equal scores sharing a rank (a drawn match ranks the
    leaders equal); retired seats (crashes, timeouts, illegal moves) rank below every seat
    still in play, in the order of ``ranking`` (the later-retired above the earlier).

    Args:
        scores: the final score of each seat (``MatchResult.scores``).
        ranking: seats best first (``MatchResult.ranking``).
        retired: the seats that left the match before the end.

    Returns:
        One rank per seat, in seat order: ``(0, 1)`` for a win of seat 0, ``(0, 0)`` for a draw.
    """
    gone = set(retired)
    ranks = [0] * len(scores)
    active = [s for s in ranking if s not in gone]
    for seat in active:
        ranks[seat] = sum(1 for other in active if scores[other] > scores[seat])
    for offset, seat in enumerate(s for s in ranking if s in gone):
        ranks[seat] = len(active) + offset
    return tuple(ranks)


# --- Elo ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """An Elo difference with its 95% confidence interval and likelihood of superiority.

    Attributes:
        elo: the point estimate, ``-400 * log10(1/score - 1)``; ``+inf``/``-inf`` when every
            sample was won/lost (``saturated``), 0 with no samples.
        lo: the lower end of the 95% interval (``-inf`` when unbounded).
        hi: the upper end of the 95% interval (``+inf`` when unbounded).
        los: the likelihood of superiority, P(true score > 1/2), in [0, 1].
        n: the number of samples: games (trinomial) or game pairs (pentanomial).
        score: the mean score per game, in [0, 1] (1/2 with no samples).
        saturated: every sample was a win (or every one a loss), so the Elo is infinite and the
            interval's finite end comes from the Wilson score bound instead of the normal
            approximation (whose standard error would be 0).
    """

    elo: float
    lo: float
    hi: float
    los: float
    n: int
    score: float
    saturated: bool = False

    @property
    def error(self) -> float:
        """Half the interval's width in Elo (fishtest's ``elo95``); ``inf`` when unbounded."""
        return (self.hi - self.lo) / 2.0

    def __str__(self) -> str:
        if self.n == 0:
            return "no games"
        return f"{self.elo:+.1f} [{self.lo:+.1f}, {self.hi:+.1f}] LOS {100 * self.los:.1f}%"


def elo_of_score(score: float) -> float:
    """The logistic Elo difference of a mean score: ``-400 * log10(1/score - 1)``.

    Returns ``+inf`` for a score of 1 and ``-inf`` for 0 (e.g. 0.75 gives 190.85).
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a score is in [0, 1], not {score}")
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no "-0.0" for a score of 1/2


def score_of_elo(elo: float) -> float:
    """The expected score of an Elo difference, ``1 / (1 + 10^(-elo/400))`` (fishtest's ``L``)."""
    exponent = -elo / 400.0
    if exponent > 300.0:  # 10^300 is past any real difference; avoid the float overflow
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def trinomial(scores: Iterable[float]) -> tuple[int, int, int]:
    """Count single-game scores as ``(losses, draws, wins)`` (index = score in half points)."""
    counts = [0, 0, 0]
    for score in scores:
        counts[half_points(score)] += 1
    return counts[0], counts[1], counts[2]


def pentanomial(pairs: Iterable[tuple[float, float]]) -> tuple[int, int, int, int, int]:
    """Count game pairs by their total score in half points: LL, LD, WL+DD, WD, WW.

    Args:
        pairs: one bot's scores (1, 1/2 or 0) in the two games of each duplicate deal.

    Returns:
        The five frequencies; index ``i`` counts the pairs scoring ``i / 2``.
    """
    counts = [0, 0, 0, 0, 0]
    for first, second in pairs:
        counts[half_points(first) + half_points(second)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def elo_from_games(scores: Iterable[float]) -> EloEstimate:
    """Elo of one bot over another from single games (the trinomial model).

    Args:
        scores: the bot's score in each game: 1 for a win, 0.5 for a draw, 0 for a loss.
    """
    return elo_from_counts(trinomial(scores))


def elo_from_pairs(pairs: Iterable[tuple[float, float]]) -> EloEstimate:
    """Elo of one bot over another from duplicate-deal pairs (the pentanomial model).

    Args:
        pairs: the bot's scores in the two games played on the same deal (once in each seat).
    """
    return elo_from_counts(pentanomial(pairs))


def elo_from_counts(counts: Sequence[int]) -> EloEstimate:
    """Elo, 95% interval and LOS from trinomial or pentanomial frequencies.

    Each sample (a game, or a pair of games) is scored per game in [0, 1]: ``i / (len - 1)``
    for index ``i``. With ``N`` samples of mean ``s`` and variance ``v``, the interval is
    ``s ± 1.96 * sqrt(v / N)`` mapped to Elo (fishtest's ``get_elo``), and
    ``LOS = Phi((s - 1/2) / sqrt(v / N))``. Two edge cases the normal approximation cannot
    handle are treated apart:

    - every sample won (lost): Elo ``+inf`` (``-inf``), ``saturated`` set; the finite end of
      the interval is the Wilson score bound ``N / (N + 1.96^2)`` (resp. its mirror) and LOS is
      ``Phi(sqrt(N))``, the Wilson confidence that the score is above 1/2;
    - every sample equal but not extreme (all draws): the empirical variance is 0, so the
      largest variance a mean-``s`` score in [0, 1] can have, ``s (1 - s)``, is used instead.

    Args:
        counts: 3 frequencies (losses, draws, wins) or 5 (pair scores 0, 1/2, 1, 3/2, 2).

    Raises:
        ValueError: not 3 or 5 counts, or a negative count.
    """
    if len(counts) not in (3, 5) or any(c < 0 for c in counts):
        raise ValueError(f"expected 3 or 5 non-negative counts, not {tuple(counts)}")
    n = sum(counts)
    if n == 0:
        return EloEstimate(0.0, -math.inf, math.inf, 0.5, 0, 0.5)
    top = len(counts) - 1
    score = sum(c * i for i, c in enumerate(counts)) / (top * n)
    if counts[top] == n or counts[0] == n:
        won = counts[top] == n
        bound = n / (n + Z95 * Z95)
        los = _STANDARD_NORMAL.cdf(math.sqrt(n))
        if won:
            return EloEstimate(math.inf, elo_of_score(bound), math.inf, los, n, 1.0, True)
        return EloEstimate(-math.inf, -math.inf, elo_of_score(1 - bound), 1 - los, n, 0.0, True)
    variance = sum(c * (i / top - score) ** 2 for i, c in enumerate(counts)) / n
    if variance <= 0.0:
        variance = score * (1.0 - score)
    stderr = math.sqrt(variance / n)
    lo = elo_of_score(min(1.0, max(0.0, score - Z95 * stderr)))
    hi = elo_of_score(min(1.0, max(0.0, score + Z95 * stderr)))
    los = _STANDARD_NORMAL.cdf((score - 0.5) / stderr)
    return EloEstimate(elo_of_score(score), lo, hi, los, n, score)


def half_points(score: float) -> int:
    """A single game's score (0, 0.5 or 1) as a number of half points (0, 1 or 2).

    Raises:
        ValueError: any other score.
    """
    half = round(score * 2)
    if half not in (0, 1, 2) or abs(score * 2 - half) > 1e-9:
        raise ValueError(f"a game scores 0, 0.5 or 1, not {score}")
    return half
