"""No text a bot controls reaches a terminal raw, and every command hint can be pasted.

tests/bots/hostile_text.py puts ESC[31m, a carriage return, a bell, an OSC title sequence and
rich markup in its ``ready`` name, its stderr, its debug note and its reply (an unknown field
named with an escape). Every terminal output that shows them must show them escaped; every
hint line (``arena view ...``, ``arena standings --db ...``) must run as printed in ``sh -c``.
"""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from arena.check.report import step_lines
from arena.check.runner import StepResult
from arena.cli import main
from arena.replay import read_replay
from arena.text import printable, shell_line
from arena.tournament.entrants import scan
from arena.tournament.live import PlainReporter, standings_table
from arena.tournament.standings import BotStanding, Standings
from tests.helpers import bot_command, player_command
from tests.processes import live_processes_with

ROOT = Path(__file__).parents[1]
HOSTILE = bot_command("hostile_text.py")
PLAYER = player_command("ok")
NAME = "evil\x1b[31m\r\x07[bold]x[/bold]"
#: Every control character but the newline: none may reach a terminal from a bot.
RAW = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def raw_controls(text: str) -> list[str]:
    """The control characters of ``text`` (newlines aside)."""
    return RAW.findall(text)


@pytest.fixture
def marker() -> str:
    """A word on every bot's command line, to find leftover processes."""
    return f"text-{uuid.uuid4().hex}"


def test_play_result_and_classroom_explanation_escape_every_bot_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    """``arena play`` (text result, classroom explanation) and the bundle's README.txt show the
    name, the detail, the lines, the debug note and the stderr escaped."""
    replay = tmp_path / "r.json"
    code = main(
        ["play", f"{HOSTILE} {marker}", f"{PLAYER} {marker}", "--hands", "1", "--seed", "3",
         "--policy", "classroom", "--replay", str(replay), "--sandbox", "none"]
    )  # fmt: skip
    assert code == 0
    captured = capsys.readouterr()
    assert raw_controls(captured.out) == []
    assert raw_controls(captured.err) == []
    shown = printable(NAME)
    assert shown == "evil\\x1b[31m\\r\\x07[bold]x[/bold]"
    # The arena's name first, the ready name after it (docs/tournaments.md, "Names").
    label = f"hostile_text (ready: {shown})"
    assert f"  seat 0 {label}    0 points  [bad_message: " in captured.out
    assert "unknown field `\\x1b[2Jfield`" in captured.out
    assert f" seat 0 ({label}): BAD_MESSAGE " in captured.out
    assert "  | \\x1b]0;pwned\\x07\\x1b[2J stderr line" in captured.out
    readme = (tmp_path / "r.failures" / "README.txt").read_text()
    assert raw_controls(readme) == []
    assert read_replay(replay).seats[0].name == NAME  # the evidence keeps the bytes
    assert live_processes_with(marker) == []


def test_view_escapes_the_debug_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``arena view --all`` shows the debug note and the name escaped (the helper it shares)."""
    replay = tmp_path / "r.json"
    main(["play", HOSTILE, PLAYER, "--hands", "1", "--seed", "3", "--replay", str(replay),
          "--sandbox", "none", "--json"])  # fmt: skip
    capsys.readouterr()
    assert main(["view", str(replay), "--all"]) == 0
    out = capsys.readouterr().out
    assert raw_controls(out) == []
    assert "\\x1b[5mblink\\x07" in out


def test_tournament_output_escapes_every_bot_text(tmp_path: Path, marker: str) -> None:
    """``arena tournament`` under classroom: the per-match lines, the final report and the
    explanations show no raw control character."""
    run = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", f"{HOSTILE} {marker}", f"{PLAYER} {marker}",
         "--hands", "1", "--seed", "3", "--policy", "classroom", "--out", str(tmp_path / "t"),
         "--workers", "1", "--sandbox", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert raw_controls(run.stdout) == []
    assert raw_controls(run.stderr) == []
    assert "its first failure, explained" in run.stdout
    assert "unknown field `\\x1b[2Jfield`" in run.stdout
    standings = subprocess.run(
        [sys.executable, "-m", "arena", "standings", "--db", str(tmp_path / "t" / "tournament.db")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert standings.returncode == 0
    assert raw_controls(standings.stdout) == []
    assert live_processes_with(marker) == []


def test_a_command_line_bots_name_is_made_of_name_characters() -> None:
    """A bot file named with an escape gives a tournament name without it (the name standings,
    sprt lines and the report show)."""
    (entrant,) = scan(["python3 'ev\x1b[31mil\r.py'"]).entrants
    assert entrant.name == "ev-31mil-"


def test_the_ready_names_line_escapes_and_ignores_markup() -> None:
    """The line under the standings that says each bot's ready name: escaped, not markup."""
    from arena.tournament.live import ready_names_line
    from arena.tournament.report import _render

    bot = BotStanding(1, "bot", matches=1)
    bot.ready_names[NAME] += 1
    line = ready_names_line(Standings([bot], {}, 1))
    assert line == "names said in ready: bot (ready: evil\\x1b[31m\\r\\x07[bold]x[/bold])"
    assert _render(Text(line)) == line


def test_standings_tables_escape_names_and_ignore_markup() -> None:
    """A bot's name in a rich table is escaped and never read as markup."""
    standings = Standings([BotStanding(1, NAME, matches=1)], {}, 1)
    console = Console(file=io.StringIO(), width=200, force_terminal=True, color_system=None)
    console.print(standings_table(standings))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x07" not in out
    assert "\r" not in out
    assert "\\x1b[31m\\r\\x07[bold]x[/bold]" in out


def test_plain_reporter_escapes_a_recorded_seat_name() -> None:
    """The per-match line falls back on the seat's recorded name: escaped."""
    from arena.tournament.jobs import MatchSummary, SeatSummary
    from arena.tournament.live import RunProgress
    from arena.tournament.store import MatchRow, TableRow

    seats = [
        SeatSummary(0, NAME, _ok(), "", 10, 1, None, []),
        SeatSummary(1, "b", _ok(), "", 0, 2, None, []),
    ]
    summary = MatchSummary(0, "hands played", [10, 0], [0, 1], [[10, 0]], 1, 4, 0.1, seats)
    row = MatchRow(TableRow(0, 1, 1, 0, 0, (7, 8)), summary, "r.json")
    out = io.StringIO()
    PlainReporter(out).finished(row, RunProgress(1, 1), Standings([], {}, 1))
    assert out.getvalue() == f"[1/1] table 0: {printable(NAME)} 10, b 0\n"
    assert Counter(out.getvalue())["\n"] == 1


def _ok():  # type: ignore[no-untyped-def]
    from arena.replay import Status

    return Status.OK


def test_check_report_escapes_detail_lines_and_stderr() -> None:
    """``arena check``'s step lines show what the bot sent and wrote escaped."""
    step = StepResult(
        2, "k", "reply", "about", status="fail", detail=f"named itself {NAME}",
        sent='{"type":"hello"}', received='{"x":"\x1b[2J"}', stderr="\x1b]0;t\x07\nline 2\r",
    )  # fmt: skip
    text = "\n".join(step_lines(step))
    assert raw_controls(text) == []
    assert "named itself evil\\x1b[31m\\r\\x07[bold]x[/bold]" in text
    assert 'received: {"x":"\\x1b[2J"}' in text
    assert "stderr:   \\x1b]0;t\\x07" in text


def test_check_of_a_hostile_bot_prints_no_raw_control(capsys: pytest.CaptureFixture[str]) -> None:
    """A real ``arena check`` of the hostile bot: every line escaped."""
    main(["check", HOSTILE, "--sandbox", "none"])
    captured = capsys.readouterr()
    assert raw_controls(captured.out) == []
    assert raw_controls(captured.err) == []


# -- hints that paste into a shell ---------------------------------------------------------------

ODD = "o'k dir"  # a space and a quote


def hint(line: str, command: str) -> str:
    """The ``arena ...`` command quoted in ``line`` (up to ``;`` or the closing parenthesis)."""
    start = line.index(f"arena {command}")
    rest = line[start:]
    end = min(i for i in (rest.find(";"), rest.rfind(")"), len(rest)) if i >= 0)
    return rest[:end]


def run_hint(command: str) -> subprocess.CompletedProcess[str]:
    """``command`` (an ``arena ...`` hint) run as pasted into ``sh -c``."""
    pasted = f"{shlex.quote(sys.executable)} -m {command}"
    return subprocess.run(
        ["sh", "-c", pasted], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_play_hints_paste_into_a_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``Replay: ... (arena view X; arena verify X)`` with a space and a quote in the path."""
    replay = tmp_path / ODD / "r.json"
    replay.parent.mkdir()
    main(["play", PLAYER, PLAYER, "--hands", "1", "--seed", "2", "--replay", str(replay),
          "--sandbox", "none"])  # fmt: skip
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Replay: "))
    verify = hint(line, "verify")
    assert verify == shell_line("arena", "verify", replay)
    assert run_hint(verify).returncode == 0
    assert run_hint(hint(line, "view") + " --all").returncode == 0


def test_tournament_hints_paste_into_a_shell(tmp_path: Path, marker: str) -> None:
    """The database and report hints after a tournament run as printed, with ``--out`` holding a
    space and a quote."""
    out = tmp_path / ODD
    run = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", f"{PLAYER} {marker}", f"{PLAYER} {marker}",
         "--hands", "1", "--seed", "3", "--out", str(out), "--workers", "1", "--sandbox", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    database = next(x for x in lines if x.startswith("database: "))
    standings = hint(database, "standings")
    assert standings == shell_line("arena", "standings", "--db", out / "tournament.db")
    assert "standings after 2 matches" in run_hint(standings).stdout
    report = next(x for x in lines if x.startswith("report: "))
    done = run_hint(hint(report, "report") + f" -o {shlex.quote(str(tmp_path / 'r.html'))}")
    assert done.returncode == 0, done.stderr
    assert live_processes_with(marker) == []


def test_a_replay_with_a_byte_order_mark_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay saved by an editor with a UTF-8 byte order mark still verifies."""
    replay = tmp_path / "r.json"
    main(["play", PLAYER, PLAYER, "--hands", "1", "--seed", "2", "--replay", str(replay),
          "--sandbox", "none", "--json"])  # fmt: skip
    replay.write_bytes(b"\xef\xbb\xbf" + replay.read_bytes())
    capsys.readouterr()
    assert main(["verify", str(replay)]) == 0
    assert capsys.readouterr().out.startswith(f"OK: {replay}: ")
