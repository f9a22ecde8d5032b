"""SIGTERM and SIGHUP stop every command that runs bots as Ctrl-C does: real processes, a bot
thinking forever, exit code 128 + the signal, the resume line, and no process left behind."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.processes import live_processes_with

ROOT = Path(__file__).parents[1]
PY = sys.executable
THINKER = ROOT / "tests" / "bots" / "think_forever.py"


def thinker(marker: str, *extra: str) -> str:
    """A bot that answers the handshake and then thinks forever over its first request."""
    return " ".join([PY, shlex.quote(str(THINKER)), marker, *extra])


def children(pid: int) -> list[int]:
    """Pids of the live processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if fields.get("PPid", "").strip() == str(pid) and not fields["State"].startswith("Z"):
            found.append(int(entry.name))
    return found


def _play(tmp: Path, marker: str, sandbox: str) -> list[str]:
    return ["play", thinker(marker), thinker(marker, "b"), "--move-ms", "60000",
            "--replay", str(tmp / "r.json"), "--sandbox", sandbox]  # fmt: skip


def _rematch(tmp: Path, marker: str, sandbox: str) -> list[str]:
    # A replay of the thinkers (seat 0 times out at 300 ms), then given a limit of a minute.
    recorded = tmp / "recorded.json"
    subprocess.run(
        [PY, "-m", "arena", "play", thinker(marker), thinker(marker, "b"), "--move-ms", "300",
         "--replay", str(recorded), "--sandbox", sandbox],
        cwd=ROOT, capture_output=True, check=True, timeout=120,
    )  # fmt: skip
    document = json.loads(recorded.read_text())
    document["time"]["move_ms"] = 60000
    recorded.write_text(json.dumps(document))
    return ["rematch", str(recorded), "--replay", str(tmp / "again.json")]


def _check(tmp: Path, marker: str, sandbox: str) -> list[str]:
    return ["check", thinker(marker), "--move-ms", "60000", "--sandbox", sandbox]


def _tournament(tmp: Path, marker: str, sandbox: str) -> list[str]:
    return ["tournament", thinker(marker), thinker(marker, "b"), "--hands", "1",
            "--move-ms", "60000", "--out", str(tmp / "t"), "--concurrency", "2",
            "--workers", "2", "--sandbox", sandbox]  # fmt: skip


def _sprt(tmp: Path, marker: str, sandbox: str) -> list[str]:
    return ["sprt", thinker(marker), thinker(marker, "b"), "--hands", "1", "--move-ms", "60000",
            "--out", str(tmp / "s"), "--concurrency", "2", "--workers", "2",
            "--sandbox", sandbox]  # fmt: skip


COMMANDS: dict[str, Callable[[Path, str, str], list[str]]] = {
    "play": _play,
    "rematch": _rematch,
    "check": _check,
    "tournament": _tournament,
    "sprt": _sprt,
}


def _said(command: str, tmp: Path) -> str:
    """What the command says on stderr when it is stopped."""
    if command == "tournament":
        return f"Resume with: arena tournament --resume --db {tmp / 't' / 'tournament.db'}"
    if command == "sprt":
        return f"Interrupted after 0 pairs (LLR +0.000); games recorded in {tmp / 's'}"
    return f"arena {command}: interrupted; every bot process was stopped"


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(
    ("signum", "sandbox"), [(signal.SIGTERM, "none"), (signal.SIGHUP, "auto")], ids=["term", "hup"]
)
def test_a_stop_signal_stops_the_command_and_every_bot(
    tmp_path: Path, command: str, signum: int, sandbox: str
) -> None:
    """The signal to the arena while a bot thinks: exit 128 + signal, the command's Ctrl-C
    message (the resume line for a tournament), and no bot or worker process left."""
    marker = f"stop-{uuid.uuid4().hex}"
    argv = COMMANDS[command](tmp_path, marker, sandbox)
    process = subprocess.Popen(
        [PY, "-m", "arena", *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while not live_processes_with(f"--thinking\0{marker}") and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        assert live_processes_with(f"--thinking\0{marker}"), "no bot started thinking"
        helpers = children(process.pid)  # the tournament's and the SPRT's workers among them
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signum, (out, err)
    assert _said(command, tmp_path) in err
    assert "Traceback" not in err
    deadline = time.monotonic() + 5
    while live_processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_processes_with(marker) == []
    assert [pid for pid in helpers if Path(f"/proc/{pid}").exists()] == []


@pytest.mark.parametrize("command", ["play", "tournament"])
def test_a_hang_up_with_the_terminal_gone_still_stops_every_bot(
    tmp_path: Path, command: str
) -> None:
    """SIGHUP after the output went away (a closed terminal: here, pipes nobody reads): the
    messages cannot be written, yet every bot is stopped and the exit code is 129."""
    marker = f"hup-{uuid.uuid4().hex}"
    argv = COMMANDS[command](tmp_path, marker, "none")
    process = subprocess.Popen(
        [PY, "-m", "arena", *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 90
        while not live_processes_with(f"--thinking\0{marker}") and time.monotonic() < deadline:
            assert process.poll() is None
            time.sleep(0.05)
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()
        process.stderr.close()
        process.send_signal(signal.SIGHUP)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signal.SIGHUP
    deadline = time.monotonic() + 5
    while live_processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_processes_with(marker) == []
