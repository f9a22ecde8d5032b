"""The golden replays: deterministic matches between in-memory scripted bots, written with what
both viewers make of them, so that any change to a replay's bytes or to what a viewer shows is
seen by ``tests/golden/test_golden.py``.

Rewrite every golden file (after a deliberate change of the replay format, a game or a viewer)::

    python3 -m tests.golden.make_golden

For each match in :data:`CASES` it writes, under ``tests/data/golden/``:

- ``NAME.replay.json``: the replay (what ``arena play`` writes), normalised (below);
- ``NAME.view.txt``: the terminal viewer's whole output (``arena view NAME.replay.json --all``,
  no colour);
- ``NAME.viewer.json``: the data the HTML viewer's page carries (the JSON in its
  ``<script id="viewer-data">`` element, from ``arena view --html``), indented.

The matches run on trio's ``MockClock`` (``autojump_threshold=0``: no real time passes, a late
reply is an hour late in zero seconds), so every timing in them (``elapsed_ms``,
``time_left_ms``, ``duration_s``) is the same on every run. Two fields depend on the run and
not on the match, and only those are normalised: ``started_at`` (the wall clock; set to ``""``,
the format's "unknown") and ``workdir`` (the folder the arena ran in; set to ``""``, which the
format omits). ``docs/replay-format.md`` says a re-run differs only in ``elapsed_ms``,
``started_at`` and ``duration_s``: the mock clock fixes the first and the last, and ``workdir``
is the checkout's path, not part of the match.

A case lists its game, players, seed, length, rules flags (as the replay writes them), failure
policy and one scripted bot per seat (:mod:`tests.golden.bots`), and what the match is there to
show (:attr:`Case.expect`), checked on every generation so a case cannot quietly stop covering
what it was written for.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from arena.games.match import MatchLength
from arena.games.registry import GAMES
from arena.policy import make_policy
from arena.referee.channel import BotChannel, BotSpec, Connector, Script, ScriptedBot
from arena.referee.clock import TimeLimits
from arena.referee.framing import PREFIX_BYTES, LineTooLongError
from arena.referee.match import MatchConfig, play_match
from arena.replay import Action, Replay, Restart, Retirement, encode_replay
from tests.golden.bots import scripted
from tests.helpers import run_on_mock_clock

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden"
#: The command that rewrites the golden files (failure messages name it).
REGENERATE = "python3 -m tests.golden.make_golden"

#: Every variant flag of Matador away from its default (docs/rules.md 1.3, 1.4, 1.9).
MATADOR_VARIANT = {
    "hand_size": "9-n",
    "lead": "highest_double",
    "draw_when_playable": "always",
    "reserve": 2,
    "draw_mode": "one_then_pass",
}
#: Every variant flag of Fives away from its default (docs/rules.md 2.4, 2.10).
FIVES_VARIANT = {"spinner_sides_first": False, "block_winner": "fewer_pips"}
#: The time control of every case that does not set its own.
TIME = TimeLimits(startup_ms=1000, move_ms=1000, bank_ms=0)


@dataclass(frozen=True)
class Case:
    """One golden match.

    Attributes:
        name: the files' stem.
        game: ``matador`` or ``fives``.
        seed: the match seed.
        bots: one factory per seat, each making a fresh scripted bot (scripts keep state).
        target, hands: the match length (exactly one of them).
        rules: the rules flags that differ from the game's defaults.
        policy: the failure policy's name.
        time: the time control.
        expect: what the replay must show, as (description, predicate) pairs.
    """

    name: str
    game: str
    seed: int
    bots: Sequence[Callable[[], Script]]
    target: int | None = None
    hands: int | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    policy: str = "strict"
    time: TimeLimits = TIME
    expect: Sequence[tuple[str, Callable[[Replay], bool]]] = ()

    @property
    def commands(self) -> list[str]:
        """The seats' commands as the replay records them: ``scripted-N`` (N: the seat)."""
        return [f"scripted-{seat}" for seat in range(len(self.bots))]


def bot(name: str, choose: str = "first-legal", **options: Any) -> Callable[[], Script]:
    """A factory of :func:`tests.golden.bots.scripted` bots."""
    return functools.partial(scripted, name, choose, **options)


# -- what a case must show ---------------------------------------------------------------------


def statuses(*expected: str) -> tuple[str, Callable[[Replay], bool]]:
    return (
        f"seat statuses {list(expected)}",
        lambda r: [s.status.value for s in r.seats] == list(expected),
    )


def reason(expected: str) -> tuple[str, Callable[[Replay], bool]]:
    return (f"result reason {expected}", lambda r: r.result.reason == expected)


def hands_played(expected: int) -> tuple[str, Callable[[Replay], bool]]:
    return (f"{expected} hands played", lambda r: len(r.hands) == expected)


def _events(replay: Replay) -> list[Any]:
    return [event for hand in replay.hands for event in hand.events]


def has_event(kind: type, description: str) -> tuple[str, Callable[[Replay], bool]]:
    return (description, lambda r: any(isinstance(e, kind) for e in _events(r)))


def strikes(*expected: int) -> tuple[str, Callable[[Replay], bool]]:
    return (f"strikes {list(expected)}", lambda r: [s.strikes for s in r.seats] == list(expected))


def struck(status: str) -> tuple[str, Callable[[Replay], bool]]:
    return (
        f"a strike for {status}",
        lambda r: any(
            isinstance(e, Action) and e.strike is not None and e.strike.status.value == status
            for e in _events(r)
        ),
    )


def phase(seat: int, expected: str) -> tuple[str, Callable[[Replay], bool]]:
    def check(replay: Replay) -> bool:
        failure = replay.seats[seat].failure
        return failure is not None and failure.phase == expected

    return (f"seat {seat} failed in phase {expected}", check)


def opening_ends_a_hand() -> tuple[str, Callable[[Replay], bool]]:
    return ("a hand over at its opening", lambda r: any(not h.events for h in r.hands))


# -- the matches -------------------------------------------------------------------------------

CASES: tuple[Case, ...] = (
    Case(
        "matador-2p-hands",
        "matador",
        seed=1,
        hands=2,
        bots=[bot("first", debug=True), bot("last", "last-legal")],
        expect=[statuses("ok", "ok"), reason("hands"), hands_played(2)],
    ),
    Case(
        "matador-2p-target",
        "matador",
        seed=10,
        target=100,
        bots=[bot("random", "random", seed=1), bot("first")],
        time=TimeLimits(startup_ms=2000, move_ms=500, bank_ms=3000),
        expect=[statuses("ok", "ok"), reason("target")],
    ),
    Case(
        "matador-3p-hands",
        "matador",
        seed=2,
        hands=2,
        bots=[bot("first"), bot("last", "last-legal"), bot("random", "random", seed=3)],
        expect=[statuses("ok", "ok", "ok"), hands_played(2)],
    ),
    Case(
        "matador-4p-hands",
        "matador",
        seed=3,
        hands=2,
        bots=[
            bot("first"),
            bot("last", "last-legal"),
            bot("random-a", "random", seed=4),
            bot("quitter", "random", seed=5, debug=True, quit_on="hand_end"),
        ],
        expect=[
            statuses("ok", "ok", "ok", "crash"),
            phase(3, "notify"),
            hands_played(2),
            has_event(Retirement, "a retirement"),
        ],
    ),
    Case(
        "matador-3p-variant",
        "matador",
        seed=4,
        hands=2,
        rules=MATADOR_VARIANT,
        bots=[bot("first"), bot("random", "random", seed=6), bot("last", "last-legal")],
        expect=[statuses("ok", "ok", "ok"), hands_played(2)],
    ),
    Case(
        "matador-2p-variant",
        "matador",
        seed=6,
        hands=1,
        rules={"hand_size": 7, "draw_when_playable": "never"},
        bots=[bot("first"), bot("random", "random", seed=7)],
        expect=[statuses("ok", "ok"), hands_played(1)],
    ),
    Case(
        "fives-2p-target",
        "fives",
        seed=21,
        target=100,
        bots=[bot("first"), bot("first-too")],
        expect=[statuses("ok", "ok"), reason("target"), opening_ends_a_hand()],
    ),
    Case(
        "fives-2p-hands",
        "fives",
        seed=7,
        hands=2,
        bots=[bot("random", "random", seed=8, debug=True), bot("last", "last-legal")],
        expect=[statuses("ok", "ok"), reason("hands"), hands_played(2)],
    ),
    Case(
        "fives-2p-variant",
        "fives",
        seed=8,
        hands=2,
        rules=FIVES_VARIANT,
        bots=[bot("first"), bot("random", "random", seed=9)],
        expect=[statuses("ok", "ok"), hands_played(2)],
    ),
    Case(
        "matador-2p-illegal",
        "matador",
        seed=9,
        hands=2,
        bots=[bot("first"), bot("cheat", faults={3: "pass"})],
        expect=[statuses("ok", "illegal_move"), reason("forfeit")],
    ),
    Case(
        "matador-3p-illegal",
        "matador",
        seed=10,
        hands=1,
        bots=[bot("first"), bot("cheat", faults={2: "pass"}), bot("last", "last-legal")],
        expect=[
            statuses("ok", "illegal_move", "ok"),
            reason("hands"),
            has_event(Retirement, "a retirement"),
        ],
    ),
    Case(
        "matador-2p-bad-message",
        "matador",
        seed=11,
        hands=1,
        bots=[bot("garbled", faults={2: "garbage"}), bot("first")],
        expect=[statuses("bad_message", "ok"), reason("forfeit")],
    ),
    Case(
        "fives-2p-illegal",
        "fives",
        seed=12,
        hands=2,
        bots=[bot("first"), bot("cheat", faults={4: "pass"})],
        expect=[statuses("ok", "illegal_move"), reason("forfeit")],
    ),
    Case(
        "fives-2p-timeout",
        "fives",
        seed=13,
        hands=2,
        bots=[bot("slow", faults={3: "late"}), bot("first")],
        expect=[statuses("timeout", "ok"), reason("forfeit")],
    ),
    Case(
        "matador-4p-failures",
        "matador",
        seed=14,
        hands=2,
        bots=[
            bot("mute", ready=False),
            bot("first"),
            bot("long", faults={2: "long"}),
            bot("wrong-id", "last-legal", faults={3: "wrong_id"}),
        ],
        expect=[
            statuses("timeout", "ok", "line_too_long", "bad_message"),
            phase(0, "startup"),
            reason("forfeit"),
        ],
    ),
    Case(
        "matador-3p-lenient",
        "matador",
        seed=15,
        hands=1,
        policy="lenient",
        bots=[
            bot("wobbly", faults={2: "pass", 4: "late"}),
            bot("crashy", "last-legal", faults={3: "crash"}),
            bot("garbled", "random", seed=10, faults={2: "garbage", 3: "pass", 5: "pass"}),
        ],
        expect=[
            statuses("ok", "ok", "illegal_move"),
            strikes(2, 0, 3),
            struck("illegal_move"),
            struck("timeout"),
            struck("bad_message"),
            has_event(Restart, "a restart"),
        ],
    ),
    Case(
        "fives-2p-lenient",
        "fives",
        seed=16,
        hands=2,
        policy="lenient",
        bots=[bot("wobbly", faults={2: "pass"}), bot("crashy", faults={3: "crash", 9: "crash"})],
        expect=[statuses("ok", "crash"), has_event(Restart, "a restart"), reason("forfeit")],
    ),
    Case(
        "matador-2p-classroom",
        "matador",
        seed=17,
        hands=2,
        policy="classroom",
        bots=[bot("first"), bot("cheat", faults={2: "pass"})],
        expect=[statuses("ok", "illegal_move"), reason("forfeit")],
    ),
)


# -- playing and rendering ---------------------------------------------------------------------


class _FramedBot(ScriptedBot):
    """A scripted bot whose over-long line is reported as the real framing reports it: by its
    first `PREFIX_BYTES` bytes (`ScriptedBot` keeps the whole line)."""

    async def receive_line(self) -> bytes:
        try:
            return await super().receive_line()
        except LineTooLongError as error:
            raise LineTooLongError(error.prefix[:PREFIX_BYTES], error.limit) from None


def connector(scripts: dict[str, Script]) -> Connector:
    """Serves a `_FramedBot` per command (a restarted seat gets its script again)."""

    @contextlib.asynccontextmanager
    async def connect(spec: BotSpec) -> AsyncIterator[BotChannel]:
        bot = _FramedBot(scripts[spec.command])
        try:
            yield bot
        finally:
            await bot.aclose()

    return connect


def normalise(replay: Replay) -> Replay:
    """The replay without the fields that depend on the run, not the match (see the module
    docstring): ``started_at`` and ``workdir`` emptied."""
    return msgspec.structs.replace(replay, started_at="", workdir="")


def play(case: Case) -> Replay:
    """Play ``case`` on trio's MockClock and return its normalised replay."""
    game = GAMES[case.game]
    config = MatchConfig(
        game=game,
        rules=game.parse_rules(dict(case.rules)),
        players=len(case.bots),
        seed=case.seed,
        length=MatchLength(target=case.target, hands=case.hands),
        time=case.time,
        policy=make_policy(case.policy),
    )
    scripts = {command: make() for command, make in zip(case.commands, case.bots, strict=True)}
    run = functools.partial(play_match, config, case.commands, connect=connector(scripts))
    replay: Replay = run_on_mock_clock(run)
    return normalise(replay)


def unmet(case: Case, replay: Replay) -> list[str]:
    """What ``case`` promises that its replay does not show."""
    return [description for description, check in case.expect if not check(replay)]


def replay_bytes(case: Case) -> bytes:
    """The golden replay file of ``case``: played afresh, normalised, encoded."""
    return encode_replay(play(case))


def view_text(path: Path) -> str:
    """What ``arena view PATH --all`` prints (no terminal, so no colour)."""
    from arena.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["view", str(path), "--all"])
    if code != 0:
        raise RuntimeError(f"arena view {path} --all exited with {code}")
    return out.getvalue()


_DATA = re.compile(r'<script type="application/json" id="viewer-data">(.*?)</script>', re.S)


def page_data(page: str) -> Any:
    """The viewer data embedded in an HTML viewer page, decoded."""
    found = _DATA.search(page)
    if found is None:
        raise ValueError('no <script type="application/json" id="viewer-data"> in the page')
    return json.loads(found.group(1))


def viewer_json(path: Path, html: Path) -> str:
    """The data of the page ``arena view PATH --html HTML`` writes, as the golden text."""
    from arena.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["view", str(path), "--html", str(html)])
    if code != 0:
        raise RuntimeError(f"arena view {path} --html exited with {code}")
    return data_text(page_data(html.read_text(encoding="utf-8")))


def data_text(data: dict[str, Any]) -> str:
    """Viewer data as the golden text: valid JSON with each top-level field on a line of its
    own, and each seat and each step on a line of its own (compact, so the files stay small and
    a change shows in a diff as the steps it touches)."""

    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    fields = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items = ",\n".join(compact(v) for v in value)
            fields.append(f"{compact(key)}:[\n{items}\n]")
        else:
            fields.append(f"{compact(key)}:{compact(value)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"


def paths(name: str, folder: Path = GOLDEN) -> tuple[Path, Path, Path]:
    """The replay, view text and viewer data files of the case ``name``."""
    return (
        folder / f"{name}.replay.json",
        folder / f"{name}.view.txt",
        folder / f"{name}.viewer.json",
    )


def write_all(folder: Path = GOLDEN) -> list[Path]:
    """Play every case and write its three golden files; returns them, in order.

    Raises:
        AssertionError: when a case's replay does not show what the case promises.
    """
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in CASES:
            replay = play(case)
            missing = unmet(case, replay)
            assert not missing, f"{case.name}: the replay does not show {missing}"
            replay_path, view_path, data_path = paths(case.name, folder)
            replay_path.write_bytes(encode_replay(replay))
            view_path.write_text(view_text(replay_path), encoding="utf-8")
            html = Path(scratch) / f"{case.name}.html"
            data_path.write_text(viewer_json(replay_path, html), encoding="utf-8")
            written += [replay_path, view_path, data_path]
    known = set(written) | {folder / "README.md"}
    for stale in sorted(set(folder.iterdir()) - known):
        stale.unlink()
        print(f"removed {stale.relative_to(ROOT)} (no case of that name)")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    if argv:
        print(f"usage: {REGENERATE}  (rewrites every file in {GOLDEN.relative_to(ROOT)})")
        return 2
    written = write_all()
    total = sum(p.stat().st_size for p in written)
    for p in written:
        print(f"{p.stat().st_size:>8}  {p.relative_to(ROOT)}")
    print(f"{total:>8}  bytes in {len(written)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
