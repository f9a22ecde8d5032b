"""How a seat's bot finished, and in which phase of the match it failed: the vocabulary of the
failure records (`arena.replay.Failure`), the failure policies (`arena.policy`) and every view
of them.

Imports nothing of ours, so the policies (which the replay records) can use it too.
"""

from __future__ import annotations

import enum


class Status(enum.Enum):
    """How a seat's bot finished the match (the CLI's and the replay's ``status``)."""

    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"
    BAD_MESSAGE = "bad_message"
    ILLEGAL_MOVE = "illegal_move"
    LINE_TOO_LONG = "line_too_long"
    MEMORY_LIMIT = "memory_limit"
    CPU_LIMIT = "cpu_limit"
    OUTPUT_LIMIT = "output_limit"


class Phase(enum.StrEnum):
    """When a bot failed (a ``str`` enum: the replay's JSON is the value, as before)."""

    STARTUP = "startup"  #: before its first ``ready``
    MOVE = "move"  #: answering a request
    NOTIFY = "notify"  #: while being sent ``hand_start`` or ``hand_end``
    RESTART = "restart"  #: the handshake of a bot restarted after a crash (policy lenient)
