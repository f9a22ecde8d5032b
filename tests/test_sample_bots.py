"""The sample bots in sample_bots/, run as real subprocesses on scripted transcripts.

Each test writes protocol messages (built with the ``protocol`` Structs and encoded with
``protocol.codec.encode``) to a bot's stdin, reads its stdout lines and decodes them strictly
with ``decode_from_bot``, as the referee does. The last tests play real matches through
:func:`arena.referee.match.play_match`.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import msgspec
import pytest
import trio

from arena.games.fives import FivesRules as EngineFivesRules
from arena.games.matador import MATADOR
from arena.games.matador import MatadorRules as EngineRules
from arena.games.match import MatchLength as EngineMatchLength
from arena.games.match import start_match
from arena.wire import move_request
from protocol import (
    Draw,
    End,
    Error,
    Event,
    FivesRules,
    HandEnd,
    HandStart,
    Hello,
    MatadorRules,
    MatchEnd,
    MatchLength,
    MoveReply,
    MoveRequest,
    Pass,
    Play,
    Ready,
    ReplyMove,
    SeatResult,
    TimeControl,
    WireMove,
    as_reply,
)
from protocol.codec import decode_from_bot, encode

REPO = Path(__file__).resolve().parent.parent
BOT_DIR = REPO / "sample_bots"
NODE = shutil.which("node")
EXIT_TIMEOUT_S = 2.0
MATADORS = {(0, 0), (1, 6), (2, 5), (3, 4)}

needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")

RANDOM = pytest.param([sys.executable, str(BOT_DIR / "random_bot.py")], "random", id="random")
GREEDY_PY = pytest.param([sys.executable, str(BOT_DIR / "greedy.py")], "greedy", id="greedy.py")
GREEDY_JS = pytest.param(
    [NODE or "node", str(BOT_DIR / "greedy.js")], "greedy-js", id="greedy.js", marks=needs_node
)
ALL_BOTS = [RANDOM, GREEDY_PY, GREEDY_JS]
GREEDY_BOTS = [GREEDY_PY, GREEDY_JS]


# -- building transcripts ----------------------------------------------------------------------


def hello(seed: int = 1, seat: int = 0, players: int = 2) -> Hello:
    """A ``hello`` for a two-hand match with the default rules."""
    return Hello(
        protocol=1,
        game="matador",
        seat=seat,
        players=players,
        rules=MatadorRules(),
        match=MatchLength(hands=2),
        time=TimeControl(startup_ms=5000, move_ms=1000),
        seed=seed,
    )


def hand_start(hand: list[tuple[int, int]]) -> HandStart:
    """The ``hand_start`` of hand 1 for seat 0, which leads."""
    return HandStart(
        hand_number=1,
        leader=0,
        hand=hand,
        hand_counts=[len(hand), 5],
        boneyard_size=18,
        scores=[0, 0],
    )


def request(
    request_id: int,
    hand: list[tuple[int, int]],
    layout: list[tuple[int, int]],
    legal: list[WireMove],
    boneyard_size: int = 10,
    history: list[Event] | None = None,
) -> MoveRequest:
    """A ``request`` for seat 0; the open ends are read off the layout's two ends."""
    ends = [] if not layout else [End("left", layout[0][0]), End("right", layout[-1][1])]
    return MoveRequest(
        id=request_id,
        hand_number=1,
        seat=0,
        hand=hand,
        layout=layout,
        ends=ends,
        hand_counts=[len(hand), 4],
        boneyard_size=boneyard_size,
        scores=[0, 0],
        draws=[0, 0],
        passes=[0, 0],
        history=history or [],
        legal=legal,
        time_left_ms=1000,
        bank_ms=0,
    )


def match_end() -> MatchEnd:
    """A ``match_end`` after a drawn two-seat match."""
    return MatchEnd(
        scores=[0, 0],
        winner=None,
        reason="hands",
        results=[SeatResult(seat=0, name="bot", status="ok"), SeatResult(1, "other", "ok")],
    )


def hand_end() -> HandEnd:
    """A ``hand_end`` of hand 1 (a drawn block)."""
    return HandEnd(
        hand_number=1,
        result="block",
        winners=[0, 1],
        award=[0, 0],
        scores=[0, 0],
        pips=[3, 3],
        hands=[[(1, 2)], [(0, 3)]],
        layout=[(6, 6)],
    )


def p(low: int, high: int, end: str | None, out: int) -> Play:
    """A play move (``end`` is ``"left"``, ``"right"`` or ``None`` for the lead)."""
    return Play(tile=(low, high), end=end, out=out)  # type: ignore[arg-type]


# -- running a bot -----------------------------------------------------------------------------


@dataclass
class Run:
    """What a bot did with a transcript: its stdout lines, exit code and stderr."""

    lines: list[bytes]
    returncode: int | None
    stderr: str

    def replies(self) -> list[Any]:
        """Every stdout line decoded strictly, as the referee decodes it."""
        return [decode_from_bot(line) for line in self.lines]

    def moves(self) -> list[MoveReply]:
        """The ``move`` replies (every line after the ``ready``)."""
        replies = self.replies()
        assert isinstance(replies[0], Ready), replies[0]
        assert all(isinstance(r, MoveReply) for r in replies[1:]), replies
        return replies[1:]


def _drain(stream: IO[bytes], sink: list[bytes]) -> None:
    """Read ``stream`` to its end into ``sink`` (a thread per pipe, so no pipe ever fills)."""
    sink.append(stream.read())


def run_bot(
    command: list[str],
    messages: list[Any],
    *,
    raw: Sequence[bytes] = (),
    close_stdin: bool = False,
    cwd: Path = REPO,
) -> Run:
    """Write ``messages`` (then ``raw`` lines) to a fresh bot and wait up to 2 s for it to exit.

    stdin stays open unless ``close_stdin``, so a bot that exits did so because of what it
    read, not because of EOF. A bot still running after 2 s is killed (``returncode`` None).
    """
    out: list[bytes] = []
    err: list[bytes] = []
    payload = b"".join(encode(message) + b"\n" for message in messages) + b"".join(raw)
    pipe = subprocess.PIPE
    with subprocess.Popen(command, stdin=pipe, stdout=pipe, stderr=pipe, cwd=cwd) as proc:
        assert proc.stdin is not None
        readers = [
            threading.Thread(target=_drain, args=(proc.stdout, out)),
            threading.Thread(target=_drain, args=(proc.stderr, err)),
        ]
        for reader in readers:
            reader.start()
        returncode: int | None = None
        try:
            with contextlib.suppress(BrokenPipeError):  # a bot may exit before reading it all
                proc.stdin.write(payload)
                proc.stdin.flush()
                if close_stdin:
                    proc.stdin.close()
            returncode = proc.wait(timeout=EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
        finally:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
            for reader in readers:
                reader.join()
    return Run(out[0].splitlines(), returncode, err[0].decode("utf-8", "replace"))


def play_positions(
    command: list[str], requests: list[MoveRequest], seed: int = 1
) -> list[MoveReply]:
    """The bot's replies to ``requests`` in one match transcript; checks ids and legality."""
    run = run_bot(command, [hello(seed), hand_start([(0, 1)]), *requests, match_end()])
    assert run.returncode == 0, run.stderr
    moves = run.moves()
    assert len(moves) == len(requests), run.stderr
    for reply, sent in zip(moves, requests, strict=True):
        assert reply.id == sent.id
        assert reply.move in [as_reply(m) for m in sent.legal], (reply.move, sent.legal)
    return moves


# -- hand-made positions for the greedy bots ---------------------------------------------------

# ends (1, 2); hand {3-4, 0-6, 5-6}: 5-6 fits both ends, 0-6 only the 1-end, 3-4 anywhere.
# 0-6 (6 pips) leaves a blank end, which only a matador answers: it beats 5-6 (11 pips).
HEAVIEST = request(
    1,
    hand=[(0, 6), (3, 4), (5, 6)],
    layout=[(1, 2)],
    legal=[
        p(0, 6, "left", 0),
        p(3, 4, "left", 3),
        p(3, 4, "left", 4),
        p(5, 6, "left", 5),
        p(3, 4, "right", 3),
        p(3, 4, "right", 4),
        p(5, 6, "right", 6),
    ],
)
# ends (1, 3): 3-6 (on the 1-end) and 4-5 (on the 3-end) both have 9 pips; 3-6 ranks higher.
EQUAL_PIPS = request(
    2,
    hand=[(3, 6), (4, 5)],
    layout=[(1, 3)],
    legal=[p(3, 6, "left", 3), p(4, 5, "right", 5)],
)
# rules.md 1.8's example: ends (0, 3), hand {4-3, 0-0, 5-5}: every play is a matador, so DRAW
# is legal; greedy plays 0-0 on the 3-end rather than draw (two blank ends).
MATADORS_AND_DRAW = request(
    3,
    hand=[(0, 0), (3, 4), (5, 5)],
    layout=[(0, 3)],
    legal=[
        p(0, 0, "left", 0),
        p(3, 4, "left", 3),
        p(3, 4, "left", 4),
        p(0, 0, "right", 0),
        p(3, 4, "right", 3),
        p(3, 4, "right", 4),
        Draw(),
    ],
)
# The same with the boneyard closed: 0-0 must go on the 3-end, leaving two blank ends.
MATADORS_NO_DRAW = request(
    4,
    hand=[(0, 0), (3, 4), (5, 5)],
    layout=[(0, 3)],
    legal=[
        p(0, 0, "left", 0),
        p(3, 4, "left", 3),
        p(3, 4, "left", 4),
        p(0, 0, "right", 0),
        p(3, 4, "right", 3),
        p(3, 4, "right", 4),
    ],
    boneyard_size=0,
)
# ends (5, 2), hand {4-3, 5-2}, no 0-0, no draw: the lowest end to leave is 2 (5-2, 2 out).
MATADORS_NO_BLANK = request(
    5,
    hand=[(2, 5), (3, 4)],
    layout=[(5, 3), (4, 2)],
    legal=[
        p(2, 5, "left", 2),
        p(2, 5, "left", 5),
        p(3, 4, "left", 3),
        p(3, 4, "left", 4),
        p(2, 5, "right", 2),
        p(2, 5, "right", 5),
        p(3, 4, "right", 3),
        p(3, 4, "right", 4),
    ],
    boneyard_size=0,
)
# The lead: any tile, placed alone (end null, the high half out); 6-6 is the heaviest.
LEAD = request(
    6,
    hand=[(0, 0), (1, 5), (2, 2), (3, 4), (6, 6)],
    layout=[],
    legal=[
        p(0, 0, None, 0),
        p(1, 5, None, 5),
        p(2, 2, None, 2),
        p(3, 4, None, 4),
        p(6, 6, None, 6),
    ],
)
# ends (4, 2): the double 3-3 (6 pips, a double fits one value only) goes before 4-5 (9 pips).
DOUBLE_FIRST = request(
    9,
    hand=[(3, 3), (4, 5)],
    layout=[(4, 3), (4, 2)],
    legal=[p(3, 3, "left", 3), p(4, 5, "right", 4)],
)
# Seat 1 led 2-3, seat 0 played 4-5 on the 2-end, seat 1 drew twice at ends (4, 3), then played
# 4-6 on the 3-end: ends (4, 6). 1-3 with 3 out (4 pips) beats 3-5 (8 pips): seat 1 showed it
# has no 4 for a 3-end.
VOID_END = request(
    10,
    hand=[(1, 3), (1, 5), (3, 5)],
    layout=[(4, 5), (2, 3), (4, 6)],
    legal=[p(1, 3, "left", 1), p(3, 5, "left", 5), p(1, 3, "right", 3), p(1, 5, "right", 5)],
    history=[
        Event(1, p(2, 3, None, 3)),
        Event(0, p(4, 5, "left", 4)),
        Event(1, Draw()),
        Event(1, Draw()),
        Event(1, p(4, 6, "right", 6)),
    ],
)
# Nothing playable on ends (0, 0) and tiles in the boneyard: DRAW is the only move.
ONLY_DRAW = request(7, hand=[(1, 2)], layout=[(0, 0)], legal=[Draw()])
# Nothing playable and the boneyard closed: PASS is the only move.
ONLY_PASS = request(8, hand=[(1, 2)], layout=[(0, 0)], legal=[Pass()], boneyard_size=0)

GREEDY_CASES = [
    pytest.param(HEAVIEST, p(0, 6, "left", 0), "shed 0-6, 0 out (hard for them)", id="blank-end"),
    pytest.param(EQUAL_PIPS, p(3, 6, "left", 3), "shed 3-6, 3 out", id="equal-pips-higher-half"),
    pytest.param(
        MATADORS_AND_DRAW,
        p(0, 0, "right", 0),
        "matador 0-0 on right, 0 out",
        id="matador-rather-than-draw",
    ),
    pytest.param(
        MATADORS_NO_DRAW, p(0, 0, "right", 0), "matador 0-0 on right, 0 out", id="matador-blank"
    ),
    pytest.param(
        MATADORS_NO_BLANK, p(2, 5, "left", 2), "matador 2-5 on left, 2 out", id="matador-lowest"
    ),
    pytest.param(LEAD, p(6, 6, None, 6), "shed 6-6, 6 out", id="lead-heaviest"),
    pytest.param(DOUBLE_FIRST, p(3, 3, "left", 3), "shed 3-3, 3 out", id="double-first"),
    pytest.param(
        VOID_END, p(1, 3, "right", 3), "shed 1-3, 3 out (hard for them)", id="end-they-lack"
    ),
    pytest.param(ONLY_DRAW, Draw(), "nothing to play: draw", id="only-draw"),
    pytest.param(ONLY_PASS, Pass(), "nothing to play: pass", id="only-pass"),
]


# -- every bot ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "name"), ALL_BOTS)
def test_ready_name_and_valid_moves(command: list[str], name: str) -> None:
    """Each bot answers hello with its name and every request with a legal move and its id."""
    requests = [HEAVIEST, MATADORS_AND_DRAW, LEAD, ONLY_PASS]
    run = run_bot(command, [hello(), hand_start(LEAD.hand), *requests, hand_end(), match_end()])
    assert run.returncode == 0, run.stderr
    replies = run.replies()
    assert replies[0] == Ready(name=name)
    moves = run.moves()
    assert [m.id for m in moves] == [r.id for r in requests]
    for reply, sent in zip(moves, requests, strict=True):
        assert reply.move in [as_reply(m) for m in sent.legal]


@pytest.mark.parametrize(("command", "name"), ALL_BOTS)
def test_exits_after_match_end(command: list[str], name: str) -> None:
    """Each bot exits with code 0 within 2 s of match_end while its stdin is still open."""
    run = run_bot(command, [hello(), hand_start([(1, 2)]), ONLY_DRAW, match_end()])
    assert run.returncode == 0, f"{name}: {run.returncode}, stderr: {run.stderr}"
    assert len(run.lines) == 2  # ready and one move, nothing lost on the way out


@pytest.mark.parametrize(("command", "name"), ALL_BOTS)
def test_exits_after_error(command: list[str], name: str) -> None:
    """Each bot exits with code 0 when the referee sends an error."""
    error = Error(code="timeout", message="did not answer request 7 in time")
    run = run_bot(command, [hello(), hand_start([(1, 2)]), error])
    assert run.returncode == 0, f"{name}: {run.returncode}, stderr: {run.stderr}"


@pytest.mark.parametrize(("command", "name"), ALL_BOTS)
def test_exits_on_eof(command: list[str], name: str) -> None:
    """Each bot exits with code 0 when its stdin closes without a match_end."""
    run = run_bot(command, [hello(), hand_start([(1, 2)])], close_stdin=True)
    assert run.returncode == 0, f"{name}: {run.returncode}, stderr: {run.stderr}"
    assert run.replies() == [Ready(name=name)]


@pytest.mark.parametrize(("command", "name"), ALL_BOTS)
def test_ignores_unknown_types_and_fields(command: list[str], name: str) -> None:
    """Each bot ignores a message type and fields that protocol v1 does not define."""
    with_extra = msgspec.json.decode(encode(ONLY_DRAW))
    with_extra["shiny_new_field"] = {"nested": [1, 2]}
    raw = [
        b'{"type":"shiny_new_message","x":1}\n',
        msgspec.json.encode(with_extra) + b"\n",
        encode(match_end()) + b"\n",
    ]
    run = run_bot(command, [hello(), hand_start([(1, 2)])], raw=raw)
    assert run.returncode == 0, run.stderr
    assert [m.move for m in run.moves()] == [as_reply(Draw())]


# -- the random bot ----------------------------------------------------------------------------


def _random_choices(seed: int) -> list[WireMove]:
    """The random bot's choices in 20 positions, from a hello with ``seed``."""
    command = [sys.executable, str(BOT_DIR / "random_bot.py")]
    requests = [
        msgspec.structs.replace(position, id=n)
        for n, position in enumerate([HEAVIEST, MATADORS_AND_DRAW, MATADORS_NO_BLANK, LEAD] * 5)
    ]
    return [reply.move for reply in play_positions(command, requests, seed)]


def test_random_bot_is_reproducible() -> None:
    """The random bot makes the same choices twice from the same hello seed."""
    first = _random_choices(seed=1)
    assert _random_choices(seed=1) == first
    assert len(set(map(encode, first))) > 3  # and it does spread its choices


def test_random_bot_seed_changes_choices() -> None:
    """The random bot seeds its generator from hello's seed, not from a constant."""
    command = [sys.executable, str(BOT_DIR / "random_bot.py")]
    requests = [msgspec.structs.replace(MATADORS_NO_BLANK, id=n) for n in range(20)]

    def choices(seed: int) -> list[WireMove]:
        run = run_bot(command, [hello(seed=seed), *requests, match_end()])
        return [m.move for m in run.moves()]

    assert choices(1) != choices(2)
    expected = random.Random(2)
    assert choices(2) == [as_reply(expected.choice(MATADORS_NO_BLANK.legal)) for _ in requests]


# -- the greedy bots ---------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "name"), GREEDY_BOTS)
@pytest.mark.parametrize(("position", "expected", "note"), GREEDY_CASES)
def test_greedy_choice(
    command: list[str], name: str, position: MoveRequest, expected: WireMove, note: str
) -> None:
    """Each greedy bot picks exactly the expected move in a hand-made position, and explains
    it in the debug note."""
    (reply,) = play_positions(command, [position])
    assert reply.move == as_reply(expected), f"{name}: {reply.debug}"
    assert reply.debug == note


def _engine_requests(count: int, seed: int) -> list[MoveRequest]:
    """``count`` real requests from random playouts of the engine, over several rule sets."""
    variants = [
        (EngineRules(), 2),
        (EngineRules(draw_when_playable="always", reserve=2), 3),
        (EngineRules(draw_when_playable="never", draw_mode="one_then_pass"), 4),
        (EngineRules(hand_size=7, lead="highest_double"), 2),
    ]
    rng = random.Random(seed)
    requests: list[MoveRequest] = []
    match_number = 0
    while len(requests) < count:
        rules, players = variants[match_number % len(variants)]
        length = EngineMatchLength(target=None, hands=1)
        hand = start_match(MATADOR, rules, players, seed + match_number, length).hand
        while hand.outcome() is None and len(requests) < count:
            view = hand.view(hand.to_move)
            requests.append(move_request(view, len(requests), 1, 1000, 0))
            hand = hand.apply(rng.choice(view.legal))
        match_number += 1
    return requests


def _check_greedy_policy(sent: MoveRequest, reply: ReplyMove) -> None:
    """Assert that ``reply`` follows the greedy policy in ``sent``: an ordinary tile while one
    fits (matadors kept), a matador rather than a draw, and never a draw beside a play."""
    move = next(mv for mv in sent.legal if as_reply(mv) == reply)
    plays = [mv for mv in sent.legal if isinstance(mv, Play)]
    ordinary = [mv for mv in plays if tuple(sorted(mv.tile)) not in MATADORS]
    if ordinary:
        assert move in ordinary
    elif plays:
        assert move in plays
    else:
        assert move == sent.legal[0]


@needs_node
def test_greedy_py_and_js_agree_on_engine_positions() -> None:
    """greedy.py and greedy.js make the same move, with the same note, in 200 real positions."""
    requests = _engine_requests(200, seed=11)
    assert len(requests) == 200
    py = play_positions([sys.executable, str(BOT_DIR / "greedy.py")], requests)
    js = play_positions([NODE or "node", str(BOT_DIR / "greedy.js")], requests)
    assert [(r.move, r.debug) for r in py] == [(r.move, r.debug) for r in js]
    for sent, reply in zip(requests, py, strict=True):
        _check_greedy_policy(sent, reply.move)


def test_greedy_py_runs_without_the_package_installed(tmp_path: Path) -> None:
    """greedy.py finds ``protocol`` next to sample_bots/ when it cannot be imported."""
    script = str(BOT_DIR / "greedy.py")
    hide = (
        "import runpy, sys; "
        "sys.meta_path = [f for f in sys.meta_path if 'ditable' not in repr(f)]; "
        "sys.path = [q for q in sys.path if q not in ('', '.')]; "
        f"sys.argv = [{script!r}]; "
        f"runpy.run_path({script!r}, run_name='__main__')"
    )
    probe = subprocess.run(
        [sys.executable, "-c", hide.replace("runpy.run_path", "import protocol; runpy.run_path")],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert probe.returncode != 0
    assert b"No module named 'protocol'" in probe.stderr
    run = run_bot([sys.executable, "-c", hide], [hello(), HEAVIEST, match_end()], cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert [m.move for m in run.moves()] == [as_reply(p(0, 6, "left", 0))]


# -- real matches through the referee ----------------------------------------------------------


def _play(commands: list[str], seed: int) -> Any:
    """A 2-hand match with the default rules through the referee; returns the replay."""
    # Imported here so that the bot tests above still run while the referee is being changed.
    from arena.referee.clock import TimeLimits
    from arena.referee.match import MatchConfig, play_match

    config = MatchConfig(
        game=MATADOR,
        rules=EngineRules(),
        players=2,
        seed=seed,
        length=EngineMatchLength(target=None, hands=2),
        time=TimeLimits(startup_ms=5000, move_ms=2000),
    )
    return trio.run(play_match, config, commands)


MATCHES = [
    pytest.param(["greedy.py", "greedy.js"], id="greedy.py-vs-greedy.js", marks=needs_node),
    pytest.param(["random_bot.py", "greedy.py"], id="random-vs-greedy.py"),
]


def _command(script: str) -> str:
    """The command line for a sample bot script, with an absolute path."""
    interpreter = sys.executable if script.endswith(".py") else (NODE or "node")
    return f"{interpreter} {BOT_DIR / script}"


@pytest.mark.slow
@pytest.mark.parametrize("scripts", MATCHES)
def test_real_match(scripts: list[str]) -> None:
    """A 2-hand match through play_match ends with every seat OK and the last hand's scores."""
    from arena.replay import Status

    replay = _play([_command(s) for s in scripts], seed=2024)
    assert [(s.status, s.detail) for s in replay.seats] == [(Status.OK, "")] * 2
    assert len(replay.hands) == 2
    last = replay.hands[-1].outcome
    assert last is not None
    assert replay.result.scores == last.scores
    assert replay.result.reason == "hands"


@pytest.mark.slow
def test_real_match_is_reproducible() -> None:
    """The same seed gives the same match move for move, the random bot included."""
    commands = [_command("random_bot.py"), _command("greedy.py")]

    def moves(seed: int) -> list[tuple[int, Any]]:
        replay = _play(commands, seed)
        return [(e.seat, e.move) for hand in replay.hands for e in hand.events]

    assert moves(5) == moves(5)


# -- Fives ---------------------------------------------------------------------------------------
#
# Every sample bot plays both games. The random bot never looks at the game; the greedy bots
# read hello.game and, in Fives, play the move that scores the most (the count after it, when a
# positive multiple of five), then the heaviest tile.


def fives_hello(seed: int = 1, seat: int = 1) -> Hello:
    """A ``hello`` for a Fives match to 100 with the default rules."""
    return Hello(
        protocol=1,
        game="fives",
        seat=seat,
        players=2,
        rules=FivesRules(),
        match=MatchLength(target=100),
        time=TimeControl(startup_ms=5000, move_ms=1000),
        seed=seed,
    )


def fives_position(hands: tuple[str, str], line: str = "", top: str = "") -> Any:
    """A Fives hand started by the engine from ``hands`` (``"1-6 3-6 ..."``), the stock ``top``
    first, then the moves of ``line`` (``str(Move)`` texts separated by ``;``) applied."""
    from arena.games.api import Deal
    from arena.games.fives import start_hand
    from arena.games.tiles import ALL_TILES, make_tile

    def tiles(text: str) -> list[tuple[int, int]]:
        return [make_tile(int(t[0]), int(t[2])) for t in text.split()]

    lists = [tuple(tiles(h)) for h in hands]
    first = tiles(top) if top else []
    used = {t for h in lists for t in h} | set(first)
    stock = (*first, *(t for t in ALL_TILES if t not in used))
    state = start_hand(EngineFivesRules(), 2, Deal(tuple(lists), stock))
    for text in filter(None, (part.strip() for part in line.split(";"))):
        state = state.apply(next(m for m in state.legal_moves() if str(m) == text))
    return state


def fives_request(state: Any, request_id: int) -> MoveRequest:
    """The request the referee sends the seat to move in ``state``."""
    return move_request(state.view(state.to_move), request_id, 1, 1000, 0)


SIX = ("1-6 3-6 0-0 0-1 1-1 1-2 0-2", "6-6 4-6 2-6 0-3 0-4 1-3 1-4")
# B after 1-6 west, 4-6 east, 3-6 north (ends west 1, east 4, north 3, south 6 empty):
# 2-6 south and 1-3 west both count 10; 2-6 is heavier. 1-4 west (11) is the heaviest no-score.
FIVES_SCORES_MOST = fives_request(
    fives_position(SIX, "1-6 on west, 1 out; 4-6 on east, 4 out; 3-6 on north, 3 out"), 31
)
# A's first move on B's lone 6-6: 1-6 or 3-6, west or east; 3-6 counts 3 + 12 = 15, 1-6 13.
FIVES_OPENING_REPLY = fives_request(fives_position(SIX), 32)
# A holds no six for the lone 6-6: DRAW is the only move.
FIVES_DRAW = fives_request(
    fives_position(("0-1 0-2 0-3 0-4 1-3 1-4 2-3", "6-6 0-5 1-5 2-5 3-5 4-5 5-5"), top="1-2 3-6"),
    33,
)
# No play scores: A leads 3-6 (9); B's 0-3 west 0 + 6 = 6, 3-4 west 4 + 6 = 10 (scores!),
# 1-6 east 3 + 1 = 4, 2-6 east 3 + 2 = 5 (scores): 3-4 (10) beats 2-6 (5).
FIVES_DOMINO_DEAL = ("3-6 2-5 0-1 1-4 2-4 4-5 3-5", "2-6 0-3 1-5 1-2 3-4 0-5 1-6")
FIVES_TWO_SCORES = fives_request(fives_position(FIVES_DOMINO_DEAL), 34)
# Then A after 2-6 east (ends west 3, east 2): 3-5 west 5 + 2 = 7, 2-4 east 3 + 4 = 7,
# 2-5 east 3 + 5 = 8: nothing scores, so the heaviest, 3-5 (8 pips), on west.
FIVES_NO_SCORE = fives_request(fives_position(FIVES_DOMINO_DEAL, "2-6 on east, 2 out"), 35)

FIVES_GREEDY_CASES = [
    pytest.param(
        FIVES_SCORES_MOST, p(2, 6, "south", 2), "scores 10: 2-6 on south", id="most-points"
    ),
    pytest.param(
        FIVES_OPENING_REPLY, p(3, 6, "west", 3), "scores 15: 3-6 on west", id="first-reply"
    ),
    pytest.param(
        FIVES_TWO_SCORES, p(3, 4, "west", 4), "scores 10: 3-4 on west", id="ten-beats-five"
    ),
    pytest.param(
        FIVES_NO_SCORE,
        p(3, 5, "west", 5),
        "no score: heaviest 3-5 on west (8 pips)",
        id="no-score-heaviest",
    ),
    pytest.param(FIVES_DRAW, Draw(), "nothing to play: draw", id="only-draw"),
]


@pytest.mark.parametrize(("command", "name"), GREEDY_BOTS)
@pytest.mark.parametrize(("position", "expected", "note"), FIVES_GREEDY_CASES)
def test_greedy_fives_choice(
    command: list[str], name: str, position: MoveRequest, expected: WireMove, note: str
) -> None:
    """Each greedy bot picks the move that scores the most in a Fives position, then the
    heaviest, and says so in its note."""
    run = run_bot(command, [fives_hello(), position, match_end()])
    assert run.returncode == 0, run.stderr
    (reply,) = run.moves()
    assert reply.move == as_reply(expected), f"{name}: {reply.debug}"
    assert reply.debug == note


@pytest.mark.parametrize(("command", "name"), ALL_BOTS)
def test_every_bot_answers_fives_requests_legally(command: list[str], name: str) -> None:
    """Each bot answers a Fives transcript (hello, hand_start, requests, hand_end) legally."""
    requests = [FIVES_OPENING_REPLY, FIVES_SCORES_MOST, FIVES_DRAW, FIVES_NO_SCORE]
    state = fives_position(SIX)
    start = hand_start_message(state)
    run = run_bot(command, [fives_hello(), start, *requests, match_end()])
    assert run.returncode == 0, f"{name}: {run.stderr}"
    moves = run.moves()
    assert [m.id for m in moves] == [r.id for r in requests]
    for reply, sent in zip(moves, requests, strict=True):
        assert reply.move in [as_reply(m) for m in sent.legal]


def hand_start_message(state: Any) -> HandStart:
    from arena.wire import hand_start as build_hand_start

    return build_hand_start(state.view(1 - state.leader), 1, state.leader)


def _greedy_module() -> dict[str, Any]:
    import runpy

    return runpy.run_path(str(BOT_DIR / "greedy.py"))


def _fives_engine_positions(count: int, seed: int) -> list[tuple[Any, MoveRequest]]:
    """``count`` real Fives positions (and their requests) from random playouts, both flags."""
    from arena.games.fives import FIVES

    rng = random.Random(seed)
    found: list[tuple[Any, MoveRequest]] = []
    match_number = 0
    while len(found) < count:
        rules = EngineFivesRules(spinner_sides_first=match_number % 2 == 0)
        length = EngineMatchLength(target=None, hands=1)
        hand = start_match(FIVES, rules, 2, seed + match_number, length).hand
        while hand.outcome() is None and len(found) < count:
            assert hand.to_move is not None
            view = hand.view(hand.to_move)
            found.append((hand, move_request(view, len(found), 1, 1000, 0)))
            hand = hand.apply(rng.choice(view.legal))
        match_number += 1
    return found


def _points(state: Any, move: Any) -> int:
    """What ``move`` scores at once in ``state``, by the engine: its count event, if any."""
    after = state.apply(move)
    new = after.scoring[len(state.scoring) :]
    return sum(points for _seat, points, reason in new if reason == "count")


def test_greedy_fives_arithmetic_is_the_engines() -> None:
    """greedy.py's count of the table after a play (from the request alone) scores exactly what
    the engine scores for it, for every legal play of 300 real positions."""
    from arena.wire import move_from_wire

    points_of = _greedy_module()["fives_points"]
    checked = 0
    for state, request in _fives_engine_positions(300, seed=5):
        for wire in request.legal:
            if isinstance(wire, Play):
                assert points_of(wire, request) == _points(state, move_from_wire(wire)), (
                    request,
                    wire,
                )
                checked += 1
    assert checked > 300


@needs_node
def test_greedy_py_and_js_agree_on_fives_positions() -> None:
    """greedy.py and greedy.js make the same Fives move, with the same note, in 200 real
    positions, and it scores the most of the legal plays, then has the most pips."""
    from arena.wire import move_from_wire

    positions = _fives_engine_positions(200, seed=17)
    requests = [request for _state, request in positions]

    def replies(command: list[str]) -> list[MoveReply]:
        run = run_bot(command, [fives_hello(), *requests, match_end()])
        assert run.returncode == 0, run.stderr
        return run.moves()

    py = replies([sys.executable, str(BOT_DIR / "greedy.py")])
    js = replies([NODE or "node", str(BOT_DIR / "greedy.js")])
    assert [(r.move, r.debug) for r in py] == [(r.move, r.debug) for r in js]
    for (state, sent), reply in zip(positions, py, strict=True):
        assert reply.id == sent.id
        plays = [w for w in sent.legal if isinstance(w, Play)]
        if not plays:
            assert reply.move == as_reply(sent.legal[0])
            continue
        scored = {w: _points(state, move_from_wire(w)) for w in plays}
        chosen = next(w for w in plays if as_reply(w) == reply.move)
        best = max(scored.values())
        assert scored[chosen] == best
        assert sum(chosen.tile) == max(sum(w.tile) for w in plays if scored[w] == best)


def _play_fives(commands: list[str], seed: int) -> Any:
    """A Fives match to 100 through the referee; returns the replay."""
    from arena.games.fives import FIVES
    from arena.referee.clock import TimeLimits
    from arena.referee.match import MatchConfig, play_match

    config = MatchConfig(
        game=FIVES,
        rules=EngineFivesRules(),
        players=2,
        seed=seed,
        length=EngineMatchLength(target=100),
        time=TimeLimits(startup_ms=5000, move_ms=2000),
    )
    return trio.run(play_match, config, commands)


FIVES_MATCHES = [
    pytest.param(["greedy.py", "greedy.js"], id="greedy.py-vs-greedy.js", marks=needs_node),
    pytest.param(["random_bot.py", "greedy.py"], id="random-vs-greedy.py"),
    pytest.param(["greedy.js", "random_bot.py"], id="greedy.js-vs-random", marks=needs_node),
]


@pytest.mark.slow
@pytest.mark.parametrize("scripts", FIVES_MATCHES)
def test_real_fives_match(scripts: list[str]) -> None:
    """A whole Fives match to 100 through play_match: every seat OK, the replay verifies, the
    winner reached 100, and the greedy bots' notes show they scored."""
    from arena.replay import Action, Status
    from arena.verify import verify_replay

    replay = _play_fives([_command(s) for s in scripts], seed=2024)
    assert [(s.status, s.detail) for s in replay.seats] == [(Status.OK, "")] * 2
    assert replay.result.reason == "target"
    assert replay.result.winner is not None
    assert replay.result.scores[replay.result.winner] >= 100
    report = verify_replay(replay)
    assert report.ok, report.error
    notes = [
        e.debug
        for hand in replay.hands
        for e in hand.events
        if isinstance(e, Action) and e.debug is not None
    ]
    assert any(note.startswith("scores ") for note in notes)
