"""Failure policies: what the referee does when a bot fails during a match (pure).

Three named presets (docs/failure-policies.md):

- ``strict``: any failure forfeits the match (the default; what contests use).
- ``classroom``: the same, and the failure is explained as loudly as possible to the bot's
  author (what went wrong, the last request, the reply, the stderr tail, the command that
  plays the same match again).
- ``lenient``: a timeout or a bad reply during a move (a bad message or an illegal move) is a
  *strike*: the referee plays a random legal move for the bot, chosen from the
  match seed and the request id, and the match goes on; the bot's ``strikes``-th strike
  forfeits. A bot that crashes during the match is restarted ``restarts`` times (once by
  default) and picks the game up from the next request.

Failures at start-up (no ``ready``), failures to take a notification in time, a line too long
(the rest of the line is still in the pipe: the stream cannot be resynchronised), and the
match-wide caps (``cpu_limit``, ``output_limit``) forfeit under every policy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal, TypeVar

import msgspec

from arena.games.api import derive_seed
from arena.status import Phase, Status

PolicyName = Literal["strict", "classroom", "lenient"]
POLICY_NAMES: tuple[PolicyName, ...] = ("strict", "classroom", "lenient")

#: Statuses that count a strike under ``lenient`` when they happen while answering a request.
STRIKE_STATUSES = frozenset({Status.TIMEOUT, Status.BAD_MESSAGE, Status.ILLEGAL_MOVE})
#: Statuses after which ``lenient`` restarts the bot (a memory limit is a crash it caused).
RESTART_STATUSES = frozenset({Status.CRASH, Status.MEMORY_LIMIT})

DEFAULT_STRIKES = 3
DEFAULT_RESTARTS = 1


class FailurePolicy(msgspec.Struct, frozen=True, omit_defaults=True):
    """A failure policy, as chosen on the command line and recorded in the replay.

    Attributes:
        name: ``strict``, ``classroom`` or ``lenient``.
        strikes: under ``lenient``, the strike that forfeits (3: two faults are played for
            by a random legal move, the third forfeits); 0 for the other policies.
        restarts: under ``lenient``, how many times a crashed bot is restarted; 0 otherwise.
    """

    name: PolicyName = "strict"
    strikes: int = 0
    restarts: int = 0

    @property
    def loud(self) -> bool:
        """Whether failures are explained at length to the bot's author (``classroom``)."""
        return self.name == "classroom"

    def strikes_for(self, status: Status, phase: Phase) -> bool:
        """Whether a failure of this kind, in this phase, is a strike rather than a forfeit."""
        return self.strikes > 0 and phase is Phase.MOVE and status in STRIKE_STATUSES

    def restarts_for(self, status: Status, phase: Phase) -> bool:
        """Whether a failure of this kind, in this phase, restarts the bot (when restarts are
        left) rather than forfeiting."""
        return self.restarts > 0 and phase is not Phase.STARTUP and status in RESTART_STATUSES

    def describe(self) -> str:
        """``lenient (3 strikes, 1 restart)``, ``strict``: for people."""
        if self.name != "lenient":
            return self.name
        restarts = "restart" if self.restarts == 1 else "restarts"
        return f"lenient ({self.strikes} strikes, {self.restarts} {restarts})"


def make_policy(
    name: str, *, strikes: int | None = None, restarts: int | None = None
) -> FailurePolicy:
    """The named preset, with ``lenient``'s numbers overridden when given.

    Raises:
        ValueError: for an unknown name, numbers given to a policy that has none, or a
            strike count below 1 or a restart count below 0.
    """
    if name not in POLICY_NAMES:
        raise ValueError(f"unknown failure policy {name!r}; policies: {', '.join(POLICY_NAMES)}")
    if name != "lenient":
        if strikes is not None or restarts is not None:
            raise ValueError(f"strikes and restarts apply to the lenient policy, not {name!r}")
        return FailurePolicy(name)
    strikes = DEFAULT_STRIKES if strikes is None else strikes
    restarts = DEFAULT_RESTARTS if restarts is None else restarts
    if strikes < 1:
        raise ValueError(f"strikes must be at least 1 (the strike that forfeits), not {strikes}")
    if restarts < 0:
        raise ValueError(f"restarts must not be negative, not {restarts}")
    return FailurePolicy("lenient", strikes=strikes, restarts=restarts)


STRICT = FailurePolicy()

_T = TypeVar("_T")


def substitute_move(seed: int, request_id: int, legal: Sequence[_T]) -> _T:
    """The legal move the referee plays for a bot struck on request ``request_id``.

    Uniform over the legal moves in the order the engine lists them, from a generator seeded by
    the match seed and the request id: the same match plays the same substitute on any
    machine, and ``arena verify`` checks it.
    """
    if not legal:
        raise ValueError("no legal move to substitute")
    return random.Random(derive_seed(seed, "substitute", request_id)).choice(legal)
