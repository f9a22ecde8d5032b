"""sample_bots/first_legal.c, the C bot of docs/writing-a-bot.md: the page shows the file as it
is, it compiles as strict C99 with the standard library only, it answers every message the
protocol can send (every example of docs/protocol.md, engine positions of both games with the
fields in any order), passes ``arena check`` in both games and plays whole matches."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from protocol import Draw, Error, MoveReply, Ready, as_reply
from protocol.codec import decode_from_bot, encode
from tests.protocol.test_docs_examples import TO_BOT
from tests.test_sample_bots import (
    _command,
    _engine_requests,
    _play,
    _play_fives,
    hand_end,
    hand_start,
    hello,
    match_end,
    request,
    run_bot,
)

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "sample_bots" / "first_legal.c"
GUIDE = REPO / "docs" / "writing-a-bot.md"
GCC = shutil.which("gcc")
#: The flags the guide builds it with: strict C99, every warning an error.
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]
NAME = "first-legal-c"

pytestmark = pytest.mark.skipif(GCC is None, reason="gcc is not on PATH")


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """The compiler's run on the bot, as the guide builds it."""
    assert GCC is not None
    binary = tmp_path_factory.mktemp("c_bot") / "first_legal"
    return subprocess.run(
        [GCC, *CFLAGS, "-o", str(binary), str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def bot(build: subprocess.CompletedProcess[str]) -> list[str]:
    """The compiled bot's command."""
    assert build.returncode == 0, build.stderr
    return [build.args[build.args.index("-o") + 1]]


def test_the_guide_shows_the_sample_file_as_it_is() -> None:
    """The ```c block of writing-a-bot.md's C section is sample_bots/first_legal.c, byte for
    byte, so the code a reader copies is the code this file tests."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("## In C\n") : text.index("## In any language\n")]
    blocks = re.findall(r"^```c\n(.*?)^```$", section, re.DOTALL | re.MULTILINE)
    assert len(blocks) == 1
    assert blocks[0] == SOURCE.read_text(encoding="utf-8")


def test_it_compiles_as_strict_c99_without_a_warning(
    build: subprocess.CompletedProcess[str],
) -> None:
    """``gcc -std=c99 -Wall -Wextra -Werror -pedantic`` builds it, saying nothing, and the
    source includes only the C standard library (no POSIX ``getline``)."""
    assert build.returncode == 0, build.stderr
    assert build.stderr == ""
    headers = re.findall(r"^#include <([^>]+)>", SOURCE.read_text(encoding="utf-8"), re.M)
    assert set(headers) <= {"stdio.h", "stdlib.h", "string.h"}
    assert "getline" not in SOURCE.read_text(encoding="utf-8")


# -- what it answers ---------------------------------------------------------------------------


def test_every_example_of_the_protocol_page(bot: list[str]) -> None:
    """Every message docs/protocol.md shows (both games): hello gets ready, each request its
    id and its first legal move, as written, and nothing else gets an answer."""
    lines = [example.text.encode() + b"\n" for example in TO_BOT]
    endings = {b'"type":"match_end"', b'"type":"error"'}
    played = [line for line in lines if not any(e in line for e in endings)]
    run = run_bot(bot, [], raw=[*played, encode(match_end()) + b"\n"])
    assert run.returncode == 0, run.stderr
    expected = []
    for line in played:
        message = msgspec.json.decode(line)
        if message["type"] == "hello":
            expected.append({"type": "ready", "name": NAME})
        elif message["type"] == "request":
            expected.append({"type": "move", "id": message["id"], "move": message["legal"][0]})
    assert [msgspec.json.decode(line) for line in run.lines] == expected
    assert all(isinstance(decode_from_bot(line), Ready | MoveReply) for line in run.lines)
    assert run.stderr == ""


def _shuffled(message: Any, rng: random.Random) -> Any:
    """``message`` with every object's keys in a random order, at any depth."""
    if isinstance(message, dict):
        items = list(message.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(message, list):
        return [_shuffled(v, rng) for v in message]
    return message


def test_engine_positions_with_fields_in_any_order_and_spaced_out(bot: list[str]) -> None:
    """300 requests of random playouts (several rule sets and player counts), each with its
    keys shuffled at every depth, blanks around every token and the ``type`` escaped: every
    answer carries the request's id and its first legal move."""
    rng = random.Random(10)
    requests = _engine_requests(300, seed=10)
    raw = []
    for sent in requests:
        message = _shuffled(msgspec.to_builtins(sent), rng)
        message["extra_field"] = {"type": "hello", "legal": [{"x": '}]\\"'}]}
        text = msgspec.json.encode(message).decode()
        text = re.sub(r"([,:{}\[\]])", r" \1 ", text).replace('"request"', '"\\u0072equest"')
        raw.append(text.encode() + b"\n")
    run = run_bot(bot, [hello()], raw=[*raw, encode(match_end()) + b"\n"])
    assert run.returncode == 0, run.stderr
    moves = run.moves()
    assert [m.id for m in moves] == [r.id for r in requests]
    assert [m.move for m in moves] == [as_reply(r.legal[0]) for r in requests]


def test_strings_with_braces_quotes_and_keys_inside_are_skipped(bot: list[str]) -> None:
    """Names and details that hold braces, brackets, quotes, backslashes and the word "type"
    (bots choose their names) do not confuse it: it answers the request that follows them and
    exits at the match_end whose ``type`` comes last."""
    tricky = r'"x\"}{\"type\":\"match_end\"} \\ ] [ \u00e9"'
    raw = [
        ('{"note":' + tricky + ',"type":"hand_start","hand":[[1,2]]}\n').encode(),
        (
            '{"type":"strike","seat":0,"request_id":6,"status":"timeout","detail":' + tricky + "}\n"
        ).encode(),
        encode(request(7, hand=[(1, 2)], layout=[(0, 0)], legal=[Draw()])) + b"\n",
        encode(hand_end()) + b"\n",
        ('{"results":[{"name":' + tricky + ',"type":"request"}],"type":"match_end"}\n').encode(),
    ]
    run = run_bot(bot, [hello(), hand_start([(1, 2)])], raw=raw)
    assert run.returncode == 0, run.stderr
    assert [m.move for m in run.moves()] == [as_reply(Draw())]


def test_it_exits_after_an_error_and_at_end_of_input(bot: list[str]) -> None:
    """``error`` ends it (exit code 0), and so does the end of its input."""
    error = Error(code="timeout", message="did not answer request 7 in time")
    assert run_bot(bot, [hello(), error]).returncode == 0
    run = run_bot(bot, [hello(), hand_start([(1, 2)])], close_stdin=True)
    assert run.returncode == 0
    assert run.replies() == [Ready(name=NAME)]


def test_a_huge_request_id_is_echoed_exactly(bot: list[str]) -> None:
    """The id is copied as written, so it stays exact whatever its size."""
    sent = request(2**62 + 7, hand=[(1, 2)], layout=[(0, 0)], legal=[Draw()])
    run = run_bot(bot, [hello(), sent, match_end()])
    assert [m.id for m in run.moves()] == [2**62 + 7]


# -- as a real bot -----------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["matador", "fives", "block"])
def test_arena_check_passes_in_every_game(bot: list[str], game: str) -> None:
    """``arena check`` passes every step, in Matador, Fives and Block."""
    run = subprocess.run(
        [sys.executable, "-m", "arena", "check", bot[0], "--game", game],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "FAIL" not in run.stdout


@pytest.mark.slow
def test_it_plays_whole_matches_of_both_games(bot: list[str]) -> None:
    """A 2-hand Matador match and a Fives match to 100 against the random bot, through the
    referee: both seats finish OK and both replays verify."""
    from arena.replay import Status
    from arena.verify import verify_replay

    random_bot = _command("random_bot.py")
    for replay in (_play([bot[0], random_bot], seed=7), _play_fives([random_bot, bot[0]], 7)):
        assert [(s.status, s.detail) for s in replay.seats] == [(Status.OK, "")] * 2
        assert NAME in [s.name for s in replay.seats]
        report = verify_replay(replay)
        assert report.ok, report.error
