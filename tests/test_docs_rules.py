"""The worked examples of docs/rules.md, checked against the engine.

Every example in the rules page has a machine-readable twin in an HTML comment,
``<!-- check: {JSON} -->``; the section "How the examples are checked" at the end of the page
describes the format. This test rebuilds each position with the engine and asserts that the
legal moves (compared as ``str(Move)``, in the engine's order), the positions reached and the
hand outcomes are exactly what the page says, so the page cannot drift from the code. The
replay printed in docs/replay-format.md is checked the same way, with ``arena verify``'s code.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.cli import _build_parser, _match_flags
from arena.games import fives, matador
from arena.games.api import Deal, Move, derive_seed
from arena.games.matador import MatadorState, _copy, parse_rules, start_hand
from arena.games.match import hand_seed
from arena.games.plugin import rule_table
from arena.games.registry import GAMES, get_game
from arena.games.tiles import (
    ALL_TILES,
    TILE_INDEX,
    Tile,
    make_tile,
    mask_of,
    rank_key,
    shuffled_set,
)
from arena.replay import REPLAY_FORMAT as REPLAY_FORMAT_NOW
from arena.replay import decode_replay
from arena.verify import verify_replay
from protocol import messages

DOCS = Path(__file__).resolve().parent.parent / "docs"
RULES_DOC = DOCS / "rules.md"
REPLAY_DOC = DOCS / "replay-format.md"
REPLAY_EXAMPLE = re.compile(r"<!-- replay-example -->\s*```json\n(.*?)```", re.DOTALL)
CHECK = re.compile(r"<!--\s*check:\s*(\{\".*?\})\s*-->", re.DOTALL)
HEADING = re.compile(r"^## (.+)$", re.MULTILINE)
RULE_HEADING = re.compile(r"^1\.(\d+) ")
MOVE_KINDS = ("position", "lead")
FIVES_HEADING = re.compile(r"^2\.(\d+) ")


def _sections(text: str) -> list[tuple[str, str]]:
    """The page cut at its ``## `` headings: (heading, body) pairs, in order."""
    marks = list(HEADING.finditer(text))
    return [
        (mark.group(1), text[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else None])
        for i, mark in enumerate(marks)
    ]


def _load_checks() -> list[tuple[str, dict[str, Any], str]]:
    """Every check of the page as (section heading, check, visible text of the section)."""
    checks = []
    for heading, body in _sections(RULES_DOC.read_text(encoding="utf-8")):
        visible = CHECK.sub("", body)
        for match in CHECK.finditer(body):
            checks.append((heading, json.loads(match.group(1)), visible))
    return checks


CHECKS = _load_checks()


def _check_id(index: int) -> str:
    heading, check, _visible = CHECKS[index]
    numbered = RULE_HEADING.match(heading) or FIVES_HEADING.match(heading)
    number = heading.split(" ", 1)[0] if numbered else heading[:24]
    return f"{index:02d}-{check.get('kind', 'position')}-{number}"


def _tile(text: str) -> Tile:
    low, high = text.split("-")
    return make_tile(int(low), int(high))


def _tiles(texts: list[str]) -> list[Tile]:
    return [_tile(t) for t in texts]


def build_position(check: dict[str, Any]) -> MatadorState:
    """The position a check describes: a lead position straight from ``start_hand``, or a
    mid-hand position made by setting the fields of a copy of a started hand.

    The mid-hand shortcut writes the ends, the hands, the boneyard and the seat to move; the
    history stays empty, so the layout is not known (the legal moves do not depend on it).
    """
    rules = parse_rules(check.get("rules", {}))
    retired = frozenset(check.get("retired", []))
    if check.get("kind", "position") == "lead":
        hands = [_tiles(h) for h in check["hands"]]
        dealt = {t for h in hands for t in h}
        boneyard = tuple(t for t in ALL_TILES if t not in dealt)
        deal = Deal(tuple(tuple(h) for h in hands), boneyard)
        return start_hand(rules, len(hands), deal, None, retired)

    players = check.get("players", 2)
    to_move = check.get("to_move", 0)
    if "hands" in check:
        hands = [_tiles(h) for h in check["hands"]]
    else:
        hands = [[] for _ in range(players)]
        hands[to_move] = _tiles(check["hand"])
    assert len(hands) == players, "one hand per seat"
    stock = _tiles(check.get("boneyard", []))
    used = [t for h in hands for t in h] + stock
    assert len(used) == len(set(used)), f"a tile is given twice in {check}"
    # A seat left without tiles gets one that is nowhere else, so nobody starts out domino.
    free = [t for t in reversed(ALL_TILES) if t not in used]
    for hand in hands:
        if not hand:
            hand.append(free.pop(0))

    size = rules.tiles_per_hand(players)
    any_deal = Deal(
        tuple(ALL_TILES[s * size : (s + 1) * size] for s in range(players)),
        ALL_TILES[players * size :],
    )
    state = _copy(start_hand(rules, players, any_deal, None, retired))
    state.hands = tuple(mask_of(h) for h in hands)
    state.stock = tuple(TILE_INDEX[t] for t in stock)
    state.stock_pos = 0
    state.left, state.right = check["ends"]
    state.to_move = to_move
    state.leader = to_move
    state.passes = 0
    state.drew = check.get("drew", False)
    state._history = None
    return state


def _shown(moves: tuple[Move, ...]) -> list[str]:
    return [str(m) for m in moves]


S = TypeVar("S", MatadorState, fives.FivesState)


def _apply_text(state: S, text: str) -> S:
    """Apply the legal move that ``str()`` renders as ``text``."""
    legal = state.legal_moves()
    chosen = [m for m in legal if str(m) == text]
    assert chosen, f"{text!r} is not legal here; legal: {_shown(legal)}"
    return state.apply(chosen[0])


def _check_moves(check: dict[str, Any]) -> None:
    state = build_position(check)
    if "leader" in check:
        assert state.to_move == check["leader"]
    legal = _shown(state.legal_moves())
    assert len(legal) == len(set(legal)), f"a move is listed twice in {legal}"
    assert legal == check["legal"]
    for seat in check.get("retire", []):
        state = state.retire(seat)
    if "leader_after" in check:
        assert state.to_move == check["leader_after"]
    for text in check.get("then", []):
        state = _apply_text(state, text)
    if "legal_after" in check:
        assert _shown(state.legal_moves()) == check["legal_after"]
    if "ends_after" in check:
        assert [state.left, state.right] == check["ends_after"]
    if "to_move_after" in check:
        assert state.to_move == check["to_move_after"]
    if "outcome" in check:
        outcome = state.outcome()
        assert outcome is not None, "the hand should be over"
        assert {
            "kind": outcome.kind.value,
            "winners": list(outcome.winners),
            "award": list(outcome.award),
            "pips": list(outcome.pips),
        } == check["outcome"]


def _check_deal(check: dict[str, Any]) -> None:
    engine = {"matador": matador, "fives": fives}[check.get("game", "matador")]
    rules = engine.parse_rules(check["rules"])
    seed = hand_seed(check["seed"], check["hand_number"])
    assert seed == derive_seed(check["seed"], "deal", check["hand_number"])
    if "shuffled" in check:
        assert shuffled_set(seed) == _tiles(check["shuffled"])
    deal = engine.deal(rules, check["players"], seed)
    assert [list(h) for h in deal.hands] == [_tiles(h) for h in check["hands"]]
    assert list(deal.boneyard) == _tiles(check["boneyard"])
    started = engine.start_hand(rules, check["players"], deal)
    assert started.leader == check["leader"]
    if check.get("game", "matador") == "matador":
        assert started.to_move == check["leader"]


# -- Fives --------------------------------------------------------------------------------------


def build_fives(check: dict[str, Any]) -> fives.FivesState:
    """A Fives hand started by the engine from ``hands`` (seven tiles each); the stock is
    ``stock`` (top first) followed by every other tile in canonical order. ``match_scores`` are
    the scores before the hand."""
    rules = fives.parse_rules(check.get("rules", {}))
    hands = [_tiles(h) for h in check["hands"]]
    top = _tiles(check.get("stock", []))
    used = [t for h in hands for t in h] + top
    assert len(used) == len(set(used)), f"a tile is given twice in {check}"
    stock = (*top, *(t for t in ALL_TILES if t not in used))
    scores = tuple(check["match_scores"]) if "match_scores" in check else None
    return fives.start_hand(rules, 2, Deal(tuple(tuple(h) for h in hands), stock), scores)


def _fives_facts(state: fives.FivesState, check: dict[str, Any], suffix: str) -> None:
    """Compare the facts a check gives (``count``, ``scores``, ``ends``...; with ``suffix``
    ``"_after"``, those after its ``then`` moves) with the engine's position."""
    view = state.view(0)
    facts: dict[str, Any] = {
        "count": state.count,
        "scores": list(state.scores),
        "ends": dict(state.open_ends),
        "to_move": state.to_move,
        "scoring": [list(e) for e in state.scoring],
        "layout": [list(t) for t in view.layout],
        "arms": {arm: [list(t) for t in tiles] for arm, tiles in view.arms},
        "legal": _shown(state.legal_moves()),
    }
    for name, value in facts.items():
        if name + suffix in check:
            assert value == check[name + suffix], f"{name}{suffix}: the engine says {value}"


def _check_fives(check: dict[str, Any]) -> None:
    state = build_fives(check)
    if "leader" in check:
        assert state.leader == check["leader"]
    if "opening" in check:
        seat, move, _drawn = state.history()[0]
        assert (seat, move.tile) == (state.leader, _tile(check["opening"]))
    _fives_facts(state, check, "")
    for text in check.get("then", []):
        state = _apply_text(state, text)
    _fives_facts(state, check, "_after")
    if "outcome" in check:
        outcome = state.outcome()
        assert outcome is not None, "the hand should be over"
        assert {
            "kind": outcome.kind.value,
            "winners": list(outcome.winners),
            "award": list(outcome.award),
            "pips": list(outcome.pips),
            "scores": list(outcome.scores),
        } == check["outcome"]


def _check_rank(check: dict[str, Any]) -> None:
    order = _tiles(check["order"])
    assert sorted(ALL_TILES, key=rank_key, reverse=True) == order
    assert len({rank_key(t) for t in ALL_TILES}) == len(ALL_TILES), "the rank is a strict order"


def _check_flag(check: dict[str, Any]) -> None:
    game = check.get("game", "matador")
    name, cli, default = check["name"], check["cli"], check["default"]
    engine = get_game(game)
    choices = {spec.name: spec.flag.choices for spec in engine.rules}
    assert list(choices[name]) == check["values"]
    assert getattr(engine.parse_rules({}), name) == default
    wire_config = {"matador": messages.MatadorRules, "fives": messages.FivesRules}[game]
    assert getattr(wire_config(), name) == default
    parser = _build_parser()
    base = ["play", "a", "b", "--game", game]
    assert getattr(_match_flags(parser.parse_args(base)).rules, name) == default
    for value in check["values"]:
        if isinstance(value, bool):  # --flag / --no-flag
            args = parser.parse_args([*base, cli if value else cli.replace("--", "--no-", 1)])
        else:
            args = parser.parse_args([*base, cli, str(value)])
        assert getattr(_match_flags(args).rules, name) == value
        assert getattr(engine.parse_rules({name: value}), name) == value


def _check_constant(check: dict[str, Any]) -> None:
    # "pkg.module.EXPR": import the longest module prefix, evaluate the rest in it.
    head, _paren, _tail = check["name"].partition("(")
    parts = head.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        expression = check["name"][len(".".join(parts[:cut])) + 1 :]
        assert eval(expression, vars(module)) == check["value"]
        return
    pytest.fail(f"no module in {check['name']!r}")


def _check_derive(check: dict[str, Any]) -> None:
    assert derive_seed(*check["args"]) == check["value"]


@pytest.mark.parametrize("index", range(len(CHECKS)), ids=_check_id)
def test_rules_doc_example_matches_the_engine(index: int) -> None:
    """The example's legal moves, positions, outcomes or values are exactly the engine's."""
    _heading, check, _visible = CHECKS[index]
    kind = check.get("kind", "position")
    runners = {
        "position": _check_moves,
        "lead": _check_moves,
        "deal": _check_deal,
        "fives": _check_fives,
        "rank": _check_rank,
        "flag": _check_flag,
        "constant": _check_constant,
        "derive": _check_derive,
    }
    assert kind in runners, f"unknown check kind {kind!r}"
    runners[kind](check)


@pytest.mark.parametrize("index", range(len(CHECKS)), ids=_check_id)
def test_rules_doc_shows_every_checked_move(index: int) -> None:
    """Each move a check lists is also written in the visible text of its section."""
    heading, check, visible = CHECKS[index]
    for key in ("legal", "legal_after", "then"):
        for text in check.get(key, []):
            assert text in visible, f"{text!r} ({key}) is not shown in section {heading!r}"


def test_rules_doc_has_at_least_twelve_move_examples() -> None:
    """The page checks at least twelve positions against the engine's legal moves."""
    assert sum(c.get("kind", "position") in MOVE_KINDS for _h, c, _v in CHECKS) >= 12


def test_every_rule_section_has_a_checked_example() -> None:
    """Sections 1.1 to 1.15 are all present, in order, and each has at least one check."""
    text = RULES_DOC.read_text(encoding="utf-8")
    numbers = []
    for heading, body in _sections(text):
        match = RULE_HEADING.match(heading)
        if match:
            numbers.append(int(match.group(1)))
            assert CHECK.search(body), f"section {heading!r} has no checked example"
    assert numbers == list(range(1, 16))


def test_rules_doc_has_at_least_twelve_fives_examples() -> None:
    """The page checks at least twelve Fives positions against the engine."""
    assert sum(c.get("kind") == "fives" for _h, c, _v in CHECKS) >= 12


def test_every_fives_rule_section_has_a_checked_example() -> None:
    """Sections 2.1 to 2.12 (Fives) are all present, in order, and each has a check."""
    numbers = []
    for heading, body in _sections(RULES_DOC.read_text(encoding="utf-8")):
        match = FIVES_HEADING.match(heading)
        if match:
            numbers.append(int(match.group(1)))
            assert CHECK.search(body), f"section {heading!r} has no checked example"
    assert numbers == list(range(1, 13))


def test_every_rules_flag_is_documented() -> None:
    """Each flag of MatadorRules and FivesRules has a flag check (name, values, default, CLI
    option)."""
    for game, plugin in GAMES.items():
        documented = {
            c["name"]
            for _h, c, _v in CHECKS
            if c.get("kind") == "flag" and c.get("game", "matador") == game
        }
        assert documented == {spec.name for spec in plugin.rules}, game


def test_position_helper_builds_what_it_is_told() -> None:
    """build_position sets the ends, the mover's hand, the boneyard and the seat to move."""
    state = build_position(
        {"players": 3, "to_move": 2, "ends": [0, 3], "hand": ["4-3"], "boneyard": ["1-1"]}
    )
    assert (state.left, state.right, state.to_move) == (0, 3, 2)
    assert state.hand_tiles(2) == ((3, 4),)
    assert state.boneyard_tiles() == ((1, 1),)
    assert all(len(state.hand_tiles(s)) == 1 for s in range(3))


def test_replay_format_example_verifies() -> None:
    """The replay printed in docs/replay-format.md is a real one: arena verify accepts it."""
    found = REPLAY_EXAMPLE.search(REPLAY_DOC.read_text(encoding="utf-8"))
    assert found, "docs/replay-format.md has no <!-- replay-example --> block"
    replay = decode_replay(found.group(1).encode())
    assert replay.format == REPLAY_FORMAT_NOW, "the example is of an older replay format"
    report = verify_replay(replay)
    assert report.error is None
    assert report.checked == "1 hands, 35 moves, scores [59, 0, 0] verified"
    printed = f"`OK: replays/example.json: {report.checked}`"
    assert printed in REPLAY_DOC.read_text(encoding="utf-8")


def test_rule_tables_are_derived_from_the_rules_dataclasses() -> None:
    """Each game's rule-flag table in docs/rules.md is the one its rules dataclass gives
    (``arena.games.plugin.rule_table``); a game without flags says so in its section."""
    text = RULES_DOC.read_text(encoding="utf-8")
    for name, plugin in GAMES.items():
        table = rule_table(plugin)
        if table:
            assert table in text, f"the {name} rule table differs from {plugin.rules_type}"
        else:
            assert f"## {plugin.title}\n" in text, name
            assert "**Flags.** None" in text, name
