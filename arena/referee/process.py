"""Bot processes: raw line I/O, stderr capture and whole-group termination (`BotProcess`).

`open_bot_process` starts a bot through `arena.referee.spawn` (the one module that starts
processes) in its own session, so its process ID is also its process-group ID and one
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
CPU limit ended it. Commands are parsed by `arena.referee.commands`; one-off commands (bot
builds) run with `arena.referee.capped.run_capped`.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from signal import SIGKILL, SIGTERM, Signals

import trio

from arena.errors import BotEOFError, BotGoneError, OutputLimitError
from arena.referee.commands import BotCommandError, display, os_reason, parse_command
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
from arena.referee.spawn import REAP_TIMEOUT_S as _REAP_TIMEOUT
from arena.referee.spawn import (
    Child,
    ChildSetupError,
    Streams,
    open_piped,
    reap_group_orphans,
    signal_group,
    start_contained,
)

__all__ = [
    "FAIR_SLICE_S",
    "READ_CHUNK_BYTES",
    "BotEOFError",
    "BotGoneError",
    "BotProcess",
    "ExitStatus",
    "LineTooLongError",
    "OutputLimitError",
    "empty_sandbox",
    "open_bot_process",
]

READ_CHUNK_BYTES = 65536
"""How many bytes one read from a bot's stdout or stderr asks for (the Linux pipe size)."""

_STDERR_SYNC_READS = 8  # reads per synchronous stderr drain, so a flooding bot cannot pin us
_SANDBOX_EMPTY_TIMEOUT = 2.0  # seconds to keep killing what is left in a bot's cgroup
_WRAPPER_EXIT_WAIT = 0.1  # seconds a sandbox wrapper gets to exit after the bot's stdout closed
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
        process: trio.Process | Child,
        argv: list[str],
        command: str,
        *,
        max_line_bytes: int,
        stderr_cap_bytes: int,
        kill_grace: float,
        max_stdout_bytes: int | None = None,
        sandbox: BotSandbox | None = None,
        streams: Streams | None = None,
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
            reap_group_orphans(pgid)
        box = self.sandbox
        if box is not None:
            await empty_sandbox(box)

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
    shown = display(command)
    box: BotSandbox | None = None
    if sandbox is None:
        try:
            process = await open_piped(argv, cwd=cwd, env=env)
        except OSError as exc:
            raise BotCommandError(f"bot command {shown!r}: cannot start: {os_reason(exc)}") from exc
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
            child, streams = await start_contained(box, f"bot command {shown!r}")
        except ChildSetupError as exc:
            box.close()
            raise SandboxError(str(exc)) from exc.__cause__
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


async def empty_sandbox(box: BotSandbox) -> None:
    """Kills what is left in a sandbox's cgroup until it is empty (at once without one)."""
    # Kill passes until the cgroup is empty: each pass also catches what the last one missed
    # while it was forking. Without a cgroup, kill_pass is true at once.
    for _ in range(int(_SANDBOX_EMPTY_TIMEOUT / 0.001)):
        if box.kill_pass():
            return
        await trio.sleep(0.001)
