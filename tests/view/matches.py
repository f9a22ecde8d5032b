"""Real matches for the viewer tests, played in the test: in-memory scripted bots under trio's
``MockClock`` (deterministic to the move), or real subprocess bots from ``tests/bots``."""

from __future__ import annotations

import functools
import json
import shlex
import sys
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from pathlib import Path

import trio
import trio.testing

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.games.registry import get_game
from arena.policy import STRICT, FailurePolicy, make_policy
from arena.referee.channel import BotChannel, BotSpec, Reply, Script, scripted_connector
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.referee.process import open_bot_process
from arena.replay import Replay
from tests.helpers import run_on_mock_clock

ROOT = Path(__file__).resolve().parents[2]
PLAYER = ROOT / "tests" / "bots" / "player.py"


LENIENT = make_policy("lenient")


def scripted_bot(
    name: str,
    *,
    fail_at: int | Collection[int] | None = None,
    debug: str | None = None,
    pick: int = 0,
) -> Script:
    """A bot that plays legal move number ``pick`` (the last one when there are fewer); at
    request ``fail_at`` (or at each of several) it passes instead (illegal there: it is
    retired, or under ``lenient`` struck)."""
    requests = 0
    failing = (
        frozenset()
        if fail_at is None
        else frozenset([fail_at] if isinstance(fail_at, int) else fail_at)
    )

    def script(line: bytes) -> Reply | None:
        nonlocal requests
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if kind == "request":
            requests += 1
            legal = message["legal"]
            move = {"action": "pass"} if requests in failing else legal[min(pick, len(legal) - 1)]
            reply = {"type": "move", "id": message["id"], "move": move}
            if debug is not None:
                reply["debug"] = f"{debug} #{requests}"
            return [json.dumps(reply).encode()]
        if kind in ("match_end", "error"):
            return None
        return []

    return script


def play_scripted(
    scripts: list[Script],
    *,
    seed: int,
    hands: int = 1,
    policy: FailurePolicy = STRICT,
    game: str = "matador",
) -> Replay:
    """Play a real match between in-memory scripted bots (seat order); return its replay.
    ``game``: the registry's name of the game (its default rules)."""
    plugin = get_game(game)
    config = MatchConfig(
        game=plugin,
        rules=plugin.parse_rules({}),
        players=len(scripts),
        seed=seed,
        length=MatchLength(target=None, hands=hands),
        policy=policy,
    )
    commands = [f"bot{i}" for i in range(len(scripts))]
    connect = scripted_connector(dict(zip(commands, scripts, strict=True)))
    run = functools.partial(play_match, config, commands, connect=connect)
    return run_on_mock_clock(run)


def player_command(mode: str, at: int = 1, arg: str | None = None) -> str:
    """The command line of ``tests/bots/player.py`` misbehaving as ``mode`` at request ``at``
    (``arg``: the mode's argument, e.g. ``crash_once``'s flag file)."""
    parts = [sys.executable, str(PLAYER), mode, str(at), *([] if arg is None else [arg])]
    return " ".join(shlex.quote(p) for p in parts)


def play_processes(
    commands: list[str],
    *,
    seed: int,
    hands: int = 1,
    policy: FailurePolicy = STRICT,
    scripts: dict[str, Script] | None = None,
) -> Replay:
    """Play a real match between subprocess bots; return its replay. A command named in
    ``scripts`` is an in-memory scripted bot instead (on the real clock, like the others)."""
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=len(commands),
        seed=seed,
        length=MatchLength(target=None, hands=hands),
        time=TimeLimits(startup_ms=10_000, move_ms=2_000, bank_ms=0),
        policy=policy,
    )
    scripted = scripted_connector(scripts or {})

    @asynccontextmanager
    async def connect(spec: BotSpec) -> AsyncIterator[BotChannel]:
        if scripts is not None and spec.command in scripts:
            async with scripted(spec) as bot:
                yield bot
        else:
            async with open_bot_process(spec.command) as process:
                yield process

    return trio.run(functools.partial(play_match, config, commands, connect=connect))


def play_lenient(flag: Path) -> Replay:
    """A real match under the ``lenient`` policy, seed 2, one hand, with a strike and a restart.

    Seat 0 ("wobbly", in-memory) passes illegally at its 2nd request: a strike, the referee
    plays a seeded legal move for it, and it plays on. Seat 1 (tests/bots/player.py,
    ``player-crash_once``) crashes at its 3rd request (stderr, exit code 3) and is restarted;
    ``flag`` (a path that does not exist yet) keeps the new process from crashing again.
    """
    return play_processes(
        ["wobbly", player_command("crash_once", 3, str(flag))],
        seed=2,
        policy=LENIENT,
        scripts={"wobbly": scripted_bot("wobbly", fail_at=2)},
    )
