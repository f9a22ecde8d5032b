"""The match layer's game target (rules.md 2.11, decided for every way a Fives score can reach 100).

A game may expose ``match_target`` (Fives: 100): the match ends with reason ``"target"`` as soon
as any score reaches it, during a hand (the engine's ``HandEnd.TARGET``) or through a hand's
award (a domino or a block), and also when the match is played for a fixed number of hands.
Matador has no such target: its matches end as their length says.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import pytest

from arena.games.api import DRAW, PASS, Deal, Move, play
from arena.games.fives import FIVES, TARGET, FivesRules, FivesState
from arena.games.fives import start_hand as fives_start
from arena.games.matador import MATADOR, MatadorRules
from arena.games.matador import deal as matador_deal
from arena.games.matador import start_hand as matador_start
from arena.games.match import Match, MatchLength, hand_leader, match_target, start_match
from arena.games.tiles import ALL_TILES, Tile, make_tile

_ENDS = {"w": "west", "e": "east", "n": "north", "s": "south"}

#: No double dealt: A leads 3-6 and goes out on its sixth play (tests/games/fives/test_rules.py).
DOMINO = (
    [(3, 6), (2, 5), (0, 1), (1, 4), (2, 4), (4, 5), (3, 5)],
    [(2, 6), (0, 3), (1, 5), (1, 2), (3, 4), (0, 5), (1, 6)],
)
DOMINO_LINE = (
    "2-6 e2, 2-5 e5, 0-3 w0, 0-1 w1, 1-5 e1, 1-4 w4, 1-2 e2, 2-4 e4, 3-4 w3, 4-5 e5, 0-5 e0, 3-5 w5"
)
#: L2 of the rule tests: B leads 4-4, counts 10 once, and wins the block by 16 (more_points).
L2_HANDS = (
    [(0, 1), (0, 4), (1, 4), (2, 3), (3, 5), (4, 5), (5, 6)],
    [(0, 2), (1, 5), (2, 2), (2, 5), (3, 3), (3, 4), (4, 4)],
)
L2_STOCK = [
    (1, 2), (2, 6), (1, 1), (4, 6), (0, 5), (3, 6), (1, 6),
    (6, 6), (0, 0), (5, 5), (2, 4), (0, 6), (0, 3), (1, 3),
]  # fmt: skip
L2_LINE = (
    "4-5 w5, 1-5 w1, 1-4 w4, 3-4 e3, 2-3 e2, 0-2 e0, 0-4 e4, draw, draw, draw, draw, 4-6 e6,"
    " 5-6 e5, 2-5 e2, draw, draw, draw, draw, draw, draw, draw, 2-4 e4, draw, draw, draw"
)


def moves(text: str) -> list[Move]:
    """Moves in the rule tests' short notation: ``"2-6 e2, draw"``."""
    result = []
    for item in (part.strip() for part in text.split(",")):
        if item in ("draw", "pass"):
            result.append(DRAW if item == "draw" else PASS)
            continue
        tile, where = item.split()
        low, high = int(tile[0]), int(tile[2])
        result.append(play(make_tile(low, high), _ENDS[where[0]], int(where[1])))
    return result


def fives_hand(
    hands: Sequence[Iterable[Tile]], top: Iterable[Tile] = (), scores: tuple[int, int] = (0, 0)
) -> FivesState:
    """A Fives hand from explicit hands; the stock is ``top`` then every other tile."""
    lists = [tuple(make_tile(*t) for t in h) for h in hands]
    first = [make_tile(*t) for t in top]
    used = {t for h in lists for t in h} | set(first)
    stock = (*first, *(t for t in ALL_TILES if t not in used))
    return fives_start(FivesRules(), 2, Deal(tuple(lists), stock), scores)


def fives_match(hand: FivesState, length: MatchLength) -> Match:
    """A Fives match at hand 1 whose hand is ``hand`` (its starting scores are the match's)."""
    start = tuple(s - sum(p for seat, p, _r in hand.scoring if seat == i) for i, s in
                  enumerate(hand.scores))  # fmt: skip
    return Match(FIVES, FivesRules(), 2, 7, length, 1, hand, start)


def play_out(match: Match, text: str) -> Match:
    for move in moves(text):
        match = match.apply(move)
    return match


def test_games_expose_their_target() -> None:
    """Fives has a target of 100; Matador none."""
    assert match_target(FIVES) == TARGET == 100
    assert match_target(MATADOR) is None


@pytest.mark.parametrize(
    "length",
    [MatchLength(target=100), MatchLength(target=None, hands=3)],
    ids=["to-100", "3-hands"],
)
def test_a_domino_award_reaching_100_ends_the_match(length: MatchLength) -> None:
    """From 85, A's last count brings it to 95 and the domino award (5) to 100: the hand ends
    with a domino, and the match with reason target, also in a match for 3 hands."""
    match = play_out(fives_match(fives_hand(DOMINO, scores=(85, 0)), length), DOMINO_LINE)
    outcome = match.hand.outcome()
    assert outcome is not None
    assert outcome.kind.value == "domino"
    done = match.next_hand()
    assert done.result is not None
    assert (done.result.reason, done.result.winner, done.result.scores) == ("target", 0, (100, 10))
    assert done.hand_number == 1  # no next hand was dealt


def test_a_block_award_reaching_100_ends_a_match_for_a_number_of_hands() -> None:
    """From 80, B's count (10) brings it to 90 and its block award (16) to 106: the match for
    3 hands ends after hand 1 with reason target."""
    hand = fives_hand(L2_HANDS, L2_STOCK, scores=(0, 80))
    match = play_out(fives_match(hand, MatchLength(target=None, hands=3)), L2_LINE)
    outcome = match.hand.outcome()
    assert outcome is not None
    assert (outcome.kind.value, outcome.award, outcome.scores) == ("block", (0, 16), (0, 106))
    done = match.next_hand()
    assert done.result is not None
    assert (done.result.reason, done.result.winner) == ("target", 1)


def test_below_100_a_match_for_a_number_of_hands_goes_on() -> None:
    """The same block from 0 to 0 leaves B at 26: the match for 3 hands deals hand 2."""
    hand = fives_hand(L2_HANDS, L2_STOCK)
    match = play_out(fives_match(hand, MatchLength(target=None, hands=3)), L2_LINE).next_hand()
    assert match.result is None
    assert match.hand_number == 2
    assert match.scores == (0, 26)


def test_a_count_reaching_100_ends_the_hand_and_the_match() -> None:
    """From 90, A's counts reach 100 before the domino award: the hand ends with TARGET and
    the match with reason target, with no award."""
    hand = fives_hand(DOMINO, scores=(90, 0))
    match = play_out(fives_match(hand, MatchLength(target=None, hands=5)), DOMINO_LINE)
    outcome = match.hand.outcome()
    assert outcome is not None
    assert (outcome.kind.value, outcome.award) == ("target", (0, 0))
    done = match.next_hand()
    assert done.result is not None
    assert (done.result.reason, done.result.scores) == ("target", (100, 10))


def test_matador_has_no_game_target() -> None:
    """A Matador match for 3 hands goes on after a hand that leaves a score above 100."""
    rules = MatadorRules()
    hand = matador_start(rules, 2, matador_deal(rules, 2, 5), (150, 0))
    match = Match(MATADOR, rules, 2, 5, MatchLength(target=None, hands=3), 1, hand, (150, 0))
    rng = random.Random(5)
    while match.hand.outcome() is None:
        match = match.apply(rng.choice(match.hand.legal_moves()))
    after = match.next_hand()
    assert after.result is None
    assert after.hand_number == 2


def test_hand_leader() -> None:
    """The leader of a hand: Matador's seat to lead, then the seat of the lead; Fives' opener
    from the start (the other seat is to move)."""
    matador = start_match(MATADOR, MatadorRules(), 3, 11, MatchLength()).hand
    assert hand_leader(matador) == matador.to_move
    leader = matador.to_move
    after = matador.apply(matador.legal_moves()[0])
    assert hand_leader(after) == leader != after.to_move
    fives = fives_hand(DOMINO)
    assert (hand_leader(fives), fives.to_move) == (0, 1)
