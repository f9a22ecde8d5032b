"""The constructed endgames of the analysis tests, and a replay analysed with a small budget."""

from __future__ import annotations

from arena.analysis.decisions import Decision, MatchSetting
from arena.games.api import PASS, Deal, GameState, Move
from arena.games.registry import get_game
from arena.games.scenario import lead, put, tiles
from arena.replay import Action
from arena.wire import move_to_wire
from protocol import messages as m

BLOCK = get_game("block")

#: A two-seat Block hand (hand seed 59's deal): seat 0 leads 0-6 and after twelve moves holds
#: 0-3 and 2-2 with the ends left=3, right=2, while seat 1 holds 0-5 alone.
BLOCK_HANDS = ("0-3 0-6 1-4 2-2 3-3 4-6 6-6", "0-1 0-5 1-2 1-5 3-6 4-4 5-6")
BLOCK_OUT = "2-5 2-6 1-6 2-4 5-5 3-4 4-5 1-3 0-4 0-0 2-3 3-5 0-2 1-1"
BLOCK_LINE = (
    lead("0-6"),
    put("0-1", "left", 1),
    put("6-6", "right", 6),
    put("5-6", "right", 5),
    put("1-4", "left", 4),
    put("4-4", "left", 4),
    put("4-6", "left", 6),
    put("1-5", "right", 1),
    PASS,
    put("3-6", "left", 3),
    put("3-3", "left", 3),
    put("1-2", "right", 2),
)
#: The two moves of seat 0 there.
PLAY_DOUBLE = put("2-2", "right", 2)
PLAY_BLANK = put("0-3", "left", 0)


def block_deal(other: str = BLOCK_HANDS[1], out: str = BLOCK_OUT) -> Deal:
    """The deal, with seat 1's hand (and the out-of-play tiles) as given."""
    return Deal(hands=(tiles(BLOCK_HANDS[0]), tiles(other)), boneyard=tiles(out))


def block_endgame(deal: Deal | None = None) -> GameState:
    """The position after :data:`BLOCK_LINE`, seat 0 to move."""
    rules = BLOCK.parse_rules({})
    state: GameState = BLOCK.start_hand(rules, 2, deal or block_deal())
    for move in BLOCK_LINE:
        state = state.apply(move)
    assert state.to_move == 0
    return state


def decision(state: GameState, played: Move, event: int = len(BLOCK_LINE) + 1) -> Decision:
    """Seat-to-move's decision to play ``played`` in ``state`` (hand 1)."""
    seat = state.to_move
    assert seat is not None
    return Decision(
        hand=1,
        event=event,
        seat=seat,
        state=state,
        view=state.view(seat),
        played=played,
        action=Action(seat=seat, move=move_to_wire(played)),
    )


def block_setting() -> MatchSetting:
    """Two-seat Block with its default rules."""
    return MatchSetting(BLOCK, BLOCK.parse_rules({}), 2)


def wire(move: Move) -> m.WireMove:
    """The move as the analysis section writes it."""
    return move_to_wire(move)
