"""Bot processes: spawning, raw line I/O, stderr capture and whole-group termination.

This is the only module of the arena that runs processes. A bot runs in its own session
(``start_new_session=True``), so its process ID is also its process-group ID and one
``os.killpg`` reaches every process it forked that did not call ``setsid()`` itself. Its stdout
is framed into lines by `arena.referee.framing.LineBuffer` with a hard cap; its stderr is read
all the time into a capped head-and-tail buffer, because an unread stderr pipe fills after
64 KiB and then blocks the bot, which would look like a timeout.

The hot path (`BotProcess.send_line` and `BotProcess.receive_line`) reads and writes the raw
non-blocking pipe descriptors and falls back to trio's ``wait_readable``/``wait_writable``
only when the pipe is not ready. Measured against ``FdStream.send_all``/``receive_some`` it
roughly halves the referee's CPU per round trip, because it saves one pass through the trio
scheduler per call. A reply that is there at once is taken without a pass either, except
once `FAIR_SLICE_S` has gone by since the last one (a pass per line cost ~8 µs per move with
a bot that answers at once): other tasks still run at least that often. Timeouts are the
caller's business: wrap calls in a cancel scope.

With ``sandbox=`` a bot is contained by `arena.referee.sandbox` (namespaces, a cgroup, resource
limits, its own working directory and a scrubbed environment): its command is wrapped, the
limits are set in the child before it starts, and closing it also empties its cgroup and
removes its working directory. `BotProcess.resource_outcome` then tells whether a memory or
CPU limit ended it. `run_capped(..., sandbox=...)` contains a bot's build the same way, on a
private copy of its folder. This module also runs the sandbox's detection probes (`run_probe`).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import queue
import select
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from signal import SIGKILL, SIGTERM, Signals
from typing import Any

import trio

from arena.errors import BotCommandError, BotEOFError, BotGoneError, OutputLimitError
from arena.referee.framing import LineBuffer, LineTooLongError
from arena.referee.sandbox import (
    BotSandbox,
    ResourceOutcome,
    ResourceUsage,
    SandboxConfig,
    SandboxError,
    SandboxPathError,
    SandboxPlan,
    classify_outcome,
    plan_sandbox,
)

__all__ = [
    "FAIR_SLICE_S",
    "READ_CHUNK_BYTES",
    "BotCommandError",
    "BotEOFError",
    "BotGoneError",
    "BotProcess",
    "CommandResult",
    "ExitStatus",
    "LineTooLongError",
    "OutputLimitError",
    "open_bot_process",
    "parse_command",
    "run_capped",
    "run_probe",
    "signal_group",
]

READ_CHUNK_BYTES = 65536
"""How many bytes one read from a bot's stdout or stderr asks for (the Linux pipe size)."""

_REAP_TIMEOUT = 5.0  # seconds to wait for a SIGKILLed leader to be reaped before giving up
_STDERR_SYNC_READS = 8  # reads per synchronous stderr drain, so a flooding bot cannot pin us
_SANDBOX_EMPTY_TIMEOUT = 2.0  # seconds to keep killing what is left in a bot's cgroup
_WRAPPER_EXIT_WAIT = 0.1  # seconds a sandbox wrapper gets to exit after the bot's stdout closed
_PROBE_TIMEOUT = 5.0  # seconds a sandbox detection probe may take
#: How long a task may go on taking lines that were there already before `receive_line`
#: passes through the scheduler anyway, so that other tasks (a worker's other matches, stderr
#: drains, watchdogs) run: seconds since this bot's last line that came through it. A reply
#: for another task waits at most this, plus one move, per task that is busy meanwhile.
FAIR_SLICE_S = 0.0005

_checkpoint_if_cancelled = trio.lowlevel.checkpoint_if_cancelled
_cancel_shielded_checkpoint = trio.lowlevel.cancel_shielded_checkpoint
_now = time.perf_counter
_wait_readable = trio.lowlevel.wait_readable
_wait_writable = trio.lowlevel.wait_writable

_INTERPRETER_HINTS = {
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".sh": "sh",
    ".jar": "java -jar",
}


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a bot process ended, or that it has not.

    Attributes:
        returncode: The raw return code as `subprocess.Popen` reports it (negative when killed
            by a signal), or ``None`` while the process runs.
        signal: The number of the signal that killed the process, or ``None``.
    """

    returncode: int | None
    signal: int | None

    @classmethod
    def from_returncode(cls, returncode: int | None) -> ExitStatus:
        """Builds the status from a `subprocess.Popen`-style return code.

        Args:
            returncode: ``None`` while running, the exit code, or minus the signal number.

        Returns:
            The corresponding status.
        """
        if returncode is not None and returncode < 0:
            return cls(returncode, -returncode)
        return cls(returncode, None)

    @property
    def running(self) -> bool:
        """Whether the process had not exited when the status was taken."""
        return self.returncode is None

    def describe(self) -> str:
        """Says how the process ended, for people.

        Returns:
            ``"still running"``, ``"exit code 3"`` or ``"killed by signal SIGKILL"``.
        """
        if self.signal is not None:
            try:
                name = Signals(self.signal).name
            except ValueError:
                name = str(self.signal)
            return f"killed by signal {name}"
        if self.returncode is None:
            return "still running"
        return f"exit code {self.returncode}"


def _display(command: str | Sequence[str]) -> str:
    return command if isinstance(command, str) else shlex.join(command)


def _interpreter_hint(program: str) -> str:
    interpreter = _INTERPRETER_HINTS.get(os.path.splitext(program)[1].lower())
    chmod = f"chmod +x {shlex.quote(program)}"
    if interpreter is None:
        return f"try '{chmod}'"
    return f"try '{interpreter} {shlex.quote(program)}' or '{chmod}'"


def parse_command(
    command: str | Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """Splits a bot command into argv and checks that its program can be run.

    A program name without a slash is looked up on ``PATH`` (the ``PATH`` of ``env`` when it
    is given, as the spawn will do); a path with a slash must name an executable file,
    relative to ``cwd`` when it is given.

    Args:
        command: A shell-like string (split with `shlex.split`, no shell is involved) or an
            argv sequence.
        cwd: The directory the bot will start in.
        env: The bot's environment, if it differs from ours.

    Returns:
        The argv list, with the program as given (not resolved).

    Raises:
        BotCommandError: If the command is empty or unparsable, or its program is missing,
            not a file, or not executable. The message names the command and the reason.
    """
    shown = _display(command)
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BotCommandError(f"bot command {shown!r}: cannot parse: {exc}") from None
    else:
        argv = [str(arg) for arg in command]
    if not argv or not argv[0]:
        raise BotCommandError(f"bot command {shown!r}: empty command")
    program = argv[0]
    if "/" not in program:
        path = None if env is None else env.get("PATH", os.defpath)
        if shutil.which(program, path=path) is None:
            raise BotCommandError(
                f"bot command {shown!r}: program {program!r} not found on PATH"
                " (give a path such as './bot' for a file in the bot's directory)"
            )
        return argv
    full = os.path.join(cwd, program) if cwd is not None else program
    where = "" if cwd is None else f" (relative to {cwd!r})"
    if not os.path.exists(full):
        raise BotCommandError(f"bot command {shown!r}: file not found{where}")
    if os.path.isdir(full):
        raise BotCommandError(f"bot command {shown!r}: {program!r} is a directory{where}")
    if not os.access(full, os.X_OK):
        raise BotCommandError(
            f"bot command {shown!r}: file is not executable ({_interpreter_hint(program)})"
        )
    return argv


def signal_group(pgid: int, sig: int) -> bool:
    """Sends a signal to every process of a process group.

    Args:
        pgid: The process-group ID (a bot's pid, since each bot leads its own session).
        sig: The signal number.

    Returns:
        ``False`` if the group no longer exists, else ``True``.
    """
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def _reap_group_orphans(pgid: int) -> None:
    # Processes of the group that were re-parented to us (when the referee is PID 1 in a
    # container, or a child subreaper) would stay zombies forever: reap them. This only ever
    # touches our own children in this one group, so it cannot steal another Popen's status.
    if not hasattr(os, "waitid"):  # not on macOS
        return
    while True:
        try:
            info = os.waitid(os.P_PGID, pgid, os.WEXITED | os.WNOHANG)
        except ChildProcessError:
            return
        if info is None:
            return


class _StderrCapture:
    """Keeps the first and the last bytes of a stream, up to a total cap, and counts the rest."""

    __slots__ = ("_head", "_head_cap", "_tail", "_tail_cap", "total")

    def __init__(self, cap: int) -> None:
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
            if not data:
                return
        tail = self._tail
        tail += data
        # Trim in batches (at twice the cap) so a flood costs amortised O(1) per byte.
        if len(tail) > 2 * self._tail_cap:
            del tail[: len(tail) - self._tail_cap]

    @property
    def dropped(self) -> int:
        return self.total - len(self._head) - min(len(self._tail), self._tail_cap)

    def text(self) -> str:
        tail = bytes(self._tail[-self._tail_cap :]) if self._tail_cap else b""
        dropped = self.dropped
        if dropped:
            head = self._head.decode(errors="replace")
            return f"{head}\n[... {dropped} bytes dropped ...]\n{tail.decode(errors='replace')}"
        return (bytes(self._head) + tail).decode(errors="replace")


class BotProcess:
    """A running bot: its own process group, stdin/stdout pipes, and captured stderr.

    Stderr is drained continuously into a capped buffer that keeps the first and the last
    bytes (``stderr_cap_bytes`` in total) and counts the bytes dropped between them.

    Create it with `open_bot_process`, which also guarantees the cleanup. One task at a time
    may send, and one task at a time may receive.

    Attributes:
        pid: The bot's process ID, which is also its process-group ID (under a sandbox, the
            ID of the wrapper, such as ``bwrap``, that runs the bot).
        argv: The command as started (under a sandbox, the wrapper's full command).
        command: The command for people: the string given, or the argv joined shell-style.
        stdout_bytes_received: Total bytes read from the bot's stdout.
        sandbox: The bot's sandbox, or ``None`` when it runs uncontained.
    """

    def __init__(
        self,
        process: trio.Process | _Child,
        argv: list[str],
        command: str,
        *,
        max_line_bytes: int,
        stderr_cap_bytes: int,
        kill_grace: float,
        max_stdout_bytes: int | None = None,
        sandbox: BotSandbox | None = None,
        streams: _Streams | None = None,
    ) -> None:
        """Wraps a process started with stdin, stdout and stderr pipes (internal).

        Args:
            process: The process, started with ``start_new_session=True``.
            argv: The command as started.
            command: The command for people.
            max_line_bytes: The longest accepted stdout line.
            stderr_cap_bytes: How much stderr to keep.
            kill_grace: Seconds between SIGTERM and SIGKILL when closing.
            max_stdout_bytes: The most stdout bytes accepted in all, or ``None``.
            sandbox: The bot's sandbox, closed with the bot.
            streams: The bot's stdin, stdout and stderr, for a process that is not a
                `trio.Process` with pipes (a sandboxed bot's).
        """
        if streams is None:
            assert isinstance(process, trio.Process)
            pipes = process.stdin, process.stdout, process.stderr
            assert isinstance(pipes[0], trio.lowlevel.FdStream)
            assert isinstance(pipes[1], trio.lowlevel.FdStream)
            assert isinstance(pipes[2], trio.lowlevel.FdStream)
            streams = (pipes[0], pipes[1], pipes[2])
        stdin, stdout, stderr = streams
        self._process = process
        self.pid: int = process.pid
        self.argv = argv
        self.command = command
        self.stdout_bytes_received = 0
        self._stdin = stdin
        self._stdout = stdout
        self._stderr = stderr
        # The streams own the fds; -1 marks "closed here", so a stale number is never used.
        self._stdin_fd = stdin.fileno()
        self._stdout_fd = stdout.fileno()
        self._stderr_fd = stderr.fileno()
        self._buffer = LineBuffer(max_line_bytes)
        self._eof = False
        self._stderr_capture = _StderrCapture(stderr_cap_bytes)
        self._kill_grace = kill_grace
        self._closing = False
        self._max_stdout = sys.maxsize if max_stdout_bytes is None else max_stdout_bytes
        self._stdout_over = False
        self._scheduled_at = 0.0  # _now() when receive_line last passed the scheduler
        self.sandbox = sandbox

    def __repr__(self) -> str:
        status = self.exit_status()
        state = "running" if status.running else f"exited: {status.describe()}"
        box = "" if self.sandbox is None else f" sandbox={self.sandbox.plan.mechanism.value}"
        return f"<BotProcess {self.command!r} pid={self.pid} {state}{box}>"

    # -- stdin ------------------------------------------------------------------------------

    async def send_line(self, line: bytes) -> None:
        """Writes one line to the bot's stdin.

        This is a cancellation point, but it only yields to the scheduler when the pipe is
        full (the bot is not reading). If it is cancelled then, part of the line may have
        been written; treat the bot as timed out.

        Args:
            line: The line, without a newline (none is checked for; one is appended).

        Raises:
            BotGoneError: If the bot's stdin is closed (it exited or closed the pipe), or
                this object was closed.
        """
        await _checkpoint_if_cancelled()
        fd = self._stdin_fd
        if fd < 0:
            raise BotGoneError("cannot write to the bot: its process was closed")
        data = line + b"\n"
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            raise BotGoneError(f"cannot write to the bot: {exc.strerror or exc}") from exc
        if written < len(data):
            await self._send_rest(memoryview(data)[written:])

    def send_line_nowait(self, line: bytes) -> bool:
        """Writes one line to the bot's stdin if the pipe has room for all of it now.

        It never waits and is not a cancellation point. A line that a pipe does not write in
        one piece (over ``select.PIPE_BUF`` bytes with its newline: 4096 on Linux) is never
        written here.

        Args:
            line: The line, without a newline (none is checked for; one is appended).

        Returns:
            Whether the line was written; when it was not, no part of it was.

        Raises:
            BotGoneError: As `send_line`.
        """
        fd = self._stdin_fd
        if fd < 0:
            raise BotGoneError("cannot write to the bot: its process was closed")
        data = line + b"\n"
        if len(data) > select.PIPE_BUF:
            return False
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            return False
        except OSError as exc:
            raise BotGoneError(f"cannot write to the bot: {exc.strerror or exc}") from exc
        # A pipe writes up to PIPE_BUF bytes in one piece, or nothing (EAGAIN) when full.
        assert written == len(data)
        return True

    async def _send_rest(self, rest: memoryview) -> None:
        while rest:
            fd = self._stdin_fd
            if fd < 0:
                raise BotGoneError("cannot write to the bot: its process was closed")
            try:
                await _wait_writable(fd)
                rest = rest[os.write(fd, rest) :]
            except BlockingIOError:
                continue
            except trio.ClosedResourceError:
                raise BotGoneError("cannot write to the bot: its process was closed") from None
            except OSError as exc:
                raise BotGoneError(f"cannot write to the bot: {exc.strerror or exc}") from exc

    # -- stdout -----------------------------------------------------------------------------

    async def receive_line(self) -> bytes:
        """Waits for the next complete line from the bot's stdout.

        This is a cancellation point. It yields to the scheduler when it waits for the bot, and
        for a line that is there already only when `FAIR_SLICE_S` has passed since it last did.
        Cancellation-safe: when cancelled (a timeout), bytes already read stay buffered and
        no line is lost. Wrap calls in a cancel scope for the time limit; after it fires,
        `poll_line_nowait` gives the bot a last chance.

        Returns:
            The line, without its ``b"\\n"`` and without one ``b"\\r"`` before it.

        Raises:
            LineTooLongError: If the line exceeds ``max_line_bytes`` (raised as soon as the
                limit is passed, before any newline; it is raised again on every later call).
            BotEOFError: If the bot closed its stdout, or this object was closed.
            OutputLimitError: If the bot's stdout passed ``max_stdout_bytes`` in all.
        """
        await _checkpoint_if_cancelled()
        buffer = self._buffer
        line = buffer.next_line()
        if line is not None:
            if _now() - self._scheduled_at >= FAIR_SLICE_S:
                await _cancel_shielded_checkpoint()
                self._scheduled_at = _now()
            return line
        while True:
            fd = self._stdout_fd
            if fd < 0 or self._eof:
                raise self._eof_error()
            if self._stdout_over:
                raise OutputLimitError(self._max_stdout, self.stdout_bytes_received)
            try:
                data = os.read(fd, READ_CHUNK_BYTES)
            except BlockingIOError:
                try:
                    await _wait_readable(fd)
                except trio.ClosedResourceError:
                    raise self._eof_error() from None
                self._scheduled_at = _now()
                continue
            except OSError as exc:
                self._eof = True
                raise BotEOFError(f"cannot read from the bot: {exc.strerror or exc}") from exc
            if not data:
                self._eof = True
                raise self._eof_error()
            self.stdout_bytes_received += len(data)
            if self.stdout_bytes_received > self._max_stdout:
                self._stdout_over = True
                raise OutputLimitError(self._max_stdout, self.stdout_bytes_received)
            line = buffer.take_line(data)
            if line is not None:
                if _now() - self._scheduled_at >= FAIR_SLICE_S:
                    await _cancel_shielded_checkpoint()
                    self._scheduled_at = _now()
                return line

    def poll_line_nowait(self) -> bytes | None:
        """Returns a line that is already buffered or already waiting in the pipe.

        Meant for the moment a deadline fires: a last non-blocking read, so that a bot whose
        answer arrived while the referee itself was stalled is not blamed for a timeout.

        Returns:
            The next complete line, or ``None`` if none has arrived (including at EOF).

        Raises:
            LineTooLongError: If the pending line exceeds ``max_line_bytes``.
            OutputLimitError: If the bot's stdout passed ``max_stdout_bytes`` in all.
        """
        buffer = self._buffer
        line = buffer.next_line()
        while line is None:
            fd = self._stdout_fd
            if fd < 0 or self._eof:
                return None
            if self._stdout_over:
                raise OutputLimitError(self._max_stdout, self.stdout_bytes_received)
            try:
                data = os.read(fd, READ_CHUNK_BYTES)
            except BlockingIOError:
                return None
            except OSError:
                self._eof = True
                return None
            if not data:
                self._eof = True
                return None
            self.stdout_bytes_received += len(data)
            if self.stdout_bytes_received > self._max_stdout:
                self._stdout_over = True
                raise OutputLimitError(self._max_stdout, self.stdout_bytes_received)
            line = buffer.take_line(data)
        return line

    def _eof_error(self) -> BotEOFError:
        if self._stdout_fd < 0:
            return BotEOFError("the bot's process was closed")
        return BotEOFError("the bot closed its stdout", self._buffer.pending())

    # -- stderr -----------------------------------------------------------------------------

    async def _drain_stderr(self) -> None:
        stream = self._stderr
        capture = self._stderr_capture
        try:
            while True:
                data = await stream.receive_some(READ_CHUNK_BYTES)
                if not data:
                    return
                capture.add(data)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return

    def _drain_stderr_nowait(self) -> None:
        # What the bot wrote just before exiting may still sit in the pipe because the drain
        # task has not run yet; read it synchronously so stderr_text() is complete.
        for _ in range(_STDERR_SYNC_READS):
            fd = self._stderr_fd
            if fd < 0:
                return
            try:
                data = os.read(fd, READ_CHUNK_BYTES)
            except OSError:  # BlockingIOError included: nothing more for now
                return
            if not data:
                return
            self._stderr_capture.add(data)

    def stderr_text(self) -> str:
        """Returns the captured stderr.

        Returns:
            The head and the tail of what the bot wrote to stderr, joined by
            ``"\\n[... N bytes dropped ...]\\n"`` when bytes were dropped, decoded as UTF-8
            with replacement characters.
        """
        self._drain_stderr_nowait()
        return self._stderr_capture.text()

    def stderr_tail(self, max_chars: int = 2000) -> str:
        """Returns the end of the captured stderr.

        Args:
            max_chars: The most characters to return.

        Returns:
            The last ``max_chars`` characters of `stderr_text`.
        """
        if max_chars <= 0:
            return ""
        return self.stderr_text()[-max_chars:]

    @property
    def stderr_bytes_received(self) -> int:
        """Total bytes the bot wrote to stderr that were read so far (kept or dropped)."""
        return self._stderr_capture.total

    # -- exit -------------------------------------------------------------------------------

    def exit_status(self) -> ExitStatus:
        """Returns the process's exit status without blocking (it may reap the process).

        Under bwrap, which reports a bot killed by signal N as exit code 128 + N, such codes
        are shown as that signal (a bot that really exits with 137 looks killed by SIGKILL).

        Returns:
            The status; ``running`` is true if the bot has not exited.
        """
        return ExitStatus.from_returncode(self._returncode(self._process.poll()))

    async def wait_exit(self) -> ExitStatus:
        """Waits until the bot's main process exits (it does not kill it).

        Returns:
            Its exit status.
        """
        return ExitStatus.from_returncode(self._returncode(await self._process.wait()))

    def _returncode(self, returncode: int | None) -> int | None:
        box = self.sandbox
        if (
            returncode is not None
            and box is not None
            and box.signal_in_exit_code
            and 128 < returncode <= 128 + 64
        ):
            return 128 - returncode
        return returncode

    # -- resources --------------------------------------------------------------------------

    @property
    def workdir(self) -> str | None:
        """The bot's own working directory under a sandbox (removed when it is closed)."""
        return None if self.sandbox is None else self.sandbox.workdir

    def resource_usage(self) -> ResourceUsage | None:
        """Returns what the bot used so far (final once it is closed), if sandboxed.

        Returns:
            CPU seconds, peak memory and limit counters where the sandbox can measure them,
            or ``None`` without a sandbox.
        """
        return None if self.sandbox is None else self.sandbox.usage()

    def resource_outcome(self) -> ResourceOutcome | None:
        """Tells whether a resource limit ended the bot, with the evidence.

        Ask it when the bot failed (it exited, crashed, or stopped answering): the referee
        then records ``memory_limit`` or ``cpu_limit`` instead of a plain crash or timeout.

        Returns:
            ``None`` when no limit was hit (or the bot is not sandboxed); otherwise the limit
            (`ResourceOutcome.status` is ``"memory_limit"`` or ``"cpu_limit"``), a sentence
            and the measurements.
        """
        if self.sandbox is None:
            return None
        return classify_outcome(self.sandbox.usage(), self.exit_status().signal)

    async def _watch_cpu(self, box: BotSandbox, limit: float) -> None:
        # RLIMIT_CPU caps each process; this caps the whole tree, as the cgroup measures it.
        every = box.plan.config.cpu_poll_s
        while self._process.poll() is None:
            await trio.sleep(every)
            used = box.cpu_seconds()
            if used is None:
                return
            if used >= limit and self._process.poll() is None:
                box.mark_cpu_limit()
                signal_group(self.pid, SIGKILL)
                box.kill_pass()
                return

    def close_input(self) -> None:
        """Closes the bot's stdin and nothing else, so that it reads end of input.

        The first step of `aclose` on its own: the bot keeps running, its stdout and stderr
        stay readable, and `aclose` still ends it later. A later `send_line` raises
        `BotGoneError`. Idempotent.
        """
        if self._stdin_fd < 0:
            return
        self._stdin_fd = -1
        self._stdin.close()

    async def aclose(self) -> None:
        """Ends the bot's whole process group and releases every descriptor.

        Closes stdin, sends SIGTERM to the group, waits up to ``kill_grace`` seconds for the
        main process, sends SIGKILL to the group, reaps the main process, reads what is left
        of stderr and closes the pipes. Under a sandbox it then kills whatever is left in the
        bot's cgroup (processes that left its group with ``setsid()``), records the final
        resource usage and removes the cgroup and the working directory. Idempotent, and
        shielded from cancellation (it takes at most ``kill_grace`` plus the time to reap a
        killed process). `open_bot_process` calls it on exit.
        """
        if self._closing:
            return
        self._closing = True
        try:
            with trio.CancelScope(shield=True):
                await self._terminate()
                if self.sandbox is not None:
                    await trio.to_thread.run_sync(self.sandbox.close)
        finally:
            self._close_fds()
            if self.sandbox is not None:
                self.sandbox.close()

    async def _terminate(self) -> None:
        process = self._process
        pgid = self.pid
        self._stdin_fd = -1
        self._stdin.close()
        if self.sandbox is not None and self._eof and process.poll() is None:
            # The bot is gone and its wrapper is tearing the sandbox down: let it exit and
            # report how the bot ended (a signal to the wrapper would hide that).
            with trio.move_on_after(min(self._kill_grace, _WRAPPER_EXIT_WAIT)):
                await process.wait()
        try:
            signal_group(pgid, SIGTERM)
            if self._kill_grace > 0 and process.poll() is None:
                with trio.move_on_after(self._kill_grace):
                    await process.wait()
        finally:
            # Even a second Ctrl-C during the grace period must not skip the kill.
            signal_group(pgid, SIGKILL)
        with trio.move_on_after(_REAP_TIMEOUT):
            await process.wait()
        if process.poll() is not None:
            _reap_group_orphans(pgid)
        box = self.sandbox
        if box is not None:
            # Kill passes until the cgroup is empty: each pass also catches what the last one
            # missed while it was forking. Without a cgroup, kill_pass is true at once.
            for _ in range(int(_SANDBOX_EMPTY_TIMEOUT / 0.001)):
                if box.kill_pass():
                    break
                await trio.sleep(0.001)

    def _close_fds(self) -> None:
        self._drain_stderr_nowait()
        self._stdin_fd = self._stdout_fd = self._stderr_fd = -1
        self._stdin.close()
        self._stdout.close()
        self._stderr.close()


@asynccontextmanager
async def open_bot_process(
    command: str | Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    max_line_bytes: int = 1 << 16,
    stderr_cap_bytes: int = 1 << 16,
    kill_grace: float = 0.2,
    max_stdout_bytes: int | None = None,
    sandbox: SandboxPlan | SandboxConfig | None = None,
) -> AsyncIterator[BotProcess]:
    """Starts a bot and ends its whole process group when the block exits.

    The bot starts in a new session with pipes for stdin, stdout and stderr; a task drains
    its stderr for as long as the block runs. On exit (normal, exception, cancellation or
    Ctrl-C) `BotProcess.aclose` runs shielded: SIGTERM to the group, up to ``kill_grace``
    seconds for the main process to exit, SIGKILL to the group, reap, close every pipe.
    The `BotProcess` stays readable afterwards (`BotProcess.exit_status`,
    `BotProcess.stderr_text`).

    Args:
        command: A shell-like string or an argv sequence (see `parse_command`).
        cwd: The directory to start the bot in.
        env: The bot's whole environment (default: ours).
        max_line_bytes: The longest stdout line accepted, without its newline.
        stderr_cap_bytes: How many bytes of stderr to keep (half head, half tail).
        kill_grace: Seconds between SIGTERM and SIGKILL on exit.
        max_stdout_bytes: The most bytes the bot may write to its stdout in all (the
            `OutputLimitError` cap), or ``None`` for no cap.
        sandbox: Contain the bot (see `arena.referee.sandbox`): a plan made once with
            `plan_sandbox` (best), or a config to plan from now (detection is cached), or
            ``None`` to run it uncontained, in ``cwd``, with ``env`` as given. Sandboxed, the
            bot starts in its own working directory with a scrubbed environment; relative
            paths in its command are taken relative to ``cwd``.

    Yields:
        The running bot.

    Raises:
        BotCommandError: If the command is invalid or the process cannot be spawned, or the
            bot's files cannot be read by the sandbox's user.
        SandboxError: If the sandbox cannot be set up (a forced mechanism is missing, or the
            cgroup or working directory cannot be created).
    """
    argv = parse_command(command, cwd=cwd, env=env)
    shown = _display(command)
    box: BotSandbox | None = None
    if sandbox is None:
        try:
            process = await trio.lowlevel.open_process(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=None if env is None else dict(env),
                start_new_session=True,
            )
        except OSError as exc:
            raise BotCommandError(f"bot command {shown!r}: cannot start: {_reason(exc)}") from exc
        bot = BotProcess(
            process,
            argv,
            shown,
            max_line_bytes=max_line_bytes,
            stderr_cap_bytes=stderr_cap_bytes,
            kill_grace=kill_grace,
            max_stdout_bytes=max_stdout_bytes,
        )
    else:
        plan = sandbox if isinstance(sandbox, SandboxPlan) else plan_sandbox(sandbox)
        try:
            box = plan.prepare(argv, cwd=cwd, env=env)
        except SandboxPathError as exc:
            raise BotCommandError(f"bot command {shown!r}: {exc}") from exc
        try:
            child, streams = await _start_sandboxed(box, shown)
        except BaseException:
            box.close()
            raise
        bot = BotProcess(
            child,
            box.argv,
            shown,
            max_line_bytes=max_line_bytes,
            stderr_cap_bytes=stderr_cap_bytes,
            kill_grace=kill_grace,
            max_stdout_bytes=max_stdout_bytes,
            sandbox=box,
            streams=streams,
        )
    # The body's exception is re-raised outside the nursery, so callers see it as itself and
    # not wrapped in an ExceptionGroup.
    body_error: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(bot._drain_stderr)
            if box is not None and box.cpu_limit_s is not None:
                nursery.start_soon(bot._watch_cpu, box, box.cpu_limit_s)
            try:
                yield bot
            except BaseException as exc:
                body_error = exc
            finally:
                await bot.aclose()
                nursery.cancel_scope.cancel()
    finally:
        await bot.aclose()
    if body_error is not None:
        raise body_error


_FIFO_OPEN_TIMEOUT = 10.0  # seconds for a sandbox to come up and open the bot's stdin
_FIFO_POLL = 0.0005  # seconds between attempts to open it


async def _open_fifo_writer(path: str, process: _Child) -> int:
    """Opens the write end of a bot's stdin FIFO once the bot has opened the read end.

    A non-blocking open for writing fails with ENXIO until there is a reader; the bot's
    sandbox opens it a few milliseconds after the spawn. If the wrapper exits first (it could
    not set up the sandbox), the result is the write end of a pipe whose read end is closed,
    so the bot looks like one whose stdin is closed (its stderr says why).

    Raises:
        BotCommandError: If the sandbox has not opened it after ``_FIFO_OPEN_TIMEOUT`` s.
    """
    deadline = trio.current_time() + _FIFO_OPEN_TIMEOUT
    while True:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        if process.poll() is not None:
            read_end, write_end = os.pipe2(os.O_CLOEXEC)
            os.close(read_end)
            return write_end
        if trio.current_time() > deadline:
            raise BotCommandError(
                f"the sandbox did not start the bot within {_FIFO_OPEN_TIMEOUT:g} s"
            )
        await trio.sleep(_FIFO_POLL)


async def _kill_and_reap(process: _Child) -> None:
    signal_group(process.pid, SIGKILL)
    with trio.move_on_after(_REAP_TIMEOUT):
        await process.wait()


async def _popen_in(
    box: BotSandbox, what: str, *, stdin: int, stdout: int, stderr: int
) -> subprocess.Popen[bytes]:
    """Starts ``box``'s command in its sandbox, in a new session, from the spawner threads.

    Raises:
        BotCommandError: when the program cannot be started (``what`` names the command).
        SandboxError: when the child could not enter the sandbox (its ``preexec_fn`` failed).
    """
    try:
        return await _spawner.popen(
            box.argv,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=box.cwd,
            env=box.env,
            start_new_session=True,
            preexec_fn=box.preexec_fn,
        )
    except OSError as exc:
        raise BotCommandError(f"{what}: cannot start: {_reason(exc)}") from exc
    except subprocess.SubprocessError as exc:
        raise SandboxError(f"{what}: cannot enter the sandbox: {exc}") from exc


def _reason(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    if exc.filename is not None:
        reason = f"{reason}: {exc.filename!r}"
    return reason


_Streams = tuple[trio.lowlevel.FdStream, trio.lowlevel.FdStream, trio.lowlevel.FdStream]


class _Child:
    """A process started by the spawner thread: ``pid``, ``poll`` and an async ``wait``.

    The same interface as the parts of `trio.Process` that `BotProcess` uses (trio's has no
    public constructor). ``wait`` sleeps on a pidfd, as trio's does on Linux.
    """

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        try:
            self._pidfd = os.pidfd_open(popen.pid)
        except (AttributeError, OSError):  # before Linux 5.3: poll instead
            self._pidfd = -1

    @property
    def returncode(self) -> int | None:
        """The return code once the process was reaped, else ``None``."""
        return self._popen.returncode

    def poll(self) -> int | None:
        """Reaps the process if it has exited; returns its return code or ``None``."""
        returncode = self._popen.poll()
        if returncode is not None:
            self._close_pidfd()
        return returncode

    async def wait(self) -> int:
        """Waits until the process exits and reaps it; returns its return code."""
        while (returncode := self.poll()) is None:
            pidfd = self._pidfd
            if pidfd < 0:
                await trio.sleep(0.005)
                continue
            # ClosedResourceError: another task reaped it and closed the pidfd.
            with contextlib.suppress(trio.ClosedResourceError):
                await _wait_readable(pidfd)
        return returncode

    def _close_pidfd(self) -> None:
        if self._pidfd >= 0:
            fd, self._pidfd = self._pidfd, -1
            trio.lowlevel.notify_closing(fd)
            os.close(fd)


class _Spawner:
    """A few threads, alive as long as the referee, that fork every sandboxed bot.

    bwrap's ``--die-with-parent`` and ``PR_SET_PDEATHSIG`` fire when the *thread* that forked
    a process ends, and trio forks from worker threads that it retires after 10 idle seconds:
    a bot spawned from one was SIGKILLed mid-match. Forked from these threads, a sandbox ends
    when the referee's process does, and not before. Several threads, so that many matches
    starting at once do not queue behind one fork at a time.
    """

    THREADS = 4

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def _run(self) -> None:
        while True:
            self._jobs.get()()

    async def popen(self, argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
        """Starts ``subprocess.Popen(argv, **options)`` in the spawner thread.

        Not cancellable while the fork runs (a process is never left behind).
        """
        with self._lock:
            while len(self._threads) < self.THREADS:
                name = f"arena-spawner-{len(self._threads)}"
                thread = threading.Thread(target=self._run, name=name, daemon=True)
                thread.start()
                self._threads.append(thread)
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()
        result: list[subprocess.Popen[bytes]] = []
        error: list[BaseException] = []

        def job() -> None:
            try:
                result.append(subprocess.Popen(argv, **options))
            except BaseException as exc:  # handed to the trio task, which re-raises it
                error.append(exc)
            token.run_sync_soon(done.set)

        self._jobs.put(job)
        with trio.CancelScope(shield=True):
            await done.wait()
        if error:
            raise error[0]
        return result[0]


_spawner = _Spawner()


async def _start_sandboxed(box: BotSandbox, shown: str) -> tuple[_Child, _Streams]:
    """Spawns a sandboxed bot; returns it and its stdin, stdout and stderr streams.

    Raises:
        BotCommandError: If the wrapper cannot be started.
        SandboxError: If the child could not enter the sandbox (its preexec_fn failed).
    """
    ours: list[int] = []  # our ends, closed here unless they become streams
    theirs: list[int] = []  # the child's ends, closed here once it has its copies
    try:
        err_read, err_write = os.pipe2(os.O_CLOEXEC)
        ours.append(err_read)
        theirs.append(err_write)
        stdin_arg: int = subprocess.DEVNULL
        stdout_arg: int = subprocess.DEVNULL
        if box.stdout_fifo is not None:
            # Opened before the spawn, so the bot's open of its end returns at once.
            flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
            ours.append(os.open(box.stdout_fifo, flags))
        else:
            in_read, in_write = os.pipe2(os.O_CLOEXEC)
            out_read, out_write = os.pipe2(os.O_CLOEXEC)
            ours += [in_write, out_read]
            theirs += [in_read, out_write]
            stdin_arg, stdout_arg = in_read, out_write
        try:
            popen = await _popen_in(
                box, f"bot command {shown!r}", stdin=stdin_arg, stdout=stdout_arg, stderr=err_write
            )
        finally:
            for fd in theirs:
                os.close(fd)
            theirs.clear()
        child = _Child(popen)
        if box.stdin_fifo is not None:
            try:
                ours.insert(1, await _open_fifo_writer(box.stdin_fifo, child))
            except BaseException:
                with trio.CancelScope(shield=True):
                    await _kill_and_reap(child)
                raise
        err_fd, in_fd, out_fd = ours
        # The streams own the descriptors from here on.
        streams = (
            trio.lowlevel.FdStream(in_fd),
            trio.lowlevel.FdStream(out_fd),
            trio.lowlevel.FdStream(err_fd),
        )
        ours.clear()
        return child, streams
    finally:
        for fd in ours + theirs:
            os.close(fd)


def run_probe(argv: Sequence[str]) -> tuple[int | None, str]:
    """Runs a short command of our own to see whether it works (sandbox detection).

    Synchronous, with no input and a time limit; not for bots (their output is unbounded
    here).

    Args:
        argv: The command.

    Returns:
        Its return code (``None`` if it could not start or timed out) and its output (stdout
        and stderr together, at most the last 2000 characters).
    """
    try:
        done = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=_PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, str(exc)
    return done.returncode, done.stdout.decode(errors="replace")[-2000:]


# -- one-off commands (bot builds) ----------------------------------------------------------------

#: After a one-off command ends (or is stopped), how long to wait for the rest of its output.
DRAIN_GRACE_S = 1.0


@dataclass(frozen=True, slots=True)
class CommandResult:
    """How a one-off command (such as a bot's build) ended.

    Attributes:
        status: its exit status.
        output: the end of its stdout and stderr together (at most ``output_cap`` bytes).
        output_bytes: how many bytes it wrote in all.
        timed_out: whether it was stopped for running out of time.
        limit: in a sandbox, the memory or CPU limit that ended it, with the evidence
            (``None`` when none did, or without a sandbox).
        problem: in a sandbox, why what it wrote in its folder could not be copied back
            after it succeeded (``None`` when it was, or without a sandbox).
    """

    status: ExitStatus
    output: str
    output_bytes: int
    timed_out: bool
    limit: ResourceOutcome | None = None
    problem: str | None = None


class _Tail:
    """Keeps the last ``cap`` bytes of a stream and counts all of them."""

    __slots__ = ("_cap", "_data", "total")

    def __init__(self, cap: int) -> None:
        self._cap = cap
        self._data = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        self._data += data
        # Trim in batches (at twice the cap) so a flood costs amortised O(1) per byte.
        if len(self._data) > 2 * self._cap:
            del self._data[: len(self._data) - self._cap]

    def text(self) -> str:
        return bytes(self._data[-self._cap :]).decode(errors="replace")


async def run_capped(
    command: str | Sequence[str],
    *,
    cwd: str | None = None,
    timeout_s: float,
    output_cap: int = 1 << 16,
    sandbox: SandboxPlan | None = None,
) -> CommandResult:
    """Runs a one-off command in its own process group, with no input, keeping the end of its
    output; at the end (or at the time limit) the whole group is killed, so nothing it started
    outlives it.

    Unlike ``trio.run_process(capture_stdout=True)``, the output kept is bounded.

    With ``sandbox``, the command is a bot's build and runs contained as the bots are (see
    `arena.referee.sandbox.SandboxPlan.prepare_build`): as the bots' user, with the plan's
    network, memory, process, file-size and open-file limits, CPU time bounded by
    ``timeout_s`` rather than by the match's limit (`SandboxPlan.for_build`), a scrubbed
    environment, and a cleanup that reaches every process it started. It works on a private
    copy of its folder ``cwd``, which is copied back only when it exits with code 0 in
    time: a build that fails or is stopped leaves its folder as it was.

    Args:
        command: A shell-like string or an argv sequence (see `parse_command`).
        cwd: The directory to run it in (required with ``sandbox``: the bot's folder).
        timeout_s: Seconds it may run before it is killed.
        output_cap: How many of the last bytes of its output to keep.
        sandbox: The plan of the bots' sandbox, or ``None`` to run the command uncontained.

    Raises:
        BotCommandError: when the command cannot be started (the message says why), or the
            sandbox's user cannot read the folder or a file the command needs.
        SandboxError: when the sandbox cannot be set up (its copy of the folder, its
            cgroup).
    """
    argv = parse_command(command, cwd=cwd)
    shown = _display(command)
    if sandbox is not None:
        if cwd is None:
            raise ValueError("a sandboxed command runs in its bot's folder: give cwd")
        return await _run_capped_sandboxed(argv, shown, cwd, timeout_s, output_cap, sandbox)
    tail = _Tail(output_cap)
    read_fd, write_fd = os.pipe()
    reader = trio.lowlevel.FdStream(read_fd)  # owns read_fd from here on
    try:
        stdin_fd = os.open(os.devnull, os.O_RDONLY)
        try:
            process = await trio.lowlevel.open_process(
                argv,
                stdin=stdin_fd,
                stdout=write_fd,
                stderr=write_fd,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise BotCommandError(
                f"command {shown!r}: cannot start: {exc.strerror or exc}"
            ) from exc
        finally:
            os.close(stdin_fd)
            os.close(write_fd)  # the command holds its own copy: EOF comes when it is done
        timed_out = await _wait_capped(process, tail, reader, timeout_s)
    finally:
        reader.close()
    return CommandResult(
        ExitStatus.from_returncode(process.returncode), tail.text(), tail.total, timed_out
    )


async def _run_capped_sandboxed(
    argv: list[str],
    shown: str,
    cwd: str,
    timeout_s: float,
    output_cap: int,
    sandbox: SandboxPlan,
) -> CommandResult:
    """`run_capped` with a sandbox: prepares the build's sandbox (in a thread: it copies the
    folder), runs the command from the spawner threads, copies the folder back on success."""
    plan = sandbox.for_build(timeout_s)
    prepare = functools.partial(plan.prepare_build, argv, folder=cwd)
    try:
        box = await trio.to_thread.run_sync(prepare)
    except SandboxPathError as exc:
        raise BotCommandError(f"command {shown!r}: {exc}") from exc
    try:
        tail = _Tail(output_cap)
        read_fd, write_fd = os.pipe2(os.O_CLOEXEC)
        reader = trio.lowlevel.FdStream(read_fd)  # owns read_fd from here on
        try:
            stdin_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            try:
                popen = await _popen_in(
                    box, f"command {shown!r}", stdin=stdin_fd, stdout=write_fd, stderr=write_fd
                )
            finally:
                os.close(stdin_fd)
                os.close(write_fd)  # the command holds its own copy: EOF comes when it is done
            child = _Child(popen)
            timed_out = await _wait_capped(child, tail, reader, timeout_s, box)
        finally:
            reader.close()
        returncode = child.returncode
        if returncode is not None and box.signal_in_exit_code and 128 < returncode <= 128 + 64:
            returncode = 128 - returncode  # bwrap reports a signal death as 128 + signal
        status = ExitStatus.from_returncode(returncode)
        limit = None if timed_out else classify_outcome(box.usage(), status.signal)
        problem = None
        if returncode == 0 and not timed_out:
            try:
                await trio.to_thread.run_sync(box.commit)
            except SandboxError as exc:
                problem = str(exc)
        return CommandResult(status, tail.text(), tail.total, timed_out, limit, problem)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(box.close)


async def _empty_sandbox(box: BotSandbox) -> None:
    """Kills what is left in a sandbox's cgroup until it is empty (at once without one)."""
    for _ in range(int(_SANDBOX_EMPTY_TIMEOUT / 0.001)):
        if box.kill_pass():
            return
        await trio.sleep(0.001)


async def _drain(stream: trio.lowlevel.FdStream, tail: _Tail, done: trio.Event) -> None:
    try:
        while data := await stream.receive_some(READ_CHUNK_BYTES):
            tail.add(data)
    except (trio.ClosedResourceError, trio.BrokenResourceError):
        pass
    finally:
        done.set()


async def _wait_capped(
    process: trio.Process | _Child,
    tail: _Tail,
    reader: trio.lowlevel.FdStream,
    timeout_s: float,
    box: BotSandbox | None = None,
) -> bool:
    """Waits for a one-off command, reading its output; kills its process group at the end,
    and under a sandbox every process left in its cgroup.

    Returns:
        Whether it ran out of time.
    """
    done = trio.Event()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_drain, reader, tail, done)
            with trio.move_on_after(timeout_s) as deadline:
                await process.wait()
            # Whatever it left running in its group goes too (it would hold the pipe).
            signal_group(process.pid, SIGKILL)
            if box is not None:
                await _empty_sandbox(box)
            with trio.move_on_after(DRAIN_GRACE_S):
                await process.wait()
                await done.wait()
            nursery.cancel_scope.cancel()
    finally:
        if process.returncode is None or not done.is_set():
            signal_group(process.pid, SIGKILL)
            with trio.CancelScope(shield=True), trio.move_on_after(_REAP_TIMEOUT):
                await process.wait()
                if box is not None:
                    await _empty_sandbox(box)
    return deadline.cancelled_caught
