"""``arena analyze REPLAY``: what it writes and prints, and its one-line errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from arena.cli import main
from arena.replay import HandOutcomeRecord, Replay, read_replay, write_replay
from arena.text import seat_name
from tests.analysis.conftest import BOT


def test_analyze_writes_the_analysed_replay_and_its_page_and_keeps_the_original(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With -o and --html: the replay analysed to OUT (it verifies), the page beside it, the
    original untouched, and a summary line per seat."""
    before = replay_file.read_bytes()
    out, page = tmp_path / "out" / "a.json", tmp_path / "a.html"
    code = main(["analyze", str(replay_file), "-o", str(out), "--html", str(page), "--bot", BOT])
    assert code == 0
    assert replay_file.read_bytes() == before
    analysed = read_replay(out)
    assert analysed.analysis is not None
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"analysed {replay_file} with {BOT}: {len(analysed.analysis.moves)} decisions in "
        f"{len(analysed.hands)} hands; wrote {out} and {page}"
    )
    for seat, line in zip(analysed.analysis.seats, lines[1:], strict=True):
        name = seat_name(analysed.seats[seat.seat])
        assert line.startswith(f"  seat {seat.seat} {name}: accuracy {seat.accuracy:.1f}% over ")
    assert '"analysis":{"bot":' in page.read_text(encoding="utf-8")
    assert main(["verify", str(out)]) == 0


def test_without_o_the_analysis_goes_into_the_replay_itself(
    replay_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the analysis section is added: the rest of the replay is as it was."""
    before = read_replay(replay_file)
    assert main(["analyze", str(replay_file), "--bot", BOT, "--json"]) == 0
    after = read_replay(replay_file)
    assert after.analysis is not None
    assert msgspec.structs.replace(after, analysis=None) == before
    document = json.loads(capsys.readouterr().out)
    assert document["replay"] == str(replay_file)
    assert document["bot"] == BOT
    assert document["decisions"] == len(after.analysis.moves)
    assert [s["accuracy"] for s in document["seats"]] == [s.accuracy for s in after.analysis.seats]


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["analyze", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.strip()


def test_a_missing_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay that is not there."""
    missing = tmp_path / "nope.json"
    assert _error([str(missing)], capsys) == (
        f"arena analyze: error: cannot read replay {str(missing)!r}: No such file or directory"
    )


def test_a_file_that_is_not_a_replay_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JSON file of another kind."""
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}\n')
    assert _error([str(other)], capsys).startswith(
        f"arena analyze: error: {str(other)!r} has replay format None"
    )


def test_a_replay_that_does_not_verify_is_one_line_and_exit_2(
    match: Replay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tampered award: the analysis refuses it with verify's words, and writes nothing."""
    first = match.hands[0]
    assert first.outcome is not None
    wrong = HandOutcomeRecord(
        first.outcome.kind,
        first.outcome.winners,
        [a + 1 for a in first.outcome.award],
        first.outcome.scores,
        first.outcome.pips,
    )
    hands = [msgspec.structs.replace(first, outcome=wrong), *match.hands[1:]]
    path = write_replay(tmp_path / "bad.json", msgspec.structs.replace(match, hands=hands))
    before = path.read_bytes()
    assert _error([str(path), "--bot", BOT], capsys) == (
        f"arena analyze: error: replay {str(path)!r} does not verify: hand 1: award recorded as "
        f"{wrong.award}, the engine says {first.outcome.award} (see arena verify)"
    )
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        (
            "ref:nope",
            "--bot 'ref:nope': unknown reference bot ref:nope; known: ref:random, ref:greedy, "
            "ref:search, ref:strong",
        ),
        (
            "ref:greedy",
            "--bot 'ref:greedy': ref:greedy evaluates no moves; analyse with ref:search or "
            "ref:strong",
        ),
        (
            "ref:search:ms=5",
            "--bot 'ref:search:ms=5': ms is a time budget; an analysis has a fixed one (samples=N)",
        ),
        (
            "greedy.py",
            "--bot 'greedy.py': not a reference bot; analyse with ref:search or ref:strong",
        ),
    ],
)
def test_an_unknown_bot_is_one_line_and_exit_2(
    bot: str, message: str, replay_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only reference evaluators with a fixed budget analyse."""
    assert _error([str(replay_file), "--bot", bot], capsys) == f"arena analyze: error: {message}"


def test_o_with_db_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o and --html are for one replay."""
    assert _error(["--db", str(tmp_path / "t.db"), "-o", str(tmp_path / "x.json")], capsys) == (
        "arena analyze: error: -o and --html are for one replay; --db analyses every replay "
        "in place"
    )


def test_a_replay_and_db_together_are_refused(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One replay or a tournament, not both (argparse's one line)."""
    with pytest.raises(SystemExit) as stop:
        main(["analyze", str(replay_file), "--db", str(tmp_path / "t.db")])
    assert stop.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
