"""Tests for bot processes, run against the real misbehaving bots in tests/bots/."""

from __future__ import annotations

import os
import re
import select
import shlex
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio

from arena.referee import process
from arena.referee.commands import BotCommandError, parse_command
from arena.referee.framing import LineTooLongError
from arena.referee.process import (
    READ_CHUNK_BYTES,
    BotEOFError,
    BotGoneError,
    BotProcess,
    ExitStatus,
    open_bot_process,
)
from tests.helpers import bot_argv as bot
from tests.helpers import python_argv as python

pytestmark = pytest.mark.timeout(30)


def run(fn: Callable[[], Awaitable[None]]) -> None:
    """Runs an async test body under trio."""
    trio.run(fn)


def live_group_members(pgid: int) -> list[int]:
    """Returns the pids of processes in the group that are not zombies.

    On these machines PID 1 reaps orphans only every second or so, so a killed orphan can stay
    a zombie (holding no files or memory) for a while and ``os.killpg(pgid, 0)`` keeps working.
    """
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        state, _ppid, pgrp = stat[stat.rindex(")") + 2 :].split()[:3]
        if int(pgrp) == pgid and state not in "ZX":
            members.append(int(entry))
    return members


def assert_group_gone(pgid: int) -> None:
    """Asserts that no live process of the group remains, allowing a few ms for the kernel."""
    deadline = time.monotonic() + 0.1
    while live_group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.002)
    assert live_group_members(pgid) == []


def open_fds() -> set[int]:
    """Returns the file descriptors this process has open."""
    return {int(fd) for fd in os.listdir("/proc/self/fd")}


# -- happy path --------------------------------------------------------------------------------


def test_echo_round_trip() -> None:
    """A line sent to the echo bot comes back unchanged, and repr shows the running bot."""

    async def main() -> None:
        async with open_bot_process(bot("echo")) as proc:
            await proc.send_line(b'{"type":"hello","seat":0}')
            assert await proc.receive_line() == b'{"type":"hello","seat":0}'
            assert re.fullmatch(r"<BotProcess '.*echo\.py' pid=\d+ running>", repr(proc))
            assert proc.pid == os.getpgid(proc.pid)
            assert proc.stdout_bytes_received == 26
        assert_group_gone(proc.pid)

    run(main)


def test_many_lines_keep_their_order() -> None:
    """A thousand lines sent back to back come back in order."""

    async def main() -> None:
        async with open_bot_process(bot("echo")) as proc:
            for i in range(1000):
                await proc.send_line(b"%d" % i)
            for i in range(1000):
                assert await proc.receive_line() == b"%d" % i

    run(main)


def test_string_command_with_fixed_reply() -> None:
    """A string command is split shell-style and the echo bot answers with its argv reply."""

    async def main() -> None:
        command = shlex.join(bot("echo", '{"type":"ready"}'))
        async with open_bot_process(command) as proc:
            assert proc.command == command
            await proc.send_line(b"anything")
            assert await proc.receive_line() == b'{"type":"ready"}'

    run(main)


def test_cwd_and_env_reach_the_bot(tmp_path: Path) -> None:
    """The bot starts in the given directory with exactly the given environment."""

    async def main() -> None:
        code = "import os; print(os.getcwd(), os.environ.get('ARENA_X'), 'HOME' in os.environ)"
        env = {"ARENA_X": "42", "PATH": os.environ["PATH"]}
        async with open_bot_process(python(code), cwd=str(tmp_path), env=env) as proc:
            assert await proc.receive_line() == f"{tmp_path} 42 False".encode()

    run(main)


# -- timeouts ----------------------------------------------------------------------------------


def test_hang_times_out_and_closes_fast() -> None:
    """A bot that never answers is cut off by a cancel scope and is gone quickly after close."""

    async def main() -> None:
        async with open_bot_process(bot("hang"), kill_grace=2.0) as proc:
            await proc.send_line(b"{}")
            with trio.move_on_after(0.2) as scope:
                await proc.receive_line()
            assert scope.cancelled_caught
            assert proc.poll_line_nowait() is None
            started = time.monotonic()
        assert time.monotonic() - started < 1.0  # SIGTERM worked: no grace wait
        assert proc.exit_status() == ExitStatus(-signal.SIGTERM, signal.SIGTERM)
        assert repr(proc).endswith("exited: killed by signal SIGTERM>")
        assert_group_gone(proc.pid)

    run(main)


def test_cancelled_receive_keeps_partial_line() -> None:
    """Bytes of a half-written line read before a timeout are kept for the next call."""

    async def main() -> None:
        code = (
            "import sys; sys.stdout.write('{\"a\":'); sys.stdout.flush();"
            " sys.stdin.readline(); print('1}')"
        )
        async with open_bot_process(python(code)) as proc:
            with trio.fail_after(10):
                while proc.stdout_bytes_received < 5:
                    with trio.move_on_after(0.01) as scope:
                        await proc.receive_line()
                    assert scope.cancelled_caught
            assert proc.stdout_bytes_received == 5
            await proc.send_line(b"go on")
            assert await proc.receive_line() == b'{"a":1}'

    run(main)


def test_poll_after_deadline_finds_late_reply() -> None:
    """A reply that arrived while the referee was stalled is found by poll_line_nowait."""

    async def main() -> None:
        async with open_bot_process(bot("late", "0.1", '{"type":"late"}')) as proc:
            await proc.send_line(b"{}")
            with trio.move_on_after(0.02) as scope:
                await proc.receive_line()
            assert scope.cancelled_caught
            # The referee itself stalls (blocking on purpose) until the reply is in the pipe.
            deadline = time.monotonic() + 10
            while (line := proc.poll_line_nowait()) is None and time.monotonic() < deadline:
                time.sleep(0.01)  # noqa: ASYNC251  the referee stalls on purpose
            assert line == b'{"type":"late"}'
            assert proc.poll_line_nowait() is None

    run(main)


def test_already_cancelled_receive_does_not_consume_a_line() -> None:
    """A receive_line called under an expired deadline raises Cancelled and loses no line."""

    async def main() -> None:
        async with open_bot_process(bot("echo")) as proc:
            await proc.send_line(b"a\nb")
            assert await proc.receive_line() == b"a"
            with trio.CancelScope() as scope:
                scope.cancel()
                await proc.receive_line()
            assert scope.cancelled_caught
            assert await proc.receive_line() == b"b"

    run(main)


def passes_while_reading_ready_lines(pause_s: float = 0.0) -> int:
    """How many times another task ran while 999 lines that were read already (with the
    first, in one write) are taken one by one, after a pause of ``pause_s``."""
    ticks = counted = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await trio.lowlevel.checkpoint()

    async def main() -> None:
        nonlocal ticks, counted
        # 2000 bytes in one write (atomic, under PIPE_BUF): all of it comes with the first read.
        code = "import sys; sys.stdout.write('x\\n' * 1000); sys.stdout.flush(); sys.stdin.read()"
        async with open_bot_process(python(code)) as proc, trio.open_nursery() as nursery:
            assert await proc.receive_line() == b"x"
            nursery.start_soon(ticker)
            await trio.sleep(pause_s)  # the ticker starts
            ticks = 0
            for _ in range(999):
                assert await proc.receive_line() == b"x"
            counted = ticks
            nursery.cancel_scope.cancel()

    run(main)
    return counted


@pytest.mark.parametrize(("slice_s", "least", "most"), [(0.0, 998, 1000), (1e9, 0, 0)])
def test_lines_already_read_pass_the_scheduler_once_per_fair_slice(
    monkeypatch: pytest.MonkeyPatch, slice_s: float, least: int, most: int
) -> None:
    """A line that is there without waiting lets other tasks run only when FAIR_SLICE_S has
    passed since the last pass through the scheduler: every time with 0, never with a day."""
    monkeypatch.setattr(process, "FAIR_SLICE_S", slice_s)
    # (trio runs the tasks ready at once in random order: one pass more or less at the ends)
    assert least <= passes_while_reading_ready_lines() <= most


def test_with_the_default_fair_slice_ready_lines_pass_the_scheduler_rarely_but_not_never() -> None:
    """With the default FAIR_SLICE_S, lines that are there already are taken with few passes
    through the scheduler (at least the one due after a pause longer than the slice)."""
    assert 1 <= passes_while_reading_ready_lines(2 * process.FAIR_SLICE_S) <= 100


# -- crashes and bad output --------------------------------------------------------------------


def test_crash_at_start_gives_eof_exit_code_and_stderr() -> None:
    """A bot that exits at once gives BotEOFError, exit code 3 and its stderr message."""

    async def main() -> None:
        async with open_bot_process(bot("crash_at_start")) as proc:
            with pytest.raises(BotEOFError) as info:
                await proc.receive_line()
            assert info.value.unterminated == b""
            status = await proc.wait_exit()
            assert status == ExitStatus(3, None)
            assert status.describe() == "exit code 3"
            assert proc.stderr_text() == (
                "crash_at_start: giving up before reading anything (exit 3)\n"
            )
            assert repr(proc).endswith("exited: exit code 3>")
        assert proc.exit_status() == ExitStatus(3, None)

    run(main)


def test_send_to_exited_bot_raises_bot_gone() -> None:
    """Writing to a bot that has exited raises BotGoneError."""

    async def main() -> None:
        async with open_bot_process(bot("crash_at_start")) as proc:
            await proc.wait_exit()
            with pytest.raises(BotGoneError, match="cannot write to the bot: Broken pipe"):
                await proc.send_line(b"{}")

    run(main)


def test_send_line_nowait_writes_whole_lines_or_nothing() -> None:
    """send_line_nowait writes a line the pipe has room for, and no part of one over PIPE_BUF
    or one the full pipe has no room for; it raises BotGoneError once the bot has gone."""
    code = "import sys, time; time.sleep(0.3); [print(x, end='', flush=True) for x in sys.stdin]"

    async def main() -> None:
        async with open_bot_process(python(code)) as proc:
            assert not proc.send_line_nowait(b"b" * select.PIPE_BUF)  # 4097 bytes with "\n"
            sent = 0
            while proc.send_line_nowait(b"c" * 1000):  # the bot reads nothing yet: it fills
                sent += 1
            assert 0 < sent * 1001 <= 1 << 20
            assert not proc.send_line_nowait(b"c" * 1000)
            for _ in range(sent):
                assert await proc.receive_line() == b"c" * 1000
            await proc.send_line(b"end")
            assert await proc.receive_line() == b"end"
        async with open_bot_process(bot("crash_at_start")) as proc:
            await proc.wait_exit()
            with pytest.raises(BotGoneError, match="Broken pipe"):
                proc.send_line_nowait(b"{}")
        with pytest.raises(BotGoneError, match="closed"):
            proc.send_line_nowait(b"{}")

    run(main)


def test_crash_mid_game_answers_then_fails() -> None:
    """The mid-game crasher answers twice, then its stdout ends and its traceback is on stderr."""

    async def main() -> None:
        async with open_bot_process(bot("crash_mid_game", "2", '{"ok":1}')) as proc:
            for _ in range(3):
                await proc.send_line(b"{}")
            assert await proc.receive_line() == b'{"ok":1}'
            assert await proc.receive_line() == b'{"ok":1}'
            with pytest.raises(BotEOFError):
                await proc.receive_line()
            assert await proc.wait_exit() == ExitStatus(1, None)
            stderr = proc.stderr_text()
            assert stderr.startswith("Traceback (most recent call last):")
            assert stderr.endswith("RuntimeError: crash_mid_game: deliberate crash on line 3\n")

    run(main)


def test_silent_exit_gives_eof() -> None:
    """A bot that exits without writing gives BotEOFError and exit code 0."""

    async def main() -> None:
        async with open_bot_process(bot("silent_exit")) as proc:
            await proc.send_line(b'{"type":"hello"}')
            with pytest.raises(BotEOFError, match="the bot closed its stdout"):
                await proc.receive_line()
            with pytest.raises(BotEOFError):
                await proc.receive_line()
            assert await proc.wait_exit() == ExitStatus(0, None)
            assert proc.stderr_text() == ""

    run(main)


def test_eof_keeps_unterminated_last_bytes() -> None:
    """Bytes written without a newline before exiting are kept on the BotEOFError."""

    async def main() -> None:
        code = 'import sys; sys.stdout.write(\'{"type":"pla\'); sys.stdout.flush()'
        async with open_bot_process(python(code)) as proc:
            with pytest.raises(BotEOFError) as info:
                await proc.receive_line()
            assert info.value.unterminated == b'{"type":"pla'

    run(main)


def test_garbage_is_returned_as_a_line() -> None:
    """Non-JSON, non-UTF-8 output is returned as raw bytes for the protocol layer to judge."""

    async def main() -> None:
        async with open_bot_process(bot("garbage")) as proc:
            await proc.send_line(b"{}")
            assert await proc.receive_line() == b"\xff\xfe garbage {{{ not json \x00\x01"

    run(main)


def test_endless_line_raises_line_too_long_with_bounded_reading() -> None:
    """An endless line raises LineTooLongError having read at most the limit plus one chunk."""

    async def main() -> None:
        async with open_bot_process(bot("endless_line", "1"), max_line_bytes=1000) as proc:
            await proc.send_line(b'{"type":"hello"}')
            assert await proc.receive_line() == b"{}"
            await proc.send_line(b"{}")
            with trio.fail_after(5), pytest.raises(LineTooLongError) as info:
                await proc.receive_line()
            assert info.value.limit == 1000
            assert info.value.prefix == b"x" * 200
            assert proc.stdout_bytes_received <= 3 + 1001 + READ_CHUNK_BYTES
            with pytest.raises(LineTooLongError):
                proc.poll_line_nowait()

    run(main)


def test_stderr_flood_does_not_block_and_is_capped() -> None:
    """A bot flooding stderr keeps answering, and only the capped head and tail are kept."""

    async def main() -> None:
        async with open_bot_process(bot("stderr_flood", "{}"), stderr_cap_bytes=10_000) as proc:
            with trio.fail_after(10):
                while proc.stderr_bytes_received < 4_000_000:
                    await proc.send_line(b"{}")
                    assert await proc.receive_line() == b"{}"
        text = proc.stderr_text()
        head, dropped, tail = re.fullmatch(
            r"(.*)\n\[\.\.\. (\d+) bytes dropped \.\.\.\]\n(.*)", text, re.DOTALL
        ).groups()  # type: ignore[union-attr]
        assert head == ("stderr flood " * 5000)[:5000]
        assert len(tail) == 5000
        assert int(dropped) == proc.stderr_bytes_received - 10_000
        assert proc.stderr_tail(100) == text[-100:]

    run(main)


# -- termination -------------------------------------------------------------------------------


def test_ignore_sigterm_is_killed_after_grace() -> None:
    """A bot that ignores SIGTERM is SIGKILLed once the grace period has passed."""

    async def main() -> None:
        async with open_bot_process(bot("ignore_sigterm"), kill_grace=0.3) as proc:
            await proc.send_line(b"{}")
            assert await proc.receive_line() == b"{}"  # the SIGTERM handler is installed
            started = time.monotonic()
        elapsed = time.monotonic() - started
        assert 0.3 <= elapsed < 0.3 + 0.4
        assert proc.exit_status() == ExitStatus(-signal.SIGKILL, signal.SIGKILL)
        assert proc.exit_status().describe() == "killed by signal SIGKILL"
        assert_group_gone(proc.pid)

    run(main)


@pytest.mark.parametrize("mode", ["exit", "hang"])
def test_background_child_is_killed_with_the_group(mode: str) -> None:
    """A child holding the bot's stdout is killed with its group, and close returns quickly."""

    async def main() -> None:
        async with open_bot_process(bot("background_child", mode)) as proc:
            await proc.send_line(b"{}")
            assert await proc.receive_line() == b"{}"
            match = re.search(r"background child pid (\d+)", proc.stderr_text())
            assert match is not None
            child = int(match.group(1))
            assert child in live_group_members(proc.pid)
            if mode == "exit":
                assert await proc.wait_exit() == ExitStatus(0, None)
            # The child still holds stdout, so no EOF arrives.
            with trio.move_on_after(0.1) as scope:
                await proc.receive_line()
            assert scope.cancelled_caught
            started = time.monotonic()
        assert time.monotonic() - started < 1.0
        assert_group_gone(proc.pid)
        assert child not in live_group_members(proc.pid)

    run(main)


def test_outer_cancellation_cleans_up() -> None:
    """Cancelling the block from outside stops the bot and the Cancelled reaches its scope."""

    async def main() -> None:
        procs: list[BotProcess] = []
        with trio.move_on_after(0.2) as scope:
            async with open_bot_process(bot("hang")) as proc:
                procs.append(proc)
                await proc.receive_line()
        assert scope.cancelled_caught
        assert procs[0].exit_status().signal == signal.SIGTERM
        assert_group_gone(procs[0].pid)

    run(main)


def test_body_exception_propagates_unwrapped() -> None:
    """An exception in the block comes out as itself, not in an ExceptionGroup, after cleanup."""
    procs: list[BotProcess] = []

    async def main() -> None:
        async with open_bot_process(bot("hang")) as proc:
            procs.append(proc)
            raise ValueError("boom")

    with pytest.raises(ValueError, match=r"^boom$"):
        run(main)
    assert not procs[0].exit_status().running
    assert_group_gone(procs[0].pid)


def test_keyboard_interrupt_cleans_up() -> None:
    """A KeyboardInterrupt in the block still ends the bot's group and propagates."""
    procs: list[BotProcess] = []

    async def main() -> None:
        async with open_bot_process(bot("ignore_sigterm"), kill_grace=0.05) as proc:
            procs.append(proc)
            await proc.send_line(b"{}")
            await proc.receive_line()
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(main)
    assert procs[0].exit_status().signal == signal.SIGKILL
    assert_group_gone(procs[0].pid)


def test_use_after_close_raises_and_stderr_stays_readable() -> None:
    """After the block, I/O raises the bot errors while status and stderr stay available."""

    async def main() -> None:
        async with open_bot_process(bot("crash_at_start", "5")) as proc:
            await proc.wait_exit()
        with pytest.raises(BotEOFError, match="process was closed"):
            await proc.receive_line()
        with pytest.raises(BotGoneError, match="process was closed"):
            await proc.send_line(b"{}")
        assert proc.poll_line_nowait() is None
        assert proc.stderr_text() == "crash_at_start: giving up before reading anything (exit 5)\n"
        await proc.aclose()  # idempotent

    run(main)


def test_no_file_descriptors_leak() -> None:
    """Running bots that answer, crash, hang or fail to start leaves no descriptor open."""

    async def main() -> None:
        before = open_fds()
        async with open_bot_process(bot("echo")) as proc:
            await proc.send_line(b"x")
            await proc.receive_line()
        async with open_bot_process(bot("crash_at_start")) as proc:
            await proc.wait_exit()
        with trio.move_on_after(0.1):
            async with open_bot_process(bot("hang")) as proc:
                await proc.receive_line()
        with pytest.raises(BotCommandError):
            async with open_bot_process(python("pass"), cwd="/nonexistent-dir"):
                pass
        assert open_fds() == before

    run(main)


# -- statuses and command errors ---------------------------------------------------------------


def test_exit_status_descriptions() -> None:
    """Exit statuses describe a running process, an exit code and a killing signal."""
    assert ExitStatus.from_returncode(None).describe() == "still running"
    assert ExitStatus.from_returncode(None).running
    assert ExitStatus.from_returncode(0) == ExitStatus(0, None)
    assert ExitStatus.from_returncode(-9) == ExitStatus(-9, 9)
    assert ExitStatus.from_returncode(-9).describe() == "killed by signal SIGKILL"
    assert ExitStatus.from_returncode(-200).describe() == "killed by signal 200"


def test_missing_file_is_a_command_error() -> None:
    """A path to a file that does not exist is reported as not found."""
    with pytest.raises(BotCommandError) as info:
        parse_command("bots/nope.py --fast")
    assert str(info.value) == "bot command 'bots/nope.py --fast': file not found"


def test_missing_file_relative_to_cwd(tmp_path: Path) -> None:
    """A relative path is checked against the bot's working directory."""
    (tmp_path / "bot").write_text("#!/bin/sh\n")
    (tmp_path / "bot").chmod(0o755)
    assert parse_command("./bot", cwd=str(tmp_path)) == ["./bot"]
    with pytest.raises(BotCommandError) as info:
        parse_command("./other", cwd=str(tmp_path))
    where = f"(relative to {str(tmp_path)!r})"
    assert str(info.value) == f"bot command './other': file not found {where}"


def test_non_executable_file_suggests_interpreter(tmp_path: Path) -> None:
    """A Python file without the execute bit gets a hint to run it with python3."""
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    script.chmod(0o644)
    with pytest.raises(BotCommandError) as info:
        parse_command([str(script)])
    assert str(info.value) == (
        f"bot command {str(script)!r}: file is not executable"
        f" (try 'python3 {script}' or 'chmod +x {script}')"
    )


def test_directory_is_a_command_error(tmp_path: Path) -> None:
    """A path naming a directory is refused."""
    with pytest.raises(BotCommandError, match="is a directory"):
        parse_command([str(tmp_path)])


def test_unknown_program_is_a_command_error() -> None:
    """A program name that is not on PATH is reported as such."""
    with pytest.raises(BotCommandError) as info:
        parse_command("no-such-program-xyz arg")
    assert str(info.value).startswith(
        "bot command 'no-such-program-xyz arg': program 'no-such-program-xyz' not found on PATH"
    )


def test_program_is_looked_up_on_the_bot_path(tmp_path: Path) -> None:
    """With an env, the program is looked up on that env's PATH."""
    (tmp_path / "mybot").write_text("#!/bin/sh\n")
    (tmp_path / "mybot").chmod(0o755)
    assert parse_command("mybot -v", env={"PATH": str(tmp_path)}) == ["mybot", "-v"]
    with pytest.raises(BotCommandError, match="not found on PATH"):
        parse_command("mybot")


def test_empty_and_unparsable_commands() -> None:
    """Empty commands and unbalanced quotes are command errors."""
    with pytest.raises(BotCommandError, match=r"^bot command '': empty command$"):
        parse_command("")
    with pytest.raises(BotCommandError, match=r"^bot command '  ': empty command$"):
        parse_command("  ")
    with pytest.raises(BotCommandError, match=r"^bot command '': empty command$"):
        parse_command([])
    with pytest.raises(BotCommandError, match="cannot parse: No closing quotation"):
        parse_command("python3 'unclosed")


def test_command_error_raised_before_spawning() -> None:
    """open_bot_process raises BotCommandError for a missing program without starting anything."""

    async def main() -> None:
        with pytest.raises(BotCommandError, match="not found on PATH"):
            async with open_bot_process("no-such-program-xyz"):
                pytest.fail("the block must not run")

    run(main)


def test_spawn_failure_is_a_command_error(tmp_path: Path) -> None:
    """An executable file the kernel cannot run becomes a BotCommandError naming the reason."""
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x00\x01\x02 not a program")
    junk.chmod(0o755)

    async def main() -> None:
        with pytest.raises(BotCommandError) as info:
            async with open_bot_process([str(junk)]):
                pytest.fail("the block must not run")
        assert str(info.value).startswith(f"bot command {str(junk)!r}: cannot start: Exec format")

    run(main)


def test_close_input_closes_stdin_only() -> None:
    """close_input: the bot reads end of input and can still answer; sending fails; idempotent."""
    script = "import sys; sys.stdin.read(); print('eof', flush=True); sys.stdin.close()"

    async def main() -> None:
        async with open_bot_process([sys.executable, "-c", script]) as proc:
            await proc.send_line(b"x")
            proc.close_input()
            proc.close_input()
            assert await proc.receive_line() == b"eof"
            with pytest.raises(BotGoneError):
                await proc.send_line(b"y")
            assert (await proc.wait_exit()).returncode == 0
        assert_group_gone(proc.pid)

    run(main)
