"""Real matches for the viewer tests, played in the test: in-memory scripted bots under trio's
``MockClock`` (deterministic to the move), or real subprocess bots from ``tests/bots``."""

from __future__ import annotations

import functools
import json
import shlex
import sys
from pathlib import Path

import trio
import trio.testing

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.referee.channel import Reply, Script, scripted_connector
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.replay import Replay

ROOT = Path(__file__).resolve().parents[2]
PLAYER = ROOT / "tests" / "bots" / "player.py"


def scripted_bot(
    name: str, *, fail_at: int | None = None, debug: str | None = None, pick: int = 0
) -> Script:
    """A bot that plays legal move number ``pick`` (the last one when there are fewer); at
    request ``fail_at`` it passes instead (illegal there, so it is retired)."""
    requests = 0

    def script(line: bytes) -> Reply | None:
        nonlocal requests
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if kind == "request":
            requests += 1
            legal = message["legal"]
            move = {"action": "pass"} if requests == fail_at else legal[min(pick, len(legal) - 1)]
            reply = {"type": "move", "id": message["id"], "move": move}
            if debug is not None:
                reply["debug"] = f"{debug} #{requests}"
            return [json.dumps(reply).encode()]
        if kind in ("match_end", "error"):
            return None
        return []

    return script


def play_scripted(scripts: list[Script], *, seed: int, hands: int = 1) -> Replay:
    """Play a real match between in-memory scripted bots (seat order); return its replay."""
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=len(scripts),
        seed=seed,
        length=MatchLength(target=None, hands=hands),
    )
    commands = [f"bot{i}" for i in range(len(scripts))]
    connect = scripted_connector(dict(zip(commands, scripts, strict=True)))
    run = functools.partial(play_match, config, commands, connect=connect)
    return trio.run(run, clock=trio.testing.MockClock(autojump_threshold=0))


def player_command(mode: str, at: int = 1) -> str:
    """The command line of ``tests/bots/player.py`` misbehaving as ``mode`` at request ``at``."""
    return " ".join(shlex.quote(p) for p in (sys.executable, str(PLAYER), mode, str(at)))


def play_processes(commands: list[str], *, seed: int, hands: int = 1) -> Replay:
    """Play a real match between subprocess bots; return its replay."""
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=len(commands),
        seed=seed,
        length=MatchLength(target=None, hands=hands),
        time=TimeLimits(startup_ms=10_000, move_ms=2_000, bank_ms=0),
    )
    return trio.run(play_match, config, commands)
