"""``arena tournament --sandbox auto`` with the sample bots: every match is played contained and
every seat is ``ok``; the sandbox is stored with the tournament, and its jobs hide the output
folder and the entrants' folders."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

from arena.referee.sandbox import SandboxConfig
from arena.tournament.settings import (
    PROTOCOL_DIR,
    TournamentSettings,
    job_sandbox,
    sandbox_from_dict,
    sandbox_to_dict,
)
from tests.processes import live_processes_with

ROOT = Path(__file__).resolve().parents[3]
PY = sys.executable


def test_a_sandboxed_tournament_of_the_sample_bots_is_all_ok(tmp_path: Path) -> None:
    marker = f"tour-box-{uuid.uuid4().hex}"
    out = tmp_path / "t"
    run = subprocess.run(
        [
            PY, "-m", "arena", "tournament",
            f"python3 sample_bots/random_bot.py {marker}",
            f"{PY} sample_bots/greedy.py {marker}",
            f"{PY} sample_bots/random_bot.py {marker} second",
            "--hands", "2", "--seed", "3", "--out", str(out), "--concurrency", "2",
            "--workers", "2", "--sandbox", "auto", "--memory-mb", "512", "--max-stdout-mb", "4",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "arena tournament: sandbox: " in run.stderr
    with sqlite3.connect(out / "tournament.db") as conn:
        statuses = [row[0] for row in conn.execute("SELECT status FROM seats")]
        config = json.loads(
            conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0]
        )
    assert len(statuses) == 12
    assert set(statuses) == {"ok"}, statuses
    settings = TournamentSettings.from_dict(config)
    assert settings.max_stdout_bytes == 4 << 20
    assert settings.sandbox is not None
    stored = sandbox_from_dict(settings.sandbox)
    assert stored.mechanism == "auto"
    assert stored.memory_mb == 512
    assert PROTOCOL_DIR in stored.read_only_paths
    assert live_processes_with(marker) == []


def test_sandbox_settings_round_trip_and_jobs_hide_the_output(tmp_path: Path) -> None:
    config = SandboxConfig(memory_mb=256, read_only_paths=("/x",), mechanism="rlimits")
    assert sandbox_from_dict(json.loads(json.dumps(sandbox_to_dict(config)))) == config
    settings = TournamentSettings(game="matador", sandbox=sandbox_to_dict(config))
    assert TournamentSettings.from_dict(settings.to_dict()) == settings
    old = settings.to_dict()
    del old["sandbox"], old["max_stdout_bytes"]  # a database from before the sandbox
    assert TournamentSettings.from_dict(old).sandbox is None
    job = job_sandbox(settings.sandbox, tmp_path / "out", ["/bots/a", None, "/bots/b"])
    assert job is not None
    hidden = sandbox_from_dict(job).hidden_paths
    assert hidden == tuple(sorted({str(tmp_path / "out"), "/bots/a", "/bots/b"}))
    assert job_sandbox(None, tmp_path, ["/bots/a"]) is None


def test_a_bare_python3_in_a_sandboxed_command_is_the_arenas_interpreter() -> None:
    """Sandboxed, ``python3 bot.py`` runs the Python running the arena (its packages included),
    as it does outside the sandbox."""
    from arena.referee.sandbox.paths import resolve_command

    resolved = resolve_command(["python3", "bot.py"], None, "/usr/bin")
    assert resolved.argv[0] == sys.executable
    assert sys.executable in resolved.program
    assert resolved.path_dirs[0] == os.path.dirname(sys.executable)
