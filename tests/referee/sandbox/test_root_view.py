"""As root without bubblewrap (issue 10, 1): the quick start runs, an interpreter in a folder
closed to the bots' user runs as that user, hidden paths are masked, and a bot's command never
makes the run's own outputs or another bot's folder visible (issue 10, 2). Real processes."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

from arena.referee.process import open_bot_process
from arena.referee.sandbox import Capabilities, Mechanism, SandboxPathError
from tests.referee.sandbox.conftest import BOTS, PYTHON, make_plan, why_missing

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[3]
PY = sys.executable
SPY = str(BOTS / "spy.py")
NAMESPACED = [Mechanism.BWRAP, Mechanism.UNSHARE]


def needs_root_mounts(caps: Capabilities) -> None:
    """Skips unless the referee is root and unshare's namespace can mount here."""
    if os.geteuid() != 0:
        pytest.skip("the bots' user differs from the referee's only when it is root")
    if caps.unshare is None or caps.mount is None:
        pytest.skip(f"unshare cannot mount in its namespace here: {caps.unshare_problem}")


def hiding(programs: list[str]) -> list[str]:
    """The command that runs its arguments in a mount namespace of its own where each of
    ``programs`` that is installed is covered by /dev/null (so the arena cannot find it)."""
    found = [p for p in (shutil.which(name) for name in programs) if p]
    script = "".join(f"mount --bind /dev/null {shlex.quote(p)} && " for p in found)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script + 'exec "$@"']


def quick_start(out: Path) -> list[str]:
    """README's command 1 (its tournament), with this Python as ``python3 -m arena``."""
    node = "node sample_bots/greedy.js" if shutil.which("node") else "python3 sample_bots/greedy.py"
    bots = ["python3 sample_bots/greedy.py", "python3 sample_bots/random_bot.py", node]
    return [
        PY,
        "-m",
        "arena",
        "tournament",
        *bots,
        "--hands",
        "5",
        "--seed",
        "1",
        "--out",
        str(out),
    ]


def statuses(db: Path) -> list[str]:
    """Every seat's status in a tournament database (closed at once: no fd outlives it)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return [row[0] for row in conn.execute("SELECT status FROM seats")]


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A fresh folder every user may enter (pytest's own are closed to the bots' user)."""
    path = Path(tempfile.mkdtemp(prefix="arena-view-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run_hidden(hide: list[str], argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*hiding(hide), "sh", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=170,
        check=False,
    )


def test_the_quick_start_runs_as_root_without_bubblewrap(
    capabilities: Capabilities, open_dir: Path
) -> None:
    """With bwrap hidden, README's tournament runs to the end under --sandbox auto (unshare),
    every seat ``ok``, though this Python may live in root's closed home."""
    needs_root_mounts(capabilities)
    out = open_dir / "demo"
    run = run_hidden(["bwrap"], quick_start(out))
    assert run.returncode == 0, run.stderr + run.stdout
    assert "arena tournament: sandbox: unshare" in run.stderr
    assert "left out" not in run.stdout
    found = statuses(out / "tournament.db")
    assert len(found) == 12
    assert set(found) == {"ok"}


def test_the_quick_start_runs_as_root_without_any_namespace(
    capabilities: Capabilities, open_dir: Path
) -> None:
    """With bwrap and unshare hidden, the sample bots still play (rlimits): a bot whose
    interpreter the bots' user cannot read keeps uid 0 without capabilities, with one warning
    that says how to fix it."""
    needs_root_mounts(capabilities)
    out = open_dir / "demo"
    run = run_hidden(["bwrap", "unshare"], quick_start(out))
    assert run.returncode == 0, run.stderr + run.stdout
    assert "arena tournament: sandbox: rlimits" in run.stderr
    assert set(statuses(out / "tournament.db")) == {"ok"}
    warnings = [line for line in run.stderr.splitlines() if "without capabilities" in line]
    closed = any(not os.stat(d).st_mode & 0o001 for d in ("/", *_ancestors(os.path.realpath(PY))))
    assert len(warnings) == (1 if closed else 0), run.stderr
    if closed:
        assert "chmod o+rX " in warnings[0]
        assert "run_as_uid" not in run.stderr


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def report_of(command: list[str], plan: object, cwd: str | None = None) -> dict[str, object]:
    """Starts ``command`` (a ``spy.py report`` bot) in ``plan`` and returns its report."""

    async def body() -> dict[str, object]:
        async with open_bot_process(command, cwd=cwd, sandbox=plan) as proc:  # type: ignore[arg-type]
            found: dict[str, object] = json.loads(await proc.receive_line())
            return found

    return trio.run(body)


@pytest.mark.parametrize("mechanism", NAMESPACED, ids=lambda m: m.value)
def test_a_venv_in_a_closed_folder_runs_as_the_bots_user(
    capabilities: Capabilities, mechanism: Mechanism
) -> None:
    """An interpreter in a venv inside a 0700 ``mktemp -d`` runs the bot as uid 65534, which
    sees the venv and nothing else of that folder."""
    if os.geteuid() != 0:
        pytest.skip("the bots' user differs from the referee's only when it is root")
    if mechanism is Mechanism.UNSHARE:
        needs_root_mounts(capabilities)
    plan = make_plan(capabilities, mechanism)
    closed = Path(tempfile.mkdtemp(prefix="arena-venv-test-"))
    try:
        assert closed.stat().st_mode & 0o777 == 0o700
        (closed / "secret.txt").write_text("not for bots")
        subprocess.run([PY, "-m", "venv", "--without-pip", str(closed / "venv")], check=True)
        python = str(closed / "venv" / "bin" / "python3")
        seen = report_of(
            [python, SPY, "report", f"look={closed}", f"look={closed}/secret.txt"], plan
        )
        assert seen == {
            "uid": 65534,
            str(closed): "1 entries: venv",
            f"{closed}/secret.txt": "ENOENT",
        }
    finally:
        shutil.rmtree(closed, ignore_errors=True)


@pytest.mark.parametrize("mechanism", list(Mechanism), ids=lambda m: m.value)
def test_a_bot_in_a_folder_closed_to_the_bots_user_runs_as_root_without_capabilities(
    capabilities: Capabilities, mechanism: Mechanism, open_dir: Path
) -> None:
    """A 0700 bot folder cannot be shown to uid 65534: the bot is not refused, it runs as uid 0
    with no capability at all (one warning says so), under every mechanism."""
    if os.geteuid() != 0:
        pytest.skip("the bots' user differs from the referee's only when it is root")
    plan = make_plan(capabilities, mechanism)
    folder = open_dir / "bot"
    folder.mkdir()
    shutil.copy(SPY, folder / "spy.py")
    folder.chmod(0o700)
    seen = report_of([PYTHON, "spy.py", "report", "caps"], plan, cwd=str(folder))
    assert seen == {"uid": 0, "caps": "0000000000000000"}


def test_hidden_paths_are_masked_under_unshare(capabilities: Capabilities, open_dir: Path) -> None:
    """Under unshare as root a hidden folder is empty and a hidden file reads as nothing,
    in the bot's namespace only; a sibling stays visible and the host sees no new mount."""
    needs_root_mounts(capabilities)
    secret_dir = open_dir / "out"
    secret_dir.mkdir()
    (secret_dir / "tournament.db").write_text("results")
    secret_file = open_dir / "events.jsonl"
    secret_file.write_text("events")
    (open_dir / "public.txt").write_text("public")
    for path in (secret_dir, secret_dir / "tournament.db", secret_file, open_dir / "public.txt"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    plan = make_plan(
        capabilities, Mechanism.UNSHARE, hidden_paths=(str(secret_dir), str(secret_file))
    )
    mounts_before = Path("/proc/self/mountinfo").read_text()
    looks = [secret_dir, secret_dir / "tournament.db", secret_file, open_dir / "public.txt"]
    seen = report_of([PYTHON, SPY, "report", *(f"look={p}" for p in looks)], plan)
    assert seen == {
        "uid": 65534,
        str(secret_dir): "empty",
        f"{secret_dir}/tournament.db": "ENOENT",
        str(secret_file): "empty",
        f"{open_dir}/public.txt": "read",
    }
    assert Path("/proc/self/mountinfo").read_text() == mounts_before
    assert sorted(os.listdir(secret_dir)) == ["tournament.db"]


@pytest.mark.parametrize("mechanism", NAMESPACED, ids=lambda m: m.value)
def test_a_command_naming_a_hidden_path_is_refused(
    capabilities: Capabilities, mechanism: Mechanism, open_dir: Path
) -> None:
    """A command-line bot whose argument names a hidden path (or a path inside one) is
    refused before it starts, with what to do."""
    if why_missing(capabilities, mechanism):
        pytest.skip(why_missing(capabilities, mechanism) or "")
    out = open_dir / "secret_t3"
    out.mkdir()
    (out / "tournament.db").write_text("results")
    plan = make_plan(capabilities, mechanism, hidden_paths=(str(out),))
    for named in (out, out / "tournament.db"):
        with pytest.raises(SandboxPathError) as caught:
            plan.prepare([PYTHON, SPY, str(named)])
        where = "" if named == out else f", which is inside {str(out)!r}"
        assert str(caught.value) == (
            f"it names {str(named)!r}{where}: the sandbox never shows bots the output folder,"
            " database, replays or events of a run, nor another bot's folder; give the bot"
            " files from elsewhere, or write the run's outputs elsewhere (--out, --db, --events,"
            " --replay)"
        )


def spy_tournament(
    open_dir: Path, hide: list[str]
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """A real tournament: a spy that looks at the run's outputs and the other bot's folder,
    a folder bot, and a spy whose argument names the out folder."""
    out = open_dir / "secret_t3"
    events = open_dir / "events.jsonl"
    other = open_dir / "other_bot"
    other.mkdir()
    shutil.copy(ROOT / "sample_bots" / "random_bot.py", other / "bot.py")
    (other / "bot.toml").write_text(f'name = "other"\ncommand = "{PYTHON} bot.py"\n')
    for path in (other, other / "bot.py", other / "bot.toml"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    db = out / "tournament.db"
    looks = [out, db, Path(f"{db}-wal"), out / "replays", events, other, other / "bot.py"]
    spy = shlex.join([PYTHON, SPY, *(f"look={p}" for p in looks)])
    named = shlex.join([PYTHON, SPY, f"look={out}", str(out)])
    argv = [PY, "-m", "arena", "tournament", spy, str(other), named, "--hands", "1"]
    argv += ["--seed", "5", "--out", str(out), "--events", str(events), "--sandbox", "auto"]
    return run_hidden(hide, argv), out


@pytest.mark.parametrize("mechanism", NAMESPACED, ids=lambda m: m.value)
def test_a_spy_in_a_tournament_sees_none_of_the_runs_outputs_nor_other_bots(
    capabilities: Capabilities, mechanism: Mechanism, open_dir: Path
) -> None:
    """In a real tournament a bot sees nothing of the out folder, the database and its WAL,
    the replays, the events file or the other bot's folder; a bot whose command names the out
    folder is left out, saying why."""
    if why_missing(capabilities, mechanism):
        pytest.skip(why_missing(capabilities, mechanism) or "")
    if mechanism is Mechanism.UNSHARE:
        needs_root_mounts(capabilities)
    hide = ["bwrap"] if mechanism is Mechanism.UNSHARE else []
    run, out = spy_tournament(open_dir, hide)
    assert run.returncode == 0, run.stderr + run.stdout
    assert f"arena tournament: sandbox: {mechanism.value}" in run.stderr
    assert f"it names {str(out)!r}: the sandbox never shows bots" in run.stdout
    assert set(statuses(out / "tournament.db")) == {"ok"}
    notes = []
    for replay in (out / "replays").glob("*.json"):
        text = replay.read_text()
        data = json.loads(text)
        for hand in data["hands"]:
            for event in hand["events"]:
                if isinstance(event, dict) and event.get("debug"):
                    notes.append(json.loads(event["debug"]))
    assert notes, "the spy reported nothing"
    for seen in notes:
        uid = seen.pop("uid")
        assert uid == (65534 if os.geteuid() == 0 else os.geteuid())
        assert set(seen.values()) <= {"ENOENT", "EACCES", "empty"}, seen
