"""Group work that arrives while the previous batch is being done: one batch at a time, in
order of arrival (the results' group commit, the events file's writes).

A batch is whatever arrived while the previous one was being handled, so a slow step (a
``synchronous=FULL`` commit waits for the disk) is paid once for many items when they come
fast, and at once for a lone item when they come slowly: nothing waits for a timer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import trio

T = TypeVar("T")

#: Items waiting at most before :meth:`Batcher.put` waits for room (backpressure).
MAX_WAITING = 10_000


class Batcher(Generic[T]):
    """Hands the items put in to ``handle`` in batches, from the task running :meth:`run`.

    ``handle`` raising stops :meth:`run` with that error (the batch and the items after it are
    not handled), which ends the nursery the run is in.
    """

    def __init__(
        self, handle: Callable[[list[T]], Awaitable[None]], max_waiting: int = MAX_WAITING
    ) -> None:
        self._handle = handle
        self._max = max_waiting
        self._waiting: list[T] = []
        self._busy = False
        self._changed = trio.Event()
        self.batches = 0

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def put_nowait(self, *items: T) -> None:
        """Queue items now, in order (no checkpoint, no backpressure)."""
        self._waiting.extend(items)
        self._notify()

    async def put_many(self, items: list[T]) -> None:
        """Queue items in order, waiting first while ``max_waiting`` items are queued."""
        await trio.lowlevel.checkpoint()
        while len(self._waiting) >= self._max:
            await self._changed.wait()
        self.put_nowait(*items)

    async def put(self, item: T) -> None:
        """Queue one item, waiting first while ``max_waiting`` items are queued."""
        await self.put_many([item])

    async def drain(self) -> None:
        """Wait until every item put so far has been handled."""
        while self._waiting or self._busy:
            await self._changed.wait()

    def take_waiting(self) -> list[T]:
        """The items not handled yet, taken out (after :meth:`run` stopped: what is left)."""
        items, self._waiting = self._waiting, []
        return items

    async def run(self) -> None:
        """Handle batches until cancelled."""
        while True:
            while not self._waiting:
                await self._changed.wait()
            batch, self._waiting = self._waiting, []
            self._busy = True
            self._notify()
            await self._handle(batch)
            self.batches += 1
            self._busy = False
            self._notify()
