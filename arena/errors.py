"""The arena's exception families: errors a person fixes, and a bot's broken line of talk.

Two roots, both imported by whoever raises or catches them (the referee's process layer, its
line buffer, the checker, the CLI):

- :class:`ArenaError`: a problem the person running the arena can fix (a file, a flag, a bot
  command, a database). Every subclass's message is one line naming the file or flag and the
  problem; the CLI prints it and exits with status 2.
- :class:`BotIOError`: talking to a running bot failed (it closed a pipe, wrote a line too
  long, wrote too much in all). It is not the arena user's mistake but the bot's, and it never
  reaches the user as a traceback: the referee records it as a failure of the seat, the checker
  as a failed step.

A bot's *reply* that arrives but is wrong (not JSON, wrong id, illegal move) is neither: it is a
value, a :class:`arena.judge.Rejection`, judged by :mod:`arena.judge`.

This module imports nothing of ours, so every layer may use it (docs/architecture.md).
"""

from __future__ import annotations

__all__ = [
    "ArenaError",
    "BotCommandError",
    "BotEOFError",
    "BotGoneError",
    "BotIOError",
    "LineTooLongError",
    "OutputLimitError",
]


class ArenaError(Exception):
    """A problem the arena's user can fix; its message is one line (the CLI exits with 2)."""


class BotCommandError(ArenaError):
    """A bot command cannot be started: empty, unparsable, not found or not executable."""


class BotIOError(Exception):
    """Talking to a running bot failed; the subclasses say how."""


class BotEOFError(BotIOError):
    """The bot closed its stdout (it exited or closed the pipe) while a line was awaited.

    Attributes:
        unterminated: Bytes the bot wrote after its last complete line, without a newline
            (empty when there were none). Kept as evidence; they are never returned as a line.
    """

    def __init__(self, message: str, unterminated: bytes = b"") -> None:
        super().__init__(message)
        self.unterminated = unterminated


class BotGoneError(BotIOError):
    """Writing to the bot failed: its stdin is closed (it exited or closed the pipe)."""


class OutputLimitError(BotIOError):
    """The bot wrote more to its stdout in all than ``max_stdout_bytes`` allows.

    Raised by `BotProcess.receive_line` and `BotProcess.poll_line_nowait` as soon as a read
    takes the total over the cap, and by every later read.

    Attributes:
        limit: The cap, in bytes.
        received: How many bytes had been read when it was passed.
    """

    def __init__(self, limit: int, received: int) -> None:
        super().__init__(f"the bot wrote more than {limit} bytes to its stdout ({received} read)")
        self.limit = limit
        self.received = received

    def __reduce__(self) -> tuple[type[OutputLimitError], tuple[int, int]]:
        return (type(self), (self.limit, self.received))


class LineTooLongError(BotIOError):
    """A line (complete or still partial) is longer than the line buffer's limit
    (`arena.referee.framing.LineBuffer`).

    Attributes:
        prefix: The first bytes (at most ``framing.PREFIX_BYTES``) of the offending line.
        limit: The limit that was exceeded, in bytes, not counting the line terminator.
    """

    def __init__(self, prefix: bytes, limit: int) -> None:
        self.prefix = prefix
        self.limit = limit
        super().__init__(f"line longer than {limit} bytes (starts with {prefix[:60]!r})")

    def __reduce__(self) -> tuple[type[LineTooLongError], tuple[bytes, int]]:
        return (type(self), (self.prefix, self.limit))
