"""One-off commands (a bot's build): `run_capped` runs one with no input, keeps the end of its
output and, at its end or at its time limit, kills its whole process group (and, in a sandbox,
everything left in its cgroup), so nothing it started outlives it."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from signal import SIGKILL

import trio

from arena.referee.commands import BotCommandError, display, parse_command
from arena.referee.process import READ_CHUNK_BYTES, ExitStatus, empty_sandbox
from arena.referee.sandbox import (
    BotSandbox,
    ResourceOutcome,
    SandboxError,
    SandboxPathError,
    SandboxPlan,
    classify_outcome,
)
from arena.referee.spawn import (
    REAP_TIMEOUT_S,
    Child,
    ChildSetupError,
    open_capped,
    popen_contained,
    signal_group,
)

__all__ = ["DRAIN_GRACE_S", "CommandResult", "run_capped"]

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
        command: A shell-like string or an argv sequence (see
            `arena.referee.commands.parse_command`).
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
    shown = display(command)
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
            process = await open_capped(argv, stdin=stdin_fd, output=write_fd, cwd=cwd)
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
                child = await popen_contained(
                    box, f"command {shown!r}", stdin=stdin_fd, stdout=write_fd, stderr=write_fd
                )
            except ChildSetupError as exc:
                raise SandboxError(str(exc)) from exc.__cause__
            finally:
                os.close(stdin_fd)
                os.close(write_fd)  # the command holds its own copy: EOF comes when it is done
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


async def _drain(stream: trio.lowlevel.FdStream, tail: _Tail, done: trio.Event) -> None:
    try:
        while data := await stream.receive_some(READ_CHUNK_BYTES):
            tail.add(data)
    except (trio.ClosedResourceError, trio.BrokenResourceError):
        pass
    finally:
        done.set()


async def _wait_capped(
    process: trio.Process | Child,
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
                await empty_sandbox(box)
            with trio.move_on_after(DRAIN_GRACE_S):
                await process.wait()
                await done.wait()
            nursery.cancel_scope.cancel()
    finally:
        if process.returncode is None or not done.is_set():
            signal_group(process.pid, SIGKILL)
            with trio.CancelScope(shield=True), trio.move_on_after(REAP_TIMEOUT_S):
                await process.wait()
                if box is not None:
                    await empty_sandbox(box)
    return deadline.cancelled_caught
