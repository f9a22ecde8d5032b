"""The referee's timekeeping tasks: the watchdog that cancels a match loop whose move request
is out of time, and the nursery that hosts such service tasks.

Used by `arena.referee.match`; kept apart because neither knows anything of bots or rules.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol

import trio


class Watched(Protocol):
    """What the watchdog needs of a request in flight: its deadline (trio's clock)."""

    @property
    def deadline(self) -> float: ...


class Watchdog:
    """Cancels the match loop's cancel scope when the move request in flight is out of time.

    One task per match (`run`) sleeps until the deadline of a request it was shown. A request
    only writes down what it waits for (`watch`, cleared by setting ``pending`` to ``None``
    when the reply is in); the task's wake-up is moved, a deadline change in trio's heap,
    only when the new request's deadline comes before it (a seat with less bank left, or the
    first request after the task found nothing to wait for). Each seat's deadlines only grow,
    so the task wakes about once per move limit, finds the later request in flight and sleeps
    on to that one's deadline. Setting the scope's own deadline per request and resetting it
    after the reply cost the referee ~3 µs of CPU per move more.
    """

    __slots__ = ("_sleep", "_wake", "fired", "pending", "scope")

    def __init__(self) -> None:
        #: The match loop's scope (a new one each time the watchdog has fired).
        self.scope = trio.CancelScope()
        #: Whether ``scope`` was cancelled (a request's deadline passed).
        self.fired = False
        #: The request waited for, or ``None`` (between requests, the watchdog never fires).
        self.pending: Watched | None = None
        self._wake = math.inf
        self._sleep = trio.CancelScope()

    def renew(self) -> trio.CancelScope:
        """A fresh ``scope`` for the match loop, once the fired one has been left."""
        self.fired = False
        self.scope = trio.CancelScope()
        return self.scope

    def watch(self, pending: Watched) -> None:
        """Watch ``pending`` until ``pending`` is set to ``None`` (or its deadline passes)."""
        self.pending = pending
        if pending.deadline < self._wake:
            self._wake = pending.deadline
            self._sleep.deadline = pending.deadline

    async def run(self) -> None:
        """Sleep until the watched request's deadline; cancel ``scope`` if it is still pending."""
        while True:
            with trio.CancelScope(deadline=self._wake) as self._sleep:
                await trio.sleep_forever()
            pending = self.pending
            if pending is not None and trio.current_time() >= pending.deadline:
                self.pending = pending = None
                self.fired = True
                self.scope.cancel()
            self._wake = math.inf if pending is None else pending.deadline


@asynccontextmanager
async def service_nursery() -> AsyncIterator[trio.Nursery]:
    """A nursery for tasks that serve the ``async with`` body (the watchdog, restarted bots'
    hosts): they are cancelled when the body ends, and the body's exception is re-raised as
    itself, not wrapped in an ExceptionGroup."""
    body_error: BaseException | None = None
    async with trio.open_nursery() as nursery:
        try:
            yield nursery
        except BaseException as exc:
            body_error = exc
        finally:
            nursery.cancel_scope.cancel()
    if body_error is not None:
        raise body_error
