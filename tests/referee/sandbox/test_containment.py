"""Hostile bots under the sandbox, as real processes, under each mechanism this machine has.

Every test runs with the ``clean`` fixture: afterwards no process of the bot is left, the
referee has not leaked a file descriptor or a cgroup, and its memory stayed bounded.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.referee.framing import LineTooLongError
from arena.referee.process import (
    BotEOFError,
    BotGoneError,
    BotProcess,
    OutputLimitError,
    open_bot_process,
)
from arena.referee.sandbox import (
    Capabilities,
    Mechanism,
    SandboxPlan,
    detect_capabilities,
    plan_sandbox,
)
from tests.helpers import BOTS as TEST_BOTS
from tests.helpers import REPO
from tests.processes import live_processes_with
from tests.referee.sandbox.conftest import (
    BOTS,
    FAST,
    PYTHON,
    bot,
    make_plan,
    wait_gone,
    why_missing,
)

pytestmark = [pytest.mark.timeout(30), pytest.mark.usefixtures("clean")]

NAMESPACED = [Mechanism.BWRAP, Mechanism.UNSHARE]


def run(fn: Callable[[], Awaitable[None]]) -> None:
    """Runs an async test body under trio."""
    trio.run(fn)


def python_processes(marker: str) -> list[int]:
    """Pids of live processes running the bot interpreter with ``marker`` (not wrappers)."""
    found = []
    for pid in live_processes_with(marker):
        try:
            argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if argv0 == PYTHON.encode():
            found.append(pid)
    return found


def require(plan: SandboxPlan, controller: str) -> None:
    """Skips the test when the plan has no cgroup with ``controller``, saying why."""
    if controller not in plan.cgroup_controllers:
        problem = plan.capabilities.cgroup_problem or "no cgroup is used"
        pytest.skip(f"no {controller} cgroup on this machine: {problem}")


async def expect_eof(proc: BotProcess, within: float) -> None:
    """Reads lines until the bot's stdout closes, failing after ``within`` seconds."""
    with trio.fail_after(within):
        while True:
            try:
                await proc.receive_line()
            except BotEOFError:
                return


# -- memory ---------------------------------------------------------------------------------------


def test_memory_hog_is_killed_and_reported_as_memory_limit(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A bot that allocates 2 GB is OOM-killed by its cgroup and typed memory_limit."""
    plan = make_plan(capabilities, mechanism)
    require(plan, "memory")

    async def body() -> None:
        async with open_bot_process(bot("memory_hog", marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"ready"
            await proc.send_line(b"go")
            await expect_eof(proc, 10)
        outcome = proc.resource_outcome()
        assert outcome is not None
        assert outcome.status == "memory_limit"
        assert outcome.usage.oom_kills is not None
        assert outcome.usage.oom_kills >= 1
        assert outcome.usage.memory_peak_bytes is not None
        assert outcome.usage.memory_peak_bytes <= 130 << 20
        if mechanism is not Mechanism.UNSHARE:  # unshare 2.38 reports a killed child as exit 1
            assert proc.exit_status().signal == signal.SIGKILL

    run(body)


def test_memory_without_a_cgroup_is_capped_as_address_space(
    capabilities: Capabilities, marker: str
) -> None:
    """Without a memory cgroup, RLIMIT_AS makes the 2 GB allocation fail inside the bot."""
    plan = make_plan(capabilities, Mechanism.RLIMITS, use_cgroups=False)
    assert any(name == "AS" for name, *_ in plan.rlimits)

    async def body() -> None:
        async with open_bot_process(bot("memory_hog", marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"ready"
            await proc.send_line(b"go")
            assert await proc.receive_line() == b"MemoryError"
        assert proc.resource_outcome() is None

    run(body)


# -- CPU ------------------------------------------------------------------------------------------


def test_cpu_spinner_is_killed_at_the_cpu_limit(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A bot that spins without answering is stopped after its CPU seconds: cpu_limit."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        async with open_bot_process(bot("cpu_spinner", marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"ready"
            started = trio.current_time()
            await expect_eof(proc, 5)
            elapsed = trio.current_time() - started
        assert 0.8 < elapsed < 2.5
        outcome = proc.resource_outcome()
        assert outcome is not None
        assert outcome.status == "cpu_limit"
        if "cpu" in plan.cgroup_controllers:
            assert outcome.usage.cpu_seconds is not None
            assert outcome.usage.cpu_seconds > 0.5

    run(body)


def test_cpu_limit_without_a_cgroup_is_rlimit_cpu(capabilities: Capabilities, marker: str) -> None:
    """Without cgroup accounting, RLIMIT_CPU's SIGXCPU stops the spinner and types cpu_limit."""
    plan = make_plan(capabilities, Mechanism.RLIMITS, use_cgroups=False)

    async def body() -> None:
        async with open_bot_process(bot("cpu_spinner", marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"ready"
            await expect_eof(proc, 5)
        assert proc.exit_status().signal == signal.SIGXCPU
        outcome = proc.resource_outcome()
        assert outcome is not None
        assert outcome.status == "cpu_limit"

    run(body)


# -- processes ------------------------------------------------------------------------------------


def test_fork_of_50_sleepers_leaves_nothing_after_close(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """Fifty forked sleepers are all gone once the bot's context exits."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        async with open_bot_process(bot("forker", "50", marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"started 50"
            assert len(python_processes(marker)) == 51

    run(body)
    assert wait_gone(marker) < 1.0


def test_fork_bomb_is_stopped_by_the_process_limit(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A bot forking 500 children gets no more than max_processes; the refusals are counted."""
    plan = make_plan(capabilities, mechanism)
    require(plan, "pids")

    async def body() -> None:
        async with open_bot_process(bot("forker", "500", marker), sandbox=plan) as proc:
            started = int((await proc.receive_line()).split()[1])
            assert started < 64
            usage = proc.resource_usage()
            assert usage is not None
            assert usage.pids_limit_hits
        assert "fork failed" in proc.stderr_text()

    run(body)


def test_setsid_escaper_is_gone_within_a_second_of_close(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A double-forked grandchild in its own session, holding stdout, does not outlive close."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        async with open_bot_process(bot("escaper", marker), sandbox=plan) as proc:
            line = await proc.receive_line()
            assert line.startswith(b"ready ")
            assert len(python_processes(marker)) == 2  # the bot and its grandchild

    run(body)
    assert wait_gone(marker) < 1.0


def test_bot_that_keeps_running_after_stdin_closes_is_killed(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A bot (and child) ignoring SIGTERM and stdin EOF is killed within the grace period."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        async with open_bot_process(bot("linger", marker), sandbox=plan, kill_grace=0.2) as proc:
            assert await proc.receive_line() == b"ready"
            closing = trio.current_time()
        assert trio.current_time() - closing < 1.0

    run(body)
    assert wait_gone(marker) < 1.0


def test_bot_that_closes_stdin_at_once_cannot_be_written_to(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """Writing to a bot that closed its stdin raises BotGoneError, and it is cleaned up."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        async with open_bot_process(bot("stdin_closer", marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"closed"
            with pytest.raises(BotGoneError):
                await proc.send_line(b"x" * 200_000)

    run(body)


# -- network --------------------------------------------------------------------------------------


@pytest.fixture
def listener() -> socket.socket:
    """A TCP socket listening on 127.0.0.1 (closed by the test)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    return server


@pytest.mark.parametrize("mechanism", NAMESPACED, ids=lambda m: m.value)
def test_bot_cannot_open_a_tcp_connection(
    capabilities: Capabilities, mechanism: Mechanism, marker: str, listener: socket.socket
) -> None:
    """In its own network namespace a bot cannot reach a server on the host's loopback."""
    plan = make_plan(capabilities, mechanism)
    port = str(listener.getsockname()[1])

    async def body() -> None:
        async with open_bot_process(bot("connector", port, marker), sandbox=plan) as proc:
            line = await proc.receive_line()
        assert line.startswith(b"failed "), line

    with listener:
        run(body)
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_network_is_kept_without_namespaces(
    capabilities: Capabilities, marker: str, listener: socket.socket
) -> None:
    """The rlimits mechanism has no network namespace: the bot connects (as documented)."""
    plan = make_plan(capabilities, Mechanism.RLIMITS)
    assert any("network" in item for item in plan.not_enforced)
    port = str(listener.getsockname()[1])

    async def body() -> None:
        async with open_bot_process(bot("connector", port, marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"connected"

    with listener:
        run(body)


def test_allow_network_lets_the_bot_connect(
    capabilities: Capabilities, marker: str, listener: socket.socket
) -> None:
    """With allow_network=True the bwrap sandbox keeps the host's network."""
    plan = make_plan(capabilities, Mechanism.BWRAP, allow_network=True)
    port = str(listener.getsockname()[1])

    async def body() -> None:
        async with open_bot_process(bot("connector", port, marker), sandbox=plan) as proc:
            assert await proc.receive_line() == b"connected"

    with listener:
        run(body)
        listener.setblocking(True)
        listener.settimeout(2)
        conn, _address = listener.accept()
        with conn:
            assert conn.recv(100).startswith(b"hello from the bot")


# -- files ----------------------------------------------------------------------------------------


def test_one_gigabyte_file_is_stopped_by_the_file_size_cap(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """Writing 1 GB fails with EFBIG at the cap, and nothing is left on disk after close."""
    plan = make_plan(capabilities, mechanism)
    cap = plan.config.file_size_mb
    assert cap is not None

    workdirs: list[str] = []

    async def body() -> None:
        async with open_bot_process(bot("big_writer", marker), sandbox=plan) as proc:
            words = (await proc.receive_line()).decode().split()
            assert words[:2] == ["EFBIG", str(cap << 20)]
            assert proc.workdir is not None
            workdirs.append(proc.workdir)
            big = trio.Path(proc.workdir, "big.bin")
            assert words[2] == str(big)
            if mechanism is Mechanism.BWRAP:  # the file lives in the sandbox's tmpfs
                assert not await big.exists()
            else:
                assert (await big.stat()).st_size == cap << 20

    run(body)
    assert not os.path.exists(workdirs[0])


def make_folder(path: Path, files: dict[str, str]) -> Path:
    """Creates a world-readable folder holding ``files`` (the bot's user must read a bot's)."""
    path.mkdir(parents=True)
    path.chmod(0o755)
    for name, text in files.items():
        (path / name).write_text(text)
        (path / name).chmod(0o644)
    return path


def test_bot_cannot_read_other_bots_or_replays_or_write_outside(
    capabilities: Capabilities, marker: str, tmp_path: Path
) -> None:
    """Under bwrap, other folders and replays do not exist for the bot; its own is read-only."""
    plan = make_plan(capabilities, Mechanism.BWRAP)
    tmp_path.chmod(0o755)
    other = make_folder(tmp_path / "other_bot", {"secret.txt": "the other bot's secret"})
    replays = make_folder(tmp_path / "replays", {"match.json": "{}"})
    mine = make_folder(tmp_path / "my_bot", {})
    shutil.copy(BOTS / "snoop.py", mine / "snoop.py")
    actions = [
        f"read:{other}/secret.txt",
        f"list:{other}",
        f"read:{replays}/match.json",
        f"write:{replays}/evil.json",
        f"write:{mine}/evil.txt",
        "read:snoop.py",
        "write:scratch.txt",
        "write:/tmp/scratch.txt",
    ]

    async def body() -> None:
        command = [PYTHON, "snoop.py", *actions, marker]
        async with open_bot_process(command, cwd=str(mine), sandbox=plan) as proc:
            results = json.loads(await proc.receive_line())
        assert results == {
            f"read:{other}/secret.txt": "ENOENT",
            f"list:{other}": "ENOENT",
            f"read:{replays}/match.json": "ENOENT",
            f"write:{replays}/evil.json": "ENOENT",
            f"write:{mine}/evil.txt": "EROFS",
            "read:snoop.py": "ENOENT",  # relative to its working directory, not its folder
            "write:scratch.txt": "ok",
            "write:/tmp/scratch.txt": "ok",
        }

    run(body)
    assert sorted(os.listdir(mine)) == ["snoop.py"]
    assert sorted(os.listdir(replays)) == ["match.json"]
    assert not os.path.exists("/tmp/scratch.txt") or os.path.getsize("/tmp/scratch.txt") != 19


def test_bot_cannot_see_another_running_bots_working_directory(
    capabilities: Capabilities, marker: str
) -> None:
    """Two bots at once: each one's working directory is invisible to the other."""
    plan = make_plan(capabilities, Mechanism.BWRAP, scratch="disk")

    async def body() -> None:
        async with open_bot_process(bot("linger", marker), sandbox=plan) as first:
            assert await first.receive_line() == b"ready"
            assert first.workdir is not None
            actions = [f"list:{first.workdir}", f"write:{first.workdir}/x"]
            async with open_bot_process(bot("snoop", *actions, marker), sandbox=plan) as second:
                results = json.loads(await second.receive_line())
            assert second.workdir != first.workdir
        assert set(results.values()) == {"ENOENT"}

    run(body)


def test_hidden_paths_mask_a_replay_folder_inside_the_bots_folder(
    capabilities: Capabilities, marker: str, tmp_path: Path
) -> None:
    """A path in hidden_paths is masked even inside the bot's own (bound) folder."""
    tmp_path.chmod(0o755)
    mine = make_folder(tmp_path / "my_bot", {})
    make_folder(mine / "replays", {"match.json": "{}"})
    shutil.copy(BOTS / "snoop.py", mine / "snoop.py")
    plan = make_plan(capabilities, Mechanism.BWRAP, hidden_paths=(str(mine / "replays"),))

    async def body() -> None:
        command = [PYTHON, "snoop.py", f"read:{mine}/replays/match.json", marker]
        async with open_bot_process(command, cwd=str(mine), sandbox=plan) as proc:
            results = json.loads(await proc.receive_line())
        assert results == {f"read:{mine}/replays/match.json": "ENOENT"}

    run(body)


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop applies only when the referee is root")
def test_bot_runs_as_an_unprivileged_user(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """As root, the referee runs bots as nobody: /etc/shadow cannot be read."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        async with open_bot_process(bot("snoop", "read:/etc/shadow", marker), sandbox=plan) as proc:
            assert json.loads(await proc.receive_line()) == {"read:/etc/shadow": "EACCES"}

    run(body)


def test_environment_is_scrubbed(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """The bot gets PATH, HOME (its working directory), LANG, TMPDIR and allowed names only."""
    plan = make_plan(capabilities, mechanism, env_allow=("KEEP_ME",))
    env = {**os.environ, "ARENA_SECRET": "s3cret", "KEEP_ME": "yes"}

    async def body() -> None:
        async with open_bot_process(bot("env_dump", marker), env=env, sandbox=plan) as proc:
            seen = json.loads(await proc.receive_line())
        assert set(seen["env"]) - {"PWD"} == {"PATH", "HOME", "LANG", "TMPDIR", "KEEP_ME"}
        assert seen["env"]["HOME"] == seen["cwd"] == proc.workdir
        assert seen["env"]["KEEP_ME"] == "yes"
        if os.geteuid() == 0:
            assert seen["uid"] == 65534

    run(body)


# -- output ---------------------------------------------------------------------------------------


def test_stdout_flood_without_newlines_hits_the_line_cap(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A bot writing bytes without a newline gets LineTooLongError at max_line_bytes."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        command = bot("flood", "bytes", marker)
        async with open_bot_process(command, sandbox=plan, max_line_bytes=4096) as proc:
            with pytest.raises(LineTooLongError) as caught:
                await proc.receive_line()
        assert caught.value.limit == 4096

    run(body)


def test_total_stdout_is_capped_per_match(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A bot flooding short lines hits max_stdout_bytes: OutputLimitError, and again after."""
    plan = make_plan(capabilities, mechanism)

    async def body() -> None:
        command = bot("flood", "lines", marker)
        async with open_bot_process(command, sandbox=plan, max_stdout_bytes=1 << 20) as proc:
            lines = 0
            caught: OutputLimitError | None = None
            while caught is None:
                try:
                    await proc.receive_line()
                    lines += 1
                except OutputLimitError as error:
                    caught = error
            assert caught.limit == 1 << 20
            assert caught.received > 1 << 20
            assert lines > 0
            with pytest.raises(OutputLimitError):
                await proc.receive_line()

    run(body)


def test_close_is_quick_and_workdir_is_removed(
    capabilities: Capabilities, mechanism: Mechanism, marker: str
) -> None:
    """A well-behaved bot's close takes well under the grace and removes its directory."""
    plan = make_plan(capabilities, mechanism)

    workdirs: list[str] = []

    async def body() -> None:
        async with open_bot_process(bot("linger", marker), sandbox=plan, kill_grace=2.0) as proc:
            assert await proc.receive_line() == b"ready"
            assert proc.workdir is not None
            assert await trio.Path(proc.workdir).is_dir()
            workdirs.append(proc.workdir)
            closing = time.monotonic()
        assert time.monotonic() - closing < 2.5

    run(body)
    assert not os.path.exists(workdirs[0])


REFEREE = """
import sys, trio
from arena.referee.process import open_bot_process
from arena.referee.sandbox import SandboxConfig, plan_sandbox

async def main():
    async with trio.open_nursery() as nursery:
        for mechanism in sys.argv[2:]:
            plan = plan_sandbox(SandboxConfig(mechanism=mechanism))

            async def one(plan=plan):
                command = [sys.argv[1], "{bot}", "{marker}"]
                async with open_bot_process(command, sandbox=plan) as bot:
                    await bot.receive_line()
                    print("up", flush=True)
                    await trio.sleep_forever()

            nursery.start_soon(one)

trio.run(main)
"""


def test_bots_die_with_a_killed_referee_and_leftovers_are_reaped(
    capabilities: Capabilities, marker: str
) -> None:
    """SIGKILL to the referee ends namespaced bots at once; the next start-up reaps the rest."""
    mechanisms = [m.value for m in Mechanism if not why_missing(capabilities, m)]
    script = REFEREE.format(bot=BOTS / "linger.py", marker=marker)
    referee = subprocess.Popen(
        [sys.executable, "-c", script, PYTHON, *mechanisms], stdout=subprocess.PIPE
    )
    assert referee.stdout is not None
    with referee.stdout:
        for _ in mechanisms:
            assert referee.stdout.readline() == b"up\n"
    referee.kill()
    referee.wait()
    time.sleep(0.2)
    # Only the rlimits bot's forked child can be left: it has no namespace to die with.
    assert len(python_processes(marker)) <= 1
    plan_sandbox(capabilities=detect_capabilities(refresh=True))  # what a new referee does
    assert wait_gone(marker) < 1.0
    assert not [name for name in os.listdir(tempfile.gettempdir()) if f".{referee.pid}." in name]


@pytest.mark.parametrize("mechanism", NAMESPACED, ids=lambda m: m.value)
def test_a_sandbox_whose_referee_never_connects_ends_by_itself(
    capabilities: Capabilities, mechanism: Mechanism, marker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrapped bot whose referee died before opening its FIFOs ends within the timer.

    What a referee killed while bwrap was still setting up (before its pid 1 had a
    parent-death signal) leaves behind: a sandbox whose shell waits for the FIFOs forever.
    Here nobody ever opens them; the timer (1 s here, 12 s in use) ends the whole sandbox.
    """
    from arena.referee.sandbox import bot as sandbox_bot

    monkeypatch.setattr(sandbox_bot, "SANDBOX_CONNECT_TIMEOUT_S", 1)
    plan = make_plan(capabilities, mechanism)
    box = plan.prepare(bot("linger", marker))
    try:
        assert box.stdin_fifo is not None, "a wrapped bot reads its stdin from a FIFO"
        wrapper = subprocess.Popen(
            box.argv,
            cwd=box.cwd,
            env=box.env,
            preexec_fn=box.preexec_fn,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            wrapper.wait(timeout=10)
        finally:
            if wrapper.poll() is None:
                os.killpg(wrapper.pid, signal.SIGKILL)
                wrapper.wait()
        assert wait_gone(marker, within=5.0) < 5.0
        assert live_processes_with(marker) == []
        assert python_processes(marker) == [], "the bot never started"
    finally:
        box.close()


def test_bot_outlives_the_thread_that_could_have_spawned_it(
    capabilities: Capabilities, mechanism: Mechanism, marker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sandboxed bot is not killed when trio retires its idle worker threads."""
    # bwrap --die-with-parent and PR_SET_PDEATHSIG follow the forking *thread*: a bot forked
    # from a trio worker thread died when that thread retired (10 s idle; 0.05 s here).
    thread_cache = pytest.importorskip("trio._core._thread_cache")
    if not hasattr(thread_cache, "IDLE_TIMEOUT"):
        pytest.skip("this trio has no IDLE_TIMEOUT to shorten")
    monkeypatch.setattr(thread_cache, "IDLE_TIMEOUT", 0.05)
    plan = make_plan(capabilities, mechanism)
    echo = [PYTHON, str(TEST_BOTS / "echo.py"), marker]  # answers marker

    async def body() -> None:
        async with open_bot_process(echo, sandbox=plan) as proc:
            await proc.send_line(b"one")
            assert await proc.receive_line() == marker.encode()
            await trio.to_thread.run_sync(time.sleep, 0.01)  # let worker threads come and go
            await trio.sleep(0.3)
            await proc.send_line(b"two")
            assert await proc.receive_line() == marker.encode()

    run(body)


def test_sample_bots_play_a_whole_match_in_the_sandbox(capabilities: Capabilities) -> None:
    """greedy.py (given the protocol package) and random_bot.py finish a match, both ok."""
    # Imported here, as in tests/test_sample_bots.py: the match module is changing.
    from arena.games.matador import MATADOR, MatadorRules
    from arena.games.match import MatchLength
    from arena.referee.channel import BotSpec
    from arena.referee.clock import TimeLimits
    from arena.referee.match import MatchConfig, play_match

    repo = REPO
    plan = plan_sandbox(
        dataclasses.replace(FAST, cpu_seconds=30, read_only_paths=(str(repo / "protocol"),)),
        capabilities,
    )
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=2,
        seed=11,
        length=MatchLength(target=None, hands=2),
        time=TimeLimits(startup_ms=5000, move_ms=2000),
    )
    commands = [
        BotSpec(f"{sys.executable} {repo / 'sample_bots' / 'greedy.py'}"),
        BotSpec(f"{PYTHON} {repo / 'sample_bots' / 'random_bot.py'}"),
    ]

    def connect(spec: BotSpec) -> Any:
        return open_bot_process(spec.command, cwd=spec.cwd, sandbox=plan)

    replay = trio.run(partial(play_match, config, commands, connect=connect))
    assert [seat.status.value for seat in replay.seats] == ["ok", "ok"]
