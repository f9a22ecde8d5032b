"""The interface the match runner talks to a bot through, and an in-memory test double.

:class:`~arena.referee.process.BotProcess` implements :class:`BotChannel` over pipes;
:class:`ScriptedBot` implements it in memory, so the match logic (timeouts included, under
trio's ``MockClock``) can be tested without processes (python-chess ships ``MockTransport`` for
the same reason).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import NamedTuple, Protocol

import trio

from arena.referee.framing import LineTooLongError
from arena.referee.process import BotEOFError, BotGoneError, ExitStatus
from arena.referee.sandbox import ResourceOutcome


class BotChannel(Protocol):
    """A line-oriented connection to one bot."""

    async def send_line(self, line: bytes) -> None: ...

    def send_line_nowait(self, line: bytes) -> bool:
        """Writes the line only if it can go whole at once, without waiting, and says whether
        it did; when it did not, no part of it went (send it with `send_line`)."""
        ...

    async def receive_line(self) -> bytes: ...

    def poll_line_nowait(self) -> bytes | None: ...

    def stderr_text(self) -> str: ...

    def stderr_tail(self, max_chars: int = 2000) -> str: ...

    def exit_status(self) -> ExitStatus: ...

    async def wait_exit(self) -> ExitStatus: ...

    def resource_outcome(self) -> ResourceOutcome | None:
        """Whether a sandbox resource limit ended the bot (``None``: none did, or no sandbox)."""
        ...

    def close_input(self) -> None:
        """Closes the bot's stdin only (it reads end of input); idempotent."""
        ...

    async def aclose(self) -> None: ...


class MemoryChannel:
    """The parts of a :class:`BotChannel` that every in-memory double shares: no stderr, no
    sandbox, closing its input does nothing, and ``aclose`` ends a running bot as a kill would
    (exit ``-9``, signal 9). A double sets ``_exit`` when its bot ends by itself and writes the
    line methods (``send_line``, ``send_line_nowait``, ``receive_line``, ``poll_line_nowait``)
    and ``wait_exit``."""

    _exit: ExitStatus = ExitStatus(None, None)

    def stderr_text(self) -> str:
        return ""

    def stderr_tail(self, max_chars: int = 2000) -> str:
        return ""

    def exit_status(self) -> ExitStatus:
        return self._exit

    def resource_outcome(self) -> ResourceOutcome | None:
        return None

    def close_input(self) -> None:
        pass

    async def aclose(self) -> None:
        if self._exit.running:
            self._exit = ExitStatus(-9, 9)


class BotSpec(NamedTuple):
    """How to start one bot: its command line, the folder to start it in, and the arena's name
    for it (its ``bot.toml`` name or its command's file; recorded as the seat's
    ``arena_name``, beside the name it says in ``ready``)."""

    command: str
    cwd: str | None = None
    name: str | None = None


Connector = Callable[[BotSpec], AbstractAsyncContextManager[BotChannel]]

#: What a scripted bot does with each line it receives: the lines to answer (possibly none),
#: or a float to sleep that many seconds first, or an exception class to "crash".
Reply = list[bytes]
Script = Callable[[bytes], Reply | tuple[float, Reply] | None]


class ScriptedBot(MemoryChannel):
    """A bot in memory: ``script(line)`` returns the reply lines (and optionally a delay).

    ``script`` returning ``None`` closes the bot's output, as an exiting process would.
    """

    def __init__(self, script: Script, *, max_line_bytes: int = 1 << 16) -> None:
        self._script = script
        self._max = max_line_bytes
        self._send, self._receive = trio.open_memory_channel[bytes | None](1000)
        self._exit = ExitStatus(None, None)
        self._exited = trio.Event()
        self._closed = False
        self.received: list[bytes] = []

    def __repr__(self) -> str:
        return f"<ScriptedBot {'closed' if self._closed else 'running'}>"

    async def send_line(self, line: bytes) -> None:
        if self._closed:
            raise BotGoneError("the scripted bot has exited")
        self.received.append(line)
        reply = self._script(line)
        if reply is None:
            self._closed = True
            self._exit = ExitStatus(0, None)
            self._exited.set()
            await self._send.send(None)
            return
        delay, lines = reply if isinstance(reply, tuple) else (0.0, reply)
        if delay:
            trio.lowlevel.spawn_system_task(self._later, delay, lines)
        else:
            for out in lines:
                self._send.send_nowait(out)

    def send_line_nowait(self, line: bytes) -> bool:
        """Never sends: every line to a scripted bot goes through `send_line`."""
        return False

    async def _later(self, delay: float, lines: Reply) -> None:
        await trio.sleep(delay)
        for out in lines:
            self._send.send_nowait(out)

    async def receive_line(self) -> bytes:
        line = await self._receive.receive()
        if line is None:
            raise BotEOFError("the scripted bot closed its output")
        if len(line) > self._max:
            raise LineTooLongError(line, self._max)
        return line

    def poll_line_nowait(self) -> bytes | None:
        try:
            line = self._receive.receive_nowait()
        except trio.WouldBlock:
            return None
        if line is None:
            raise BotEOFError("the scripted bot closed its output")
        return line

    async def wait_exit(self) -> ExitStatus:
        await self._exited.wait()
        return self._exit

    def close_input(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self._closed = True
        if self._exit.running:
            self._exit = ExitStatus(-9, 9)
            self._exited.set()


def scripted_connector(scripts: dict[str, Script]) -> Connector:
    """A connector that serves ``ScriptedBot``s by command name (for tests)."""

    @asynccontextmanager
    async def connect(spec: BotSpec) -> AsyncIterator[BotChannel]:
        bot = ScriptedBot(scripts[spec.command])
        try:
            yield bot
        finally:
            await bot.aclose()

    return connect
