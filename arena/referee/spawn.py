"""Starting processes: the only module of the arena that does (`subprocess`, ``fork``,
``exec`` and trio's ``open_process`` appear nowhere else; tests/test_architecture.py checks it).

Everything is started in a new session, so its process ID is also its process-group ID and
`signal_group` reaches every process it forked that did not call ``setsid()`` itself:

- `open_piped`: a bot without a sandbox, with pipes for stdin, stdout and stderr;
- `start_contained`: a bot in its sandbox (`arena.referee.sandbox.BotSandbox`), whose stdin
  and stdout are FIFOs that the sandbox opens (or pipes), forked from the spawner threads;
- `open_capped` and `popen_contained`: a one-off command (a bot's build,
  `arena.referee.capped`), without and within a sandbox;
- `run_probe`: a short command of our own (the sandbox's detection probes).

Sandboxed processes are forked from a few threads that live as long as the referee (`_Spawner`):
bwrap's ``--die-with-parent`` and ``PR_SET_PDEATHSIG`` follow the forking thread, and fire
when the referee dies and not before. Nothing here knows what a sandbox is made of: it starts
what `Contained` describes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from signal import SIGKILL
from typing import Any, Protocol

import trio

from arena.referee.commands import BotCommandError, os_reason

__all__ = [
    "REAP_TIMEOUT_S",
    "Child",
    "ChildSetupError",
    "Contained",
    "Streams",
    "open_capped",
    "open_piped",
    "popen_contained",
    "reap_group_orphans",
    "run_probe",
    "signal_group",
    "start_contained",
]

REAP_TIMEOUT_S = 5.0
"""Seconds to wait for a SIGKILLed process to be reaped before giving up."""
_PROBE_TIMEOUT = 5.0  # seconds a sandbox detection probe may take
_FIFO_OPEN_TIMEOUT = 10.0  # seconds for a sandbox to come up and open the bot's stdin
_FIFO_POLL = 0.0005  # seconds between attempts to open it

#: A bot's stdin, stdout and stderr.
Streams = tuple[trio.lowlevel.FdStream, trio.lowlevel.FdStream, trio.lowlevel.FdStream]


class ChildSetupError(Exception):
    """A child could not set itself up between fork and exec: its ``preexec_fn`` failed (it
    could not enter its sandbox). The message names the command."""


class Contained(Protocol):
    """What starting a process in a sandbox takes (`arena.referee.sandbox.BotSandbox` has it)."""

    @property
    def argv(self) -> list[str]:
        """The command to start (the wrapper, then the bot's command)."""

    @property
    def cwd(self) -> str:
        """The directory to start it in."""

    @property
    def env(self) -> dict[str, str]:
        """Its whole environment."""

    @property
    def stdin_fifo(self) -> str | None:
        """The FIFO that becomes its stdin, or None for a pipe."""

    @property
    def stdout_fifo(self) -> str | None:
        """The FIFO that becomes its stdout, or None for a pipe."""

    def preexec_fn(self) -> None:
        """Runs in the child between fork and exec."""


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


def reap_group_orphans(pgid: int) -> None:
    """Reaps the exited processes of group ``pgid`` that were re-parented to us."""
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


class Child:
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
                await trio.lowlevel.wait_readable(pidfd)
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


async def open_piped(
    argv: list[str], *, cwd: str | None, env: Mapping[str, str] | None
) -> trio.Process:
    """Starts an uncontained bot in a new session, with pipes for stdin, stdout and stderr.

    Raises:
        OSError: If it cannot be started.
    """
    return await trio.lowlevel.open_process(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=None if env is None else dict(env),
        start_new_session=True,
    )


async def open_capped(argv: list[str], *, stdin: int, output: int, cwd: str | None) -> trio.Process:
    """Starts an uncontained one-off command in a new session, its stdout and stderr both on
    ``output``.

    Raises:
        OSError: If it cannot be started.
    """
    return await trio.lowlevel.open_process(
        argv,
        stdin=stdin,
        stdout=output,
        stderr=output,
        cwd=cwd,
        start_new_session=True,
    )


async def popen_contained(
    box: Contained, what: str, *, stdin: int, stdout: int, stderr: int
) -> Child:
    """Starts ``box``'s command in its sandbox, in a new session, from the spawner threads.

    Raises:
        BotCommandError: when the program cannot be started (``what`` names the command).
        ChildSetupError: when the child could not enter the sandbox (its ``preexec_fn`` failed).
    """
    try:
        popen = await _spawner.popen(
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
        raise BotCommandError(f"{what}: cannot start: {os_reason(exc)}") from exc
    except subprocess.SubprocessError as exc:
        raise ChildSetupError(f"{what}: cannot enter the sandbox: {exc}") from exc
    return Child(popen)


async def start_contained(box: Contained, what: str) -> tuple[Child, Streams]:
    """Spawns a contained bot from the spawner threads; returns it and its stdin, stdout and
    stderr streams (its stdin and stdout are ``box``'s FIFOs, when it has them, else pipes).

    Raises:
        BotCommandError: If the wrapper cannot be started (``what`` names the command).
        ChildSetupError: If the child could not enter its sandbox (its preexec_fn failed).
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
            child = await popen_contained(
                box, what, stdin=stdin_arg, stdout=stdout_arg, stderr=err_write
            )
        finally:
            for fd in theirs:
                os.close(fd)
            theirs.clear()
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


async def _open_fifo_writer(path: str, process: Child) -> int:
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


async def _kill_and_reap(process: Child) -> None:
    signal_group(process.pid, SIGKILL)
    with trio.move_on_after(REAP_TIMEOUT_S):
        await process.wait()


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
