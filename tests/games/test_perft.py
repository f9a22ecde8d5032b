"""The engine reproduces every count in perft.json, produced by an independent implementation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.games import registry
from arena.games.api import Deal, GameState
from arena.games.perft import lines_to_end, move_from_json, move_to_json, perft

DATA = Path(__file__).parent.parent / "data" / "perft.json"
SHARED = Path(__file__).parents[3] / "shared" / "rules" / "perft.json"
ALL_CASES: list[dict[str, Any]] = json.loads(DATA.read_text())["cases"]
CASES = ALL_CASES


def _position(case: dict[str, Any]) -> GameState:
    game = registry.get_game(case["game"])
    rules = game.parse_rules(case["rules"])
    hands = tuple(tuple(tuple(t) for t in h) for h in case["deal"]["hands"])
    boneyard = tuple(tuple(t) for t in case["deal"]["boneyard_top_first"])
    state = game.start_hand(rules, case["players"], Deal(hands, boneyard))  # type: ignore[arg-type]
    for raw in case["prefix"]:
        state = state.apply(move_from_json(raw))
    return state


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['game']}-{case['players']}p-prefix{len(case['prefix'])}-{case['rules']}"


def test_the_copy_matches_the_shared_reference() -> None:
    """tests/data/perft.json is byte-for-byte the shared reference file, when it is at hand."""
    if not SHARED.exists():
        pytest.skip(f"{SHARED} is not beside this checkout")
    assert DATA.read_bytes() == SHARED.read_bytes()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_root_legal_moves(case: dict[str, Any]) -> None:
    """The legal moves at the case's position are exactly the reference's, no more, no fewer."""
    state = _position(case)
    got = sorted(json.dumps(move_to_json(m), sort_keys=True) for m in state.legal_moves())
    want = sorted(json.dumps(m, sort_keys=True) for m in case["root_legal"])
    assert got == want


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_perft_counts(case: dict[str, Any]) -> None:
    """Every perft(d) of the case equals the reference count."""
    state = _position(case)
    got = {d: perft(state, int(d)) for d in case["perft"]}
    assert got == case["perft"]


ENDGAMES = [c for c in CASES if "to_end_of_hand" in c]


@pytest.mark.parametrize("case", ENDGAMES, ids=[_case_id(c) for c in ENDGAMES])
def test_endgame_enumeration(case: dict[str, Any]) -> None:
    """Complete lines to the end of the hand: count, how each ended, and summed score changes."""
    want = case["to_end_of_hand"]
    tally = lines_to_end(_position(case))
    assert tally.lines == want["lines"]
    assert {k: tally.by_kind.get(k, 0) for k in want["by_kind"]} == want["by_kind"]
    assert tally.score_change == want["score_change_summed_over_lines"]
