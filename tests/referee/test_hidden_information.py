"""No seat is ever sent a tile it could not see at that moment, whatever failed and however.

Every line each bot is sent (the exact wire bytes: the in-memory double's script sees each one,
a real bot logs each one to a file) is scanned for tiles: the structured fields (``hand``,
``layout``, ``legal``, ``history``, ``arms``, ``hands``, ``move``, and any other pair of pips)
and every text (``1-5``, ``[1, 5]``, ``(1, 5)``, JSON quoted inside a text). Each tile found
must be public to that seat at that moment, as the replay's ground truth says (the deal, then
each move through the engine): the seat's own tiles and the tiles on the table during a hand;
after ``hand_end`` every hand too (never the boneyard). A text about the seat's own failure
(its ``error`` and ``strike`` messages) may also name what it was shown earlier in the match
and what it sent itself. Everything else (another seat's ``match_end`` detail above all) gets
only what is public now.

Across both games, 2 to 4 players (Fives is for 2), the three failure policies, and every kind
of failure (illegal moves with a tile held or not held, a bad message that echoes a tile, a
wrong id, a timeout, a crash, a restart), with scripted bots over many seeds and with real bot
processes for the forfeits.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import shlex
import sys
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games.api import Game
from arena.games.fives import FIVES, FivesRules
from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.policy import make_policy
from arena.referee.channel import Script, scripted_connector
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.replay import Replay, Status
from arena.replay_walk import WalkKind, walk_replay
from arena.wire import move_from_wire
from tests.helpers import BOTS, run_on_mock_clock
from tests.processes import live_processes_with

RECORDER = BOTS / "recorder.py"
_spec = spec_from_file_location("recorder", RECORDER)
assert _spec is not None
assert _spec.loader is not None
recorder = module_from_spec(_spec)
_spec.loader.exec_module(recorder)

Tile = tuple[int, int]
GAMES: dict[str, tuple[Game, Any]] = {
    "matador": (MATADOR, MatadorRules()),
    "fives": (FIVES, FivesRules()),
}
#: The player counts of each game.
PLAYERS = {"matador": (2, 3, 4), "fives": (2,)}
POLICIES = {
    "strict": make_policy("strict"),
    "classroom": make_policy("classroom"),
    "lenient": make_policy("lenient"),
}
MODES = ("ok", *recorder.FAULTS)
#: A seat that never misbehaves.
OK = ("ok", 1, 1)

# -- ground truth: what each seat may see at each moment, from the replay ----------------------


@dataclass(frozen=True)
class Moment:
    """Where every tile was at one moment: each seat's hand, the table, whether hands are shown."""

    own: tuple[frozenset[Tile], ...]
    placed: frozenset[Tile]
    revealed: bool = False

    def public(self, seat: int) -> frozenset[Tile]:
        """The tiles ``seat`` may know of now: its own and the table's (after ``hand_end``,
        every hand's; never the boneyard's)."""
        if self.revealed:
            return self.placed.union(*self.own)
        return self.placed | self.own[seat]


NOTHING = Moment((frozenset(),) * 4, frozenset())


@dataclass
class Truth:
    """The moments the referee talks to bots at, from the replay walked through the engine."""

    starts: dict[int, Moment] = field(default_factory=dict)
    before: dict[int, Moment] = field(default_factory=dict)
    after: dict[int, Moment] = field(default_factory=dict)
    restarts: dict[tuple[int, int], list[Moment]] = field(default_factory=dict)
    ends: dict[int, Moment] = field(default_factory=dict)
    failed: dict[int, Moment] = field(default_factory=dict)
    last: Moment = NOTHING
    #: Per failed seat, what its ``match_end`` detail is about: the end of the hand it failed
    #: in, when that hand ended (and the match went on), else the match's last moment.
    about: dict[int, Moment] = field(default_factory=dict)


def truth_of(replay: Replay) -> Truth:
    """Each moment of ``replay``: from the recorded deal, then every move through the engine."""
    truth = Truth()
    own: list[set[Tile]] = []
    placed: set[Tile] = set()
    now = NOTHING

    def snapshot(revealed: bool = False) -> Moment:
        return Moment(tuple(frozenset(h) for h in own), frozenset(placed), revealed)

    for step in walk_replay(replay):
        hand_number = step.hand_number
        if step.kind is WalkKind.HAND_START:
            assert hand_number is not None
            record = replay.hands[hand_number - 1]
            own = [{(a, b) for a, b in tiles} for tiles in record.deal.hands]
            placed = set()
            for event in step.match.hand.view(0).history:  # the Fives opening
                assert event.move.tile is not None
                placed.add(event.move.tile)
                own[event.seat].discard(event.move.tile)
            now = truth.starts[hand_number] = snapshot()
        elif step.kind is WalkKind.MOVE:
            assert step.move is not None
            assert step.seat is not None
            assert step.action is not None
            request_id = step.action.request_id
            if request_id is not None:
                truth.before[request_id] = now
            if step.move.tile is not None:
                placed.add(step.move.tile)
                own[step.seat].remove(step.move.tile)
            if step.drawn is not None:
                own[step.seat].add(step.drawn)
            now = snapshot()
            if request_id is not None:
                truth.after[request_id] = now
        elif step.kind is WalkKind.RESTART:
            assert step.restart is not None
            assert step.seat is not None
            assert hand_number
            if step.restart.failure.request_id is not None:
                truth.before.setdefault(step.restart.failure.request_id, now)
            truth.restarts.setdefault((step.seat, hand_number), []).append(now)
        elif step.kind is WalkKind.RETIRE:
            assert step.seat is not None
            failure = replay.seats[step.seat].failure
            assert failure is not None
            if failure.request_id is not None:
                truth.before.setdefault(failure.request_id, now)
            truth.failed[step.seat] = now
        elif step.kind is WalkKind.HAND_END:
            assert hand_number is not None
            now = truth.ends[hand_number] = snapshot(revealed=True)
    truth.last = now
    for record in replay.seats:
        if record.failure is not None:
            number = record.failure.hand_number
            truth.about[record.seat] = (
                NOTHING if number is None else truth.ends.get(number, truth.last)
            )
    return truth


# -- finding tiles in what a bot was sent ------------------------------------------------------

#: Lists of numbers that are not tiles, however many they hold.
NUMBER_LISTS = frozenset(
    {"scores", "hand_counts", "draws", "passes", "award", "pips", "winners", "retired"}
)
TEXT_TILE = re.compile(
    r"(?<![\w.-])([0-6])\s*-\s*([0-6])(?![\w.-])"
    r"|\[\s*([0-6])\s*,\s*([0-6])\s*\]"
    r"|\(\s*([0-6])\s*,\s*([0-6])\s*\)"
)
NUMBER_LIST_TEXT = re.compile(r'"(?:' + "|".join(NUMBER_LISTS) + r')"\s*:\s*\[[^\]]*\]')


def _tile(a: int, b: int) -> Tile:
    return (min(a, b), max(a, b))


def text_tiles(text: str) -> Iterator[Tile]:
    """Every tile a text names: ``1-5``, ``[1, 5]``, ``(1, 5)``, and the tiles of any JSON
    object quoted in it (a message line shown in an explanation)."""
    for line in text.splitlines():
        start = line.find("{")
        if start >= 0:
            try:
                quoted = json.loads(line[start:])
            except ValueError:
                line = NUMBER_LIST_TEXT.sub("", line)
            else:
                yield from (tile for _path, tile in value_tiles(quoted, "$"))
                line = line[:start]
        for found in TEXT_TILE.finditer(line):
            a, b = (int(g) for g in found.groups() if g is not None)
            yield _tile(a, b)


def value_tiles(value: Any, path: str, key: str = "") -> Iterator[tuple[str, Tile]]:
    """Every tile in a decoded message, with where it is: any pair of pips (but the counts and
    scores), and the tiles named in every string."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from value_tiles(item, f"{path}.{name}", name)
            yield from ((f"{path}.<key>", t) for t in text_tiles(name))
    elif isinstance(value, list):
        if key in NUMBER_LISTS:
            return
        if len(value) == 2 and all(type(v) is int and 0 <= v <= 6 for v in value):
            yield path, _tile(*value)
        else:
            for index, item in enumerate(value):
                yield from value_tiles(item, f"{path}[{index}]", key)
    elif isinstance(value, str):
        yield from ((path, t) for t in text_tiles(value))


def line_tiles(line: bytes) -> set[Tile]:
    return {tile for _path, tile in value_tiles(json.loads(line), "$")}


# -- the scan ----------------------------------------------------------------------------------


def scan_seat(
    seat: int, received: Sequence[bytes], sent: Sequence[bytes], truth: Truth
) -> list[str]:
    """Every tile sent to ``seat`` that it could not know then, as ``line N (type) PATH: TILE``."""
    leaks: list[str] = []
    known: set[Tile] = set().union(*map(line_tiles, sent))  # what the bot wrote itself
    starts: Counter[int] = Counter()
    own_texts = {"$.message", f"$.results[{seat}].detail"}
    for number, line in enumerate(received, start=1):
        message = json.loads(line)
        kind = message["type"]
        if kind == "hand_start":
            hand = message["hand_number"]
            starts[hand] += 1
            again = starts[hand] - 2
            moment = truth.starts[hand] if again < 0 else truth.restarts[(seat, hand)][again]
        elif kind == "request":
            moment = truth.before[message["id"]]
        elif kind == "strike":
            moment = truth.after[message["id"]]
        elif kind == "hand_end":
            moment = truth.ends[message["hand_number"]]
        elif kind == "match_end":
            moment = truth.last
        elif kind == "error":
            moment = truth.failed.get(seat, NOTHING)
        else:
            assert kind == "hello", kind
            moment = NOTHING
        public = moment.public(seat)
        known |= public
        for path, tile in value_tiles(message, "$"):
            allowed = known if path in own_texts else public
            about = re.fullmatch(r"\$\.results\[(\d)\]\.detail", path)
            if about and path not in own_texts:
                allowed = truth.about.get(int(about.group(1)), NOTHING).public(seat)
            if tile not in allowed:
                leaks.append(f"seat {seat}, line {number} ({kind}) {path}: {tile[0]}-{tile[1]}")
    return leaks


def scan(
    replay: Replay, received: Sequence[Sequence[bytes]], sent: Sequence[Sequence[bytes]]
) -> list[str]:
    truth = truth_of(replay)
    return [
        leak
        for seat in range(replay.players)
        for leak in scan_seat(seat, received[seat], sent[seat], truth)
    ]


# -- scripted bots (the in-memory double, under MockClock) -------------------------------------


def scripted(mode: str, at: int, count: int, received: list[bytes], sent: list[bytes]) -> Script:
    """The recorder bot's decisions as a script; ``received`` gets every line it is sent."""
    state: dict[str, Any] = {"requests": 0, "crashed": False, "note": ""}

    def script(line: bytes) -> list[bytes] | tuple[float, list[bytes]] | None:
        received.append(line)
        message = json.loads(line)
        if message["type"] == "hello":
            state["requests"] = 0  # a new process after a restart
        elif message["type"] == "request":
            state["requests"] += 1
        what = recorder.decide(message, state["requests"], mode, at, count, state["note"])
        if what == recorder.CRASH and mode == "crash_once" and state["crashed"]:
            what = {"type": "move", "id": message["id"], "move": message["legal"][0]}
        if what == recorder.CRASH:
            state["crashed"] = True
            state["note"] = " ".join(map(recorder.tile_text, message["hand"]))
            return None
        if what == recorder.HANG:
            return []
        if what is None:
            return None if message["type"] in ("match_end", "error") else []
        reply = json.dumps(what).encode()
        sent.append(reply)
        return [reply]

    return script


@dataclass(frozen=True)
class Played:
    replay: Replay
    received: list[list[bytes]]
    sent: list[list[bytes]]


def play_scripted(
    game: str,
    policy: str,
    faults: Sequence[tuple[str, int, int]],
    seed: int,
    hands: int = 2,
) -> Played:
    """A match of scripted recorder bots, seat ``s`` misbehaving as ``faults[s]`` says."""
    engine, rules = GAMES[game]
    config = MatchConfig(
        game=engine,
        rules=rules,
        players=len(faults),
        seed=seed,
        length=MatchLength(target=None, hands=hands),
        time=TimeLimits(startup_ms=1000, move_ms=1000),
        policy=POLICIES[policy],
    )
    received: list[list[bytes]] = [[] for _ in faults]
    sent: list[list[bytes]] = [[] for _ in faults]
    scripts = {
        f"seat{s}": scripted(mode, at, count, received[s], sent[s])
        for s, (mode, at, count) in enumerate(faults)
    }
    run = functools.partial(play_match, config, list(scripts), connect=scripted_connector(scripts))
    replay: Replay = run_on_mock_clock(run)
    return Played(replay, received, sent)


def assert_no_leak(played: Played) -> None:
    leaks = scan(played.replay, played.received, played.sent)
    assert not leaks, "\n".join(leaks[:20])


GRID = [
    (game, players, policy, mode)
    for game in GAMES
    for players, policy, mode in itertools.product(PLAYERS[game], POLICIES, MODES)
]


@pytest.mark.parametrize(("game", "players", "policy", "mode"), GRID)
def test_no_seat_is_sent_a_tile_it_cannot_see(
    game: str, players: int, policy: str, mode: str
) -> None:
    """Over three seeds, one seat failing as ``mode`` (three times in a row under lenient, so
    its strikes forfeit), and with three or four players also every seat but one (the match
    is forfeited in the middle of a hand, which is never revealed): nothing any seat is sent
    names a tile hidden from it then."""
    count = 3 if policy == "lenient" else 1
    for seed in (1, 2, 3):
        survivor = seed % players
        layouts = [[(mode, 1 + seed, count) if s == survivor else OK for s in range(players)]]
        if players > 2:
            layouts.append(
                [OK if s == survivor else (mode, 1 + seed + s, count) for s in range(players)]
            )
        for faults in layouts:
            assert_no_leak(play_scripted(game, policy, faults, seed))


@st.composite
def matches(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, int, int]]]:
    """A game, a policy, and per seat a mode, the request it starts at and how many it spans."""
    game = draw(st.sampled_from(sorted(GAMES)))
    players = draw(st.sampled_from(PLAYERS[game]))
    fault = st.tuples(st.sampled_from(MODES), st.integers(1, 12), st.integers(1, 4))
    faults = draw(st.lists(fault, min_size=players, max_size=players))
    return game, draw(st.sampled_from(sorted(POLICIES))), faults


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match=matches(), seed=st.integers(0, 2**63 - 1))
def test_no_tile_leaks_whoever_fails_how_and_when(
    match: tuple[str, str, list[tuple[str, int, int]]], seed: int
) -> None:
    """Any seats failing in any ways at any requests: no seat is sent a tile hidden from it."""
    game, policy, faults = match
    assert_no_leak(play_scripted(game, policy, faults, seed, hands=3))


def test_the_scanner_finds_a_planted_tile() -> None:
    """The scan is not vacuous: a boneyard tile planted in another seat's detail is found."""
    played = play_scripted("matador", "strict", [OK, OK], 6)
    truth = truth_of(played.replay)
    hidden = min(
        (a, b) for a in range(7) for b in range(a, 7) if (a, b) not in truth.last.public(0)
    )
    tampered = list(played.received[0])
    end = json.loads(tampered[-1])
    assert end["type"] == "match_end"
    end["results"][1]["detail"] = f"illegal move {hidden[0]}-{hidden[1]} on left, 3 out"
    tampered[-1] = json.dumps(end).encode()
    leaks = scan(played.replay, [tampered, played.received[1]], played.sent)
    tile = f"{hidden[0]}-{hidden[1]}"
    assert leaks == [f"seat 0, line {len(tampered)} (match_end) $.results[1].detail: {tile}"]


# -- what the other seats read instead ---------------------------------------------------------


def _match_end(lines: Sequence[bytes]) -> dict[str, Any]:
    ends = [json.loads(line) for line in lines if json.loads(line)["type"] == "match_end"]
    assert len(ends) == 1
    return ends[0]


def test_an_illegal_move_is_hidden_from_the_opponent_but_not_from_its_author() -> None:
    """The opponent's detail reads ``illegal move (hidden) in request N; open ends ...``; the
    failing bot's error and the replay name the tile it tried."""
    played = play_scripted("matador", "strict", [OK, ("illegal_held", 3, 1)], 7)
    failure = played.replay.seats[1].failure
    assert failure is not None
    assert failure.move is not None
    move = move_from_wire(failure.move)
    ends = failure.detail.split("; open ends ")[1]
    assert (
        failure.detail == f"illegal move {move} in request {failure.request_id}; open ends {ends}"
    )
    seen = _match_end(played.received[0])["results"][1]
    assert seen["status"] == "illegal_move"
    assert (
        seen["detail"] == f"illegal move (hidden) in request {failure.request_id}; open ends {ends}"
    )
    error = json.loads(played.received[1][-1])
    assert error == {"type": "error", "code": "illegal_move", "message": failure.detail}


@pytest.mark.parametrize(
    ("variant", "public"),
    [
        (0, "sent an invalid message: Invalid enum value (hidden) - at `$.move.end`"),
        (1, "sent an invalid message: Object contains unknown field (hidden) - at `$`"),
        (2, "sent an invalid message: Invalid value (hidden) - at `$.type`"),
    ],
)
def test_a_bad_message_that_echoes_a_tile_is_hidden_from_the_others(
    variant: int, public: str
) -> None:
    """What the decoder quotes of a bad line never reaches another seat; the replay has it."""
    at = 3 + (variant - 3) % 3  # the recorder's echo variant is its request count modulo 3
    played = play_scripted("matador", "strict", [("echo", at, 1), OK, OK], 8)
    failure = played.replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.BAD_MESSAGE
    assert re.search(r"[0-6]-[0-6]|\[[0-6], [0-6]\]", failure.detail)
    for seat in (1, 2):
        assert _match_end(played.received[seat])["results"][0]["detail"] == public


def test_a_restarted_bot_keeps_the_name_of_its_first_ready() -> None:
    """A restarted process's ``ready`` comes after the deal: its name (here the hand the crashed
    process left in a file) is not passed on; the seat keeps its first name."""
    played = play_scripted("matador", "lenient", [OK, ("crash_once", 2, 1)], 10, hands=1)
    assert played.replay.seats[1].restarts == 1
    readies = [json.loads(line) for line in played.sent[1] if b'"ready"' in line]
    assert readies[0]["name"] == "recorder-crash_once"
    assert re.fullmatch(r"recorder-crash_once [0-6]-[0-6]( [0-6]-[0-6])*", readies[1]["name"])
    assert played.replay.seats[1].name == "recorder-crash_once"
    assert _match_end(played.received[0])["results"][1]["name"] == "recorder-crash_once"


def test_a_match_without_failures_sends_the_same_match_end_to_every_seat() -> None:
    """With nothing to hide, every seat gets the very same match_end bytes (as before)."""
    played = play_scripted("matador", "strict", [OK] * 3, 9)
    ends = {lines[-1] for lines in played.received}
    assert len(ends) == 1
    assert json.loads(next(iter(ends)))["type"] == "match_end"


# -- real bot processes ------------------------------------------------------------------------

PY = shlex.quote(sys.executable)


def logged(log: Path, direction: bytes) -> list[bytes]:
    """The lines a recorder bot logged as received (``b"< "``) or sent (``b"> "``)."""
    return [line[2:] for line in log.read_bytes().splitlines() if line.startswith(direction)]


REAL_CASES = [
    ("matador", "strict", [OK, ("illegal_held", 3, 1)], 3000),
    ("matador", "classroom", [("illegal_unheld", 2, 1), OK], 3000),
    ("fives", "classroom", [("echo", 2, 1), OK], 3000),
    ("fives", "strict", [OK, ("hang", 2, 1)], 300),
    ("matador", "lenient", [OK, OK, ("echo", 1, 3)], 3000),
    ("matador", "strict", [OK, ("illegal_held", 2, 1), ("echo", 3, 1)], 3000),
    ("matador", "strict", [OK, ("illegal_held", 4, 1), OK, OK], 3000),
    (
        "matador",
        "classroom",
        [("illegal_held", 2, 1), OK, ("illegal_unheld", 3, 1), ("crash", 4, 1)],
        3000,
    ),
    ("matador", "lenient", [("crash", 2, 1), OK], 3000),
    ("fives", "lenient", [OK, ("crash_once", 2, 1)], 3000),
    ("matador", "lenient", [("wrong_id", 1, 3), OK, OK, OK], 3000),
]


@pytest.mark.parametrize(("game", "policy", "faults", "move_ms"), REAL_CASES)
def test_real_bots_are_never_sent_a_hidden_tile(
    tmp_path: Path, game: str, policy: str, faults: list[tuple[str, int, int]], move_ms: int
) -> None:
    """Real bot processes that log every line they get: after forfeits, strikes and restarts,
    no line names a tile hidden from its seat."""
    marker = f"hidden-{uuid.uuid4().hex}"
    logs = [tmp_path / f"seat{s}.log" for s in range(len(faults))]
    commands = [
        " ".join(
            [
                PY,
                shlex.quote(str(RECORDER)),
                shlex.quote(str(log)),
                mode,
                str(at),
                str(count),
                marker,
            ]
        )
        for log, (mode, at, count) in zip(logs, faults, strict=True)
    ]
    engine, rules = GAMES[game]
    config = MatchConfig(
        game=engine,
        rules=rules,
        players=len(faults),
        seed=12,
        length=MatchLength(target=None, hands=2),
        time=TimeLimits(startup_ms=10000, move_ms=move_ms),
        policy=POLICIES[policy],
    )
    replay = trio.run(play_match, config, commands)
    assert any(s.status is not Status.OK or s.strikes or s.restarts for s in replay.seats)
    received = [logged(log, b"< ") for log in logs]
    sent = [logged(log, b"> ") for log in logs]
    leaks = scan(replay, received, sent)
    assert not leaks, "\n".join(leaks[:20])
    assert live_processes_with(marker) == []
