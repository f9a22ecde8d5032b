"""Ratings: Plackett-Luce skill from ranks, and Elo with confidence intervals and LOS."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.tournament.ratings import (
    PRIOR_MU,
    PRIOR_SIGMA,
    Z95,
    EloEstimate,
    SkillRatings,
    elo_from_counts,
    elo_from_games,
    elo_from_pairs,
    elo_of_score,
    match_ranks,
    pentanomial,
    score_of_elo,
    skill_ratings,
    trinomial,
)

# --- simulation helpers ---------------------------------------------------------------------


def plackett_luce_ranks(rng: random.Random, strengths: Sequence[float]) -> tuple[int, ...]:
    """Sample a finishing order under Plackett-Luce: each place goes to a remaining seat with
    probability proportional to its strength; returns each seat's rank."""
    left = list(range(len(strengths)))
    ranks = [0] * len(strengths)
    for place in range(len(strengths)):
        seat = rng.choices(left, weights=[strengths[s] for s in left])[0]
        ranks[seat] = place
        left.remove(seat)
    return tuple(ranks)


def game(rng: random.Random, score: float, draws: float) -> float:
    """One game with expected score ``score`` and draw rate ``draws`` (win 1, draw 1/2, loss 0)."""
    roll = rng.random()
    win = score - draws / 2
    return 1.0 if roll < win else 0.5 if roll < win + draws else 0.0


def paired_games(
    rng: random.Random, score: float, draws: float, decisive: float
) -> tuple[float, float]:
    """The two games of one duplicate deal, correlated like real deals.

    With probability ``decisive`` the deal wins for whoever holds seat 0, so the pair is a win
    and a loss; otherwise the games are independent with the score that keeps the overall
    expectation at ``score``.
    """
    if rng.random() < decisive:
        return (1.0, 0.0)
    rest = (score - decisive / 2) / (1 - decisive)
    return (game(rng, rest, draws), game(rng, rest, draws))


# --- Plackett-Luce --------------------------------------------------------------------------


def test_a_stronger_bot_gets_a_higher_rating() -> None:
    """Four bots of known strengths in 3-player matches end up rated in strength order."""
    rng = random.Random(1)
    strengths = [1.0, 2.0, 4.0, 8.0]
    matches = []
    for _ in range(300):
        seats = rng.sample(range(4), 3)
        matches.append((seats, plackett_luce_ranks(rng, [strengths[s] for s in seats])))
    standings = skill_ratings(4, matches)
    assert [r.entrant for r in standings] == [3, 2, 1, 0]
    mus = {r.entrant: r.mu for r in standings}
    assert mus[3] > mus[2] > mus[1] > mus[0]


def test_sigma_shrinks_with_every_game() -> None:
    """Each rated match lowers the uncertainty of the bots in it (the model has no drift)."""
    rng = random.Random(2)
    table = SkillRatings(2)
    assert table.rating(0).sigma == pytest.approx(PRIOR_SIGMA)
    previous = [PRIOR_SIGMA, PRIOR_SIGMA]
    for _ in range(50):
        table.record([0, 1], plackett_luce_ranks(rng, [1.0, 1.5]))
        sigmas = [table.rating(e).sigma for e in (0, 1)]
        assert all(now < before for now, before in zip(sigmas, previous, strict=True))
        previous = sigmas
    assert table.rating(0).matches == 50
    assert previous[0] < PRIOR_SIGMA / 2


def test_standings_are_ordered_by_the_conservative_estimate() -> None:
    """A bot with one lucky win has a higher mu but ranks below a proven bot (mu - 3 sigma)."""
    table = SkillRatings(4)
    table.record([2, 3], [0, 1])  # one win for 2
    for _ in range(40):
        table.record([0, 1], [0, 1])  # 0 beats 1 again and again
        table.record([0, 1], [1, 0])
        table.record([0, 1], [0, 1])
    lucky, proven = table.rating(2), table.rating(0)
    assert lucky.mu > proven.mu
    assert lucky.conservative < proven.conservative
    standings = table.standings()
    assert standings.index(proven) < standings.index(lucky)
    keys = [r.conservative for r in standings]
    assert keys == sorted(keys, reverse=True)
    assert str(proven) == f"{proven.mu:.2f} ± {proven.sigma:.2f}"
    assert proven.conservative == pytest.approx(proven.mu - 3 * proven.sigma)


def test_a_draw_rates_both_bots_alike() -> None:
    """Tied ranks leave two new bots level: same mu, same sigma."""
    table = SkillRatings(2)
    table.record([0, 1], [0, 0])
    assert table.rating(0).mu == pytest.approx(PRIOR_MU)
    assert table.rating(0).mu == pytest.approx(table.rating(1).mu)
    assert table.rating(0).sigma == pytest.approx(table.rating(1).sigma)


def test_ratings_are_a_function_of_the_matches_in_order() -> None:
    """The same matches in the same order give the same ratings, exactly."""
    rng = random.Random(3)
    matches = [(rng.sample(range(5), 4), plackett_luce_ranks(rng, [1.0] * 4)) for _ in range(60)]
    assert skill_ratings(5, matches) == skill_ratings(5, matches)


def test_bad_matches_are_refused() -> None:
    """A repeated bot, an unknown one, or ranks that do not fit the seats raise ValueError."""
    table = SkillRatings(3)
    with pytest.raises(ValueError, match="twice"):
        table.record([0, 0], [0, 1])
    with pytest.raises(ValueError, match="no entrant"):
        table.record([0, 3], [0, 1])
    with pytest.raises(ValueError, match="rank"):
        table.record([0, 1], [0])


@pytest.mark.parametrize(
    ("scores", "ranking", "retired", "ranks"),
    [
        ((100, 40), (0, 1), (), (0, 1)),
        ((40, 100), (1, 0), (), (1, 0)),
        ((100, 100), (0, 1), (), (0, 0)),
        ((60, 100, 60), (1, 0, 2), (), (1, 0, 1)),
        ((90, 10, 30, 20), (0, 2, 3, 1), (0,), (3, 2, 0, 1)),
        ((5, 0, 0, 0), (0, 3, 2, 1), (2, 1), (0, 3, 2, 1)),
    ],
)
def test_match_ranks_tie_equal_scores_and_put_failures_last(
    scores: tuple[int, ...],
    ranking: tuple[int, ...],
    retired: tuple[int, ...],
    ranks: tuple[int, ...],
) -> None:
    """Ranks come from scores with ties; retired bots rank below every bot still playing."""
    assert match_ranks(scores, ranking, retired) == ranks


# --- Elo ------------------------------------------------------------------------------------


def test_elo_of_known_scores() -> None:
    """A 75% score is +190.85 Elo, 50% is 0, 25% is -190.85, 90% is +381.70."""
    assert elo_of_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_of_score(0.5) == 0.0
    assert elo_of_score(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_of_score(0.9) == pytest.approx(381.70, abs=0.01)
    assert elo_from_games([1.0, 1.0, 1.0, 0.0]).elo == pytest.approx(190.85, abs=0.01)
    assert elo_from_games([1.0, 0.5]).elo == pytest.approx(190.85, abs=0.01)
    assert elo_from_pairs([(1.0, 0.5), (0.5, 1.0)]).elo == pytest.approx(190.85, abs=0.01)


@given(st.floats(-1500, 1500))
def test_score_and_elo_are_inverse(elo: float) -> None:
    """``elo_of_score(score_of_elo(e)) == e``."""
    assert elo_of_score(score_of_elo(elo)) == pytest.approx(elo, abs=1e-6)


def test_interval_is_the_normal_approximation() -> None:
    """60 wins, 20 draws, 20 losses: s = 0.7, per-game variance 0.21 - 0.7^2 + ..., by hand."""
    estimate = elo_from_counts([20, 20, 60])
    s = 0.7
    var = (20 * (0 - s) ** 2 + 20 * (0.5 - s) ** 2 + 60 * (1 - s) ** 2) / 100
    se = math.sqrt(var / 100)
    assert estimate.score == pytest.approx(s)
    assert estimate.lo == pytest.approx(elo_of_score(s - Z95 * se))
    assert estimate.hi == pytest.approx(elo_of_score(s + Z95 * se))
    assert estimate.los == pytest.approx(0.5 * (1 + math.erf((s - 0.5) / se / math.sqrt(2))))
    assert estimate.n == 100
    assert not estimate.saturated
    assert estimate.error == pytest.approx((estimate.hi - estimate.lo) / 2)


def test_counts() -> None:
    """Games count as (losses, draws, wins); pairs by their total in half points."""
    assert trinomial([1, 0.5, 0, 1]) == (1, 1, 2)
    assert pentanomial([(1, 0), (0.5, 0.5), (1, 1), (0, 0.5), (1, 0.5)]) == (0, 1, 2, 1, 1)
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        trinomial([0.25])
    with pytest.raises(ValueError, match="3 or 5"):
        elo_from_counts([1, 2, 3, 4])


def test_edge_cases() -> None:
    """No games, all wins, all losses and all draws give defined, flagged answers."""
    empty = elo_from_games([])
    assert (empty.n, empty.elo, empty.lo, empty.hi, empty.los) == (0, 0.0, -math.inf, math.inf, 0.5)
    assert str(empty) == "no games"
    wins = elo_from_games([1.0] * 10)
    assert wins.saturated
    assert wins.elo == math.inf
    assert wins.hi == math.inf
    assert wins.lo == pytest.approx(400 * math.log10(10 / Z95**2))  # Wilson: s >= n / (n + z^2)
    assert wins.los == pytest.approx(0.5 * (1 + math.erf(math.sqrt(10) / math.sqrt(2))))
    losses = elo_from_pairs([(0.0, 0.0)] * 10)
    assert losses.saturated
    assert losses.elo == -math.inf
    assert losses.lo == -math.inf
    assert losses.hi == pytest.approx(-wins.lo)
    assert losses.los == pytest.approx(1 - wins.los)
    draws = elo_from_games([0.5] * 16)
    assert not draws.saturated
    assert draws.elo == 0.0
    assert draws.los == 0.5
    assert draws.hi == pytest.approx(elo_of_score(0.5 + Z95 * 0.5 / 4))  # variance s(1 - s)
    assert draws.lo == pytest.approx(-draws.hi)


def test_los_follows_the_score() -> None:
    """An even score has LOS 1/2; more wins raise it, more losses lower it."""
    assert elo_from_counts([30, 40, 30]).los == pytest.approx(0.5)
    assert elo_from_counts([25, 40, 35]).los > 0.9
    assert elo_from_counts([35, 40, 25]).los < 0.1


@pytest.mark.parametrize("paired", [False, True])
def test_interval_covers_the_true_elo_at_about_95_percent(paired: bool) -> None:
    """200 seeded runs with a true +100 Elo: the 95% interval contains it in at least 90%."""
    rng = random.Random(5 if paired else 6)
    true_elo = 100.0
    s = score_of_elo(true_elo)
    hits = 0
    for _ in range(200):
        if paired:
            estimate = elo_from_pairs(paired_games(rng, s, 0.3, 0.3) for _ in range(150))
        else:
            estimate = elo_from_games(game(rng, s, 0.3) for _ in range(300))
        hits += estimate.lo <= true_elo <= estimate.hi
    assert hits >= 180


def test_paired_interval_is_narrower_on_correlated_deals() -> None:
    """When deals favour a seat, the pentanomial interval is narrower than the trinomial one
    over the same games, and still covers the truth."""
    rng = random.Random(7)
    s = score_of_elo(50.0)
    narrower = 0
    for _ in range(50):
        pairs = [paired_games(rng, s, 0.2, 0.5) for _ in range(200)]
        games = [score for pair in pairs for score in pair]
        by_pair, by_game = elo_from_pairs(pairs), elo_from_games(games)
        assert by_pair.elo == pytest.approx(by_game.elo)
        narrower += by_pair.error < by_game.error
    assert narrower == 50


def test_estimate_renders_as_text() -> None:
    """``str`` shows the Elo, the interval and the LOS."""
    estimate = EloEstimate(12.34, -5.0, 30.0, 0.912, 40, 0.52)
    assert str(estimate) == "+12.3 [-5.0, +30.0] LOS 91.2%"
