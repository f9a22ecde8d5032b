"""SIGTERM and SIGHUP stop the arena exactly as Ctrl-C (SIGINT) does.

Every command that runs bots calls :func:`run` instead of ``trio.run``. Inside it, trio's signal
receiver turns SIGTERM or SIGHUP into the cancellation of the whole run: every match is
cancelled, and the referee stops its bots on cancellation as it does on a KeyboardInterrupt
(each bot's process group is ended, shielded from the cancellation). Then KeyboardInterrupt is
raised from :func:`run`, so the command's own Ctrl-C path runs: its message, its ``Resume
with: ...`` line. Outside :func:`run` (parsing flags, writing files) the handler installed by
:func:`install` raises KeyboardInterrupt at once, as Python does for SIGINT.

The command then exits with 128 + the signal's number (:func:`exit_code`): 130 for SIGINT, 143
for SIGTERM, 129 for SIGHUP, the shells' convention. A signal ignored when the arena starts
(``nohup`` ignores SIGHUP) stays ignored. Once a stop signal has been taken, more of them are
ignored: the clean-up is under way, and a second SIGTERM must not cut it short and leave bots
behind.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress
from types import FrameType
from typing import Any, TypeVar

import trio

T = TypeVar("T")

#: The signals that stop a command as Ctrl-C does.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

_installed: tuple[int, ...] = ()
_received: int | None = None


def install() -> None:
    """Make SIGTERM and SIGHUP stop this process as SIGINT does (once, at start-up)."""
    global _installed
    mine = []
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) == signal.SIG_IGN:
            continue  # ignored by whoever started us (nohup): keep it so
        signal.signal(signum, _on_signal)
        mine.append(signum)
    _installed = tuple(mine)


def received() -> int | None:
    """The stop signal taken (SIGTERM or SIGHUP), or ``None``."""
    return _received


def exit_code() -> int:
    """The exit code of a stopped command: 128 + the signal (SIGINT's 130 for a Ctrl-C)."""
    return 128 + (_received or signal.SIGINT)


def mute_output() -> None:
    """Point stdout and stderr at /dev/null: once stopped, a terminal that hung up (SIGHUP)
    cannot take the last messages, and the interpreter's final flush must not fail on it."""
    null = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        # A stream without a descriptor (replaced, or closed) has nothing to point elsewhere.
        with suppress(OSError, ValueError):
            os.dup2(null, stream.fileno())


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _received
    if _received is not None:
        return  # already stopping
    _received = signum
    if trio.lowlevel.in_trio_run():
        # Only in the moments before `run`'s receiver is open or after it closed (trio's own
        # handler takes the signal in between): `run` stops as soon as it can.
        return
    raise KeyboardInterrupt


def run(async_fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(async_fn, *args)``, cancelled by SIGTERM or SIGHUP, which then raises
    KeyboardInterrupt (as SIGINT does in ``trio.run``)."""
    result: T = trio.run(_stoppable, async_fn, args)
    if _received is not None:
        raise KeyboardInterrupt
    return result


async def _stoppable(async_fn: Callable[..., Awaitable[T]], args: tuple[Any, ...]) -> T:
    if not _installed:
        return await async_fn(*args)
    with trio.open_signal_receiver(*_installed) as signals:
        if _received is not None:
            raise KeyboardInterrupt
        stopped = False
        body_error: BaseException | None = None
        async with trio.open_nursery() as nursery:

            async def cancel_on_signal(signals: AsyncIterator[int]) -> None:
                nonlocal stopped
                global _received
                async for signum in signals:
                    if _received is None:
                        _received = signum
                    stopped = True
                    nursery.cancel_scope.cancel()

            nursery.start_soon(cancel_on_signal, signals)
            try:
                result = await async_fn(*args)
            except BaseException as error:  # re-raised as itself below, not in a group
                body_error = error
            finally:
                nursery.cancel_scope.cancel()
        # The receiver stays open until every task has ended: a second signal during the
        # clean-up is taken (and ignored) here instead of killing the process half-way.
    if stopped or _received is not None:
        raise KeyboardInterrupt
    if body_error is not None:
        raise body_error
    return result


__all__ = ["STOP_SIGNALS", "exit_code", "install", "mute_output", "received", "run"]
