"""``arena view --html`` without a browser: the viewer data, the page around it, and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from arena.cli import main
from arena.replay import (
    Action,
    ExchangedLine,
    Failure,
    Replay,
    Restart,
    Status,
    encode_replay,
    read_replay,
    write_replay,
)
from arena.view import html
from arena.view.steps import StepKind, build_steps, describe
from tests.view.matches import play_scripted, scripted_bot

VIEWER_JS = Path(html.__file__).with_name("viewer.js")


@pytest.fixture(scope="module")
def replay() -> Replay:
    """Three seats, two hands; seat 0 notes every move, seat 2 is retired for an illegal pass."""
    return play_scripted(
        [
            scripted_bot("first", debug="why"),
            scripted_bot("second"),
            scripted_bot("bad", fail_at=2),
        ],
        seed=5,
        hands=2,
    )


def exchanged_rows(failure: Failure) -> list[list[str]]:
    """The evidence rows the failure's last lines exchanged should make (short lines only)."""
    labels = {"sent": "referee → bot", "received": "bot → referee"}
    return [[labels[line.direction], line.text] for line in failure.messages or []]


def embedded(page: str) -> object:
    """The JSON document inside the page's data element."""
    found = re.search(
        r'<script type="application/json" id="viewer-data">(.*?)</script>', page, re.DOTALL
    )
    assert found is not None
    return json.loads(found.group(1))


def test_the_script_reads_the_version_python_writes() -> None:
    """viewer.js accepts exactly the viewer data version this module writes."""
    found = re.search(r"const VIEWER_DATA_VERSION = (\d+);", VIEWER_JS.read_text())
    assert found is not None
    assert int(found.group(1)) == html.VIEWER_DATA_VERSION


def test_every_step_is_the_engines_step(replay: Replay) -> None:
    """The data holds one entry per display step, with the same text and board."""
    steps = build_steps(replay)
    data = html.viewer_data(replay)
    assert data["viewer_data"] == html.VIEWER_DATA_VERSION
    assert data["replay_format"] == replay.format
    assert len(data["steps"]) == len(steps)
    for step, item in zip(steps, data["steps"], strict=True):
        assert item["kind"] == step.kind.value
        assert item["text"] == describe(replay, step)
        if step.board is None:
            assert item["board"] is None
            continue
        board = item["board"]
        assert board["layout"] == [list(t) for t in step.board.layout]
        assert board["hands"] == [[list(t) for t in h] for h in step.board.hands]
        assert board["ends"] == [list(e) for e in step.board.ends]
        assert board["boneyard"] == step.board.boneyard_size


def test_the_anchor_is_the_lead_tile_throughout_a_hand(replay: Replay) -> None:
    """``anchor`` points at the hand's lead tile at every step, however the chain grows."""
    data = html.viewer_data(replay)
    lead = None
    for item in data["steps"]:
        if item["kind"] == "hand_start":
            lead = None
        board = item["board"]
        if board is None or not board["layout"]:
            continue
        tile = board["layout"][board["anchor"]]
        if lead is None:
            lead = tile
        assert tile == lead


def test_a_draw_has_a_public_text_without_its_tile(replay: Replay) -> None:
    """A draw's public headline and summary name no tile; the headline has neither time nor
    note (the page shows them apart); a move without a draw has no public text."""
    steps = build_steps(replay)
    data = html.viewer_data(replay)
    draws = [i for i, s in enumerate(steps) if s.drawn is not None]
    noted = [i for i, s in enumerate(steps) if s.action is not None and s.action.debug]
    assert draws
    assert noted
    for i in draws:
        step, item = steps[i], data["steps"][i]
        assert step.drawn is not None
        tile = f"{step.drawn[0]}-{step.drawn[1]}"
        assert tile in item["text"]
        assert tile in item["headline"]
        assert tile not in item["public_headline"]
        assert item["public_summary"] == "draws a tile"
    for i in noted:
        assert "debug" in data["steps"][i]["text"]
        assert "debug" not in data["steps"][i]["headline"]
        assert " ms" not in data["steps"][i]["headline"]
    undrawn = [i for i, s in enumerate(steps) if s.drawn is None]
    assert all("public_headline" not in data["steps"][i] for i in undrawn)


def test_a_retirement_carries_its_evidence(replay: Replay) -> None:
    """The retirement step holds the failure's evidence rows, the move asked for among them."""
    data = html.viewer_data(replay)
    retire = next(s for s in data["steps"] if s["kind"] == "retire")
    assert retire["seat"] == 2
    assert retire["status"] == "illegal_move"
    rows = dict(retire["evidence"])
    assert rows["status"] == "illegal_move"
    assert rows["move asked for"] == "PASS"
    assert rows["phase"] == "answering a request"
    assert "legal moves" in rows


def test_failure_step_points_at_the_retirement_or_the_start(replay: Replay) -> None:
    """A failed seat's step is its retirement; a seat that never failed has none; a failure at
    start-up is shown from the match start."""
    steps = build_steps(replay)
    number = html.failure_step(replay, steps, 2)
    assert number is not None
    assert steps[number - 1].kind.value == "retire"
    assert steps[number - 1].seat == 2
    assert html.failure_step(replay, steps, 0) is None

    def silent(line: bytes) -> None:
        return None  # exits at hello

    early = play_scripted([scripted_bot("a"), silent, scripted_bot("c")], seed=6)
    assert html.failure_step(early, build_steps(early), 1) == 1


def test_evidence_rows_name_a_signal_and_keep_stderr_lines() -> None:
    """A crash by a signal names the signal; the stderr tail keeps its lines, escapes the rest."""
    failure = Failure(
        status=Status.CRASH,
        detail="killed by signal 9",
        phase="move",
        hand_number=1,
        request_id=3,
        signal=9,
        stderr_tail="line one\n\x1b[31mred\tend\n",
    )
    rows = dict(html.evidence_rows(failure))
    assert rows["signal"] == "9 (SIGKILL)"
    assert rows["stderr tail"] == "line one\n\\x1b[31mred\tend\n"
    assert list(dict(html.evidence_rows(failure)))[-1] == "stderr tail"


def test_markup_in_names_cannot_leave_the_data_element() -> None:
    """A bot name with ``</script>`` and ``<!--`` stays inside the data, and reads back whole."""
    name = "</script><script>alert(1)</script><!--&"
    hostile = play_scripted([scripted_bot(name), scripted_bot("plain")], seed=4)
    page = html.html_page(hostile)
    # the data element's, the table data element's and the viewer script's
    assert page.count("</script>") == 3
    assert "<!--" not in page
    data = embedded(page)
    assert isinstance(data, dict)
    assert data["seats"][0]["name"] == name
    assert f"<title>{name}" not in page


def test_the_page_is_self_contained(replay: Replay) -> None:
    """The page names no URL to load: its only URL is the SVG namespace, and a policy forbids
    every fetch."""
    page = html.html_page(replay)
    assert re.findall(r"https?://[^\s\"')]+", page) == ["http://www.w3.org/2000/svg"]
    assert "default-src 'none'" in page
    assert not re.search(r"<(link|img|iframe)\b", page)
    assert embedded(page) == json.loads(json.dumps(html.viewer_data(replay)))


# -- the command -------------------------------------------------------------------------------


def test_cli_writes_the_page(
    replay: Replay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``arena view R --html OUT`` writes the page, says where, and exits 0."""
    source = write_replay(tmp_path / "r.json", replay)
    out = tmp_path / "pages" / "r.html"
    assert main(["view", str(source), "--html", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    data = embedded(page)
    assert isinstance(data, dict)
    assert len(data["steps"]) == len(build_steps(read_replay(source)))


def test_cli_html_and_all_do_not_mix(replay: Replay, tmp_path: Path) -> None:
    """--html and --all are alternatives: asking for both is a usage error."""
    source = write_replay(tmp_path / "r.json", replay)
    with pytest.raises(SystemExit) as stop:
        main(["view", str(source), "--all", "--html", str(tmp_path / "x.html")])
    assert stop.value.code == 2


def test_cli_refuses_a_folder_as_the_page(
    replay: Replay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder given as OUT.html is a usage error naming it."""
    source = write_replay(tmp_path / "r.json", replay)
    assert main(["view", str(source), "--html", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_cli_refuses_a_replay_that_does_not_verify(
    replay: Replay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay the engine disagrees with makes no page: exit 1, the reason on stderr."""
    raw = msgspec.json.decode(encode_replay(replay))
    raw["hands"][0]["outcome"]["award"][0] += 1
    source = tmp_path / "bad.json"
    source.write_bytes(msgspec.json.encode(raw))
    out = tmp_path / "bad.html"
    assert main(["view", str(source), "--html", str(out)]) == 1
    assert "cannot show this replay" in capsys.readouterr().err
    assert not out.exists()


def test_cli_refuses_an_unknown_replay_format(
    replay: Replay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay of an unknown format is refused before any page is written (exit 2)."""
    raw = msgspec.json.decode(encode_replay(replay))
    raw["format"] = 3
    source = tmp_path / "future.json"
    source.write_bytes(msgspec.json.encode(raw))
    out = tmp_path / "future.html"
    assert main(["view", str(source), "--html", str(out)]) == 2
    assert "replay format 3" in capsys.readouterr().err
    assert not out.exists()


# -- strikes and restarts (failure policy lenient) ---------------------------------------------


def only_strike(replay: Replay) -> Action:
    """The one move the referee played for a struck bot."""
    struck = [
        e for h in replay.hands for e in h.events if isinstance(e, Action) and e.strike is not None
    ]
    assert len(struck) == 1
    return struck[0]


@pytest.mark.slow
def test_a_strike_move_carries_its_status_evidence_and_last_lines(lenient: Replay) -> None:
    """The move played for a struck bot is marked a strike, worded "strike: plays ...", and
    carries the strike's status, sentence and evidence: the move asked for, the legal ones and
    the last lines exchanged, each labelled with its direction."""
    action = only_strike(lenient)
    failure = action.strike
    assert failure is not None
    data = html.viewer_data(lenient)
    struck = [item for item in data["steps"] if item.get("strike")]
    assert len(struck) == 1
    item = struck[0]
    assert (item["kind"], item["seat"], item["auto"]) == ("move", 0, True)
    assert item["summary"] == "strike: plays 6-6 on right, 6 out"
    assert item["status"] == "illegal_move"
    assert item["failure_text"] == (
        "illegal_move: illegal move PASS in request 3; open ends left=2, right=1"
    )
    assert item["headline"] == (
        "STRIKE (illegal_move: illegal move PASS in request 3; open ends left=2, right=1); "
        "for seat 0 (wobbly) the referee plays 6-6 on right, 6 out"
    )
    rows = item["evidence"]
    assert rows[:7] == [
        ["status", "illegal_move"],
        ["what happened", "illegal move PASS in request 3; open ends left=2, right=1"],
        ["phase", "answering a request"],
        ["hand", "1"],
        ["request id", "3"],
        ["move asked for", "PASS"],
        ["legal moves", "6-6 on right, 6 out"],
    ]
    lines = rows[7:]
    assert failure.messages is not None
    assert len(lines) == len(failure.messages) == 6
    assert [label for label, _ in lines] == [r[0] for r in exchanged_rows(failure)]
    assert lines[0] == ["bot → referee", '{"type": "ready", "name": "wobbly"}']
    assert lines[-1] == ["bot → referee", '{"type": "move", "id": 3, "move": {"action": "pass"}}']
    request = lines[-2][1]  # the request struck, its middle cut
    assert request.startswith('{"type":"request","id":3,"hand_number":1,')
    assert request.endswith(',"time_left_ms":2000,"bank_ms":0,"retired":[]}')
    assert re.search(r" … \[\d+ characters cut\] … ", request)
    # Every other move is no strike.
    assert sum("strike" in i for i in data["steps"]) == 1


@pytest.mark.slow
def test_a_restart_step_carries_the_crash_and_its_evidence(lenient: Replay) -> None:
    """The restart step says "restarted after crash" and carries the crash record: the exit
    code, the request, the last lines exchanged and the crashed process's stderr tail (last)."""
    restarts = [e for h in lenient.hands for e in h.events if isinstance(e, Restart)]
    assert len(restarts) == 1
    failure = restarts[0].failure
    assert failure.exit_code == 3
    data = html.viewer_data(lenient)
    items = [item for item in data["steps"] if item["kind"] == "restart"]
    assert len(items) == 1
    item = items[0]
    assert item["seat"] == 1
    assert item["summary"] == "restarted after crash"
    assert item["status"] == "crash"
    assert item["failure_text"] == f"crash: {failure.detail}"
    assert item["text"] == f"seat 1 (player-crash_once) is restarted after crash: {failure.detail}"
    rows = item["evidence"]
    assert rows[:3] == [
        ["status", "crash"],
        ["what happened", failure.detail],
        ["phase", "answering a request"],
    ]
    assert ["exit code", "3"] in rows
    assert ["request id", str(failure.request_id)] in rows
    assert rows[-1] == ["stderr tail", "Traceback: player.py crashed once\n"]
    assert failure.messages is not None
    lines = [row for row in rows if row[0] in ("referee → bot", "bot → referee")]
    assert [label for label, _ in lines] == [r[0] for r in exchanged_rows(failure)]
    assert lines[-1][0] == "referee → bot"  # the request it crashed on
    assert lines[-1][1].startswith(f'{{"type":"request","id":{failure.request_id},')
    # The board is the one before the crash: a restart changes nothing on the table.
    index = data["steps"].index(item)
    assert item["board"] == data["steps"][index - 1]["board"]


@pytest.mark.slow
def test_seats_count_their_strikes_and_restarts_and_the_policy_is_named(lenient: Replay) -> None:
    """The seat data counts the strikes and restarts, and the match names its policy; a strict
    match counts none and names ``strict``."""
    data = html.viewer_data(lenient)
    assert [(s["strikes"], s["restarts"]) for s in data["seats"]] == [(1, 0), (0, 1)]
    assert [s["status"] for s in data["seats"]] == ["ok", "ok"]
    assert data["match"]["policy"] == {
        "name": "lenient",
        "strikes": 3,
        "restarts": 1,
        "text": "lenient (3 strikes, 1 restart)",
    }
    assert html.failure_step(lenient, build_steps(lenient), 0) is None
    assert html.failure_step(lenient, build_steps(lenient), 1) is None


def test_strict_matches_have_no_strikes_and_the_strict_policy(replay: Replay) -> None:
    """A strict match: no strikes, no restarts, policy ``strict``."""
    data = html.viewer_data(replay)
    assert [(s["strikes"], s["restarts"]) for s in data["seats"]] == [(0, 0)] * 3
    assert data["match"]["policy"]["text"] == "strict"
    assert not any("strike" in item for item in data["steps"])


def test_the_strike_that_forfeits_is_the_retirement(struck_out: Replay) -> None:
    """Two strikes are moves; the third retires the seat: its retirement is the failure step
    (not a strike), marked a strike, and the seat counts three."""
    steps = build_steps(struck_out)
    data = html.viewer_data(struck_out, steps)
    seat = struck_out.seats[2]
    assert (seat.status, seat.strikes) == (Status.ILLEGAL_MOVE, 3)
    number = html.failure_step(struck_out, steps, 2)
    assert number is not None
    assert steps[number - 1].kind is StepKind.RETIRE
    assert steps[number - 1].seat == 2
    marked = [(i + 1, item["kind"]) for i, item in enumerate(data["steps"]) if item.get("strike")]
    assert [kind for _, kind in marked] == ["move", "move", "retire"]
    assert marked[-1][0] == number
    retire = data["steps"][number - 1]
    assert retire["summary"] == "retired: illegal_move"  # two seats play on
    assert retire["failure_text"] == (
        "illegal_move: illegal move PASS in request 10; open ends left=0, right=2; "
        "strike 3 of 3: forfeit"
    )
    assert data["seats"][2]["strikes"] == 3


def test_a_retirement_shows_the_last_lines_exchanged(replay: Replay) -> None:
    """A retirement's evidence has the last lines exchanged too, before the stderr tail."""
    failure = replay.seats[2].failure
    assert failure is not None
    assert failure.messages
    retire = next(s for s in html.viewer_data(replay)["steps"] if s["kind"] == "retire")
    lines = [row for row in retire["evidence"] if row[0] in ("referee → bot", "bot → referee")]
    assert len(lines) == len(failure.messages)
    reply = f'{{"type": "move", "id": {failure.request_id}, "move": {{"action": "pass"}}}}'
    assert lines[-1] == ["bot → referee", reply]


def test_long_exchanged_lines_are_cut_in_the_middle_and_escaped() -> None:
    """A long line keeps its first 160 and last 80 characters with the cut counted between;
    a short one is whole; control characters are escaped; the stderr tail stays last."""
    long = '{"type":"request","id":9,' + "x" * 400 + ',"retired":[]}'
    failure = Failure(
        status=Status.TIMEOUT,
        detail="did not answer in time",
        phase="move",
        messages=[
            ExchangedLine("sent", long),
            ExchangedLine("received", "half\x1b[2J a line"),
        ],
        stderr_tail="thinking...\n",
    )
    rows = html.evidence_rows(failure)
    cut = len(long) - 240
    assert rows[-3:] == [
        ["referee → bot", f"{long[:160]} … [{cut} characters cut] … {long[-80:]}"],
        ["bot → referee", "half\\x1b[2J a line"],
        ["stderr tail", "thinking...\n"],
    ]
    short = "y" * 280  # up to 280 characters: not worth a cut
    assert html.exchanged_text(ExchangedLine("sent", short)) == short
