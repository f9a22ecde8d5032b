"""What the coordinator sends to run on workers: the task function and the bots' plugin.

This module is pickled *by value* (`register`): a worker unpickles it without importing the
arena, so a worker where the arena is missing, or installed in another version, answers with
its address and its version instead of an unpickling error that names no worker. Only the
standard library and Dask are imported at the top; the arena is imported inside the functions,
once the version is known to match.
"""

from __future__ import annotations

import socket
from importlib import metadata
from typing import Any

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

#: The first item of what `run_on_worker` returns.
ANSWER = "answer"
NO_ARENA = "no-arena"
OTHER_VERSION = "other-version"


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def run_on_worker(
    distribution: str, expected_version: str, payload: bytes
) -> tuple[str, str, str, Any]:
    """Run one task message (`arena.cluster.messages`) on this worker, if the arena's
    ``distribution`` is installed here in ``expected_version``.

    Returns:
        ``(kind, worker address, host, detail)``: ``("answer", ..., bytes)`` with the task's
        answer; ``("no-arena", ..., why)`` when the arena cannot be imported here;
        ``("other-version", ..., version)`` when it is installed in another version.
    """
    worker = get_worker().address
    host = socket.gethostname()
    version = _version(distribution)
    if version is None:
        return (NO_ARENA, worker, host, f"no {distribution} package is installed")
    if version != expected_version:
        return (OTHER_VERSION, worker, host, version)
    try:
        from arena.cluster.task import run_message
    except ImportError as error:
        return (NO_ARENA, worker, host, f"the arena cannot be imported ({error})")
    return (ANSWER, worker, host, run_message(payload, worker, host))


class BotArchives(WorkerPlugin):
    """Unpacks the tournament's bot archives on every worker, those that join later too (Dask
    runs a registered plugin's ``setup`` on each worker when it joins)."""

    def __init__(self, name: str, distribution: str, archives: dict[str, bytes]) -> None:
        self.name = name
        self.distribution = distribution
        self.archives = archives

    def setup(self, worker: Any) -> None:
        """Unpack every archive not already on this host (a worker without the arena skips
        it: its first task says it has none); pause the worker's statistical profiler for
        as long as the plugin is registered (the run)."""
        if _version(self.distribution) is None:
            return
        try:
            from arena.cluster.ship import unpack_archives
        except ImportError:
            return
        unpack_archives(self.archives)
        pause_profiler(worker)

    def teardown(self, worker: Any) -> None:
        """The run is over: the worker's profiler runs again (unless another run goes on)."""
        resume_profiler(worker)


#: Dask's periodic callbacks of the statistical profiler (`distributed.worker.profile`).
PROFILER_CALLBACKS = ("profile", "profile-cycle")
#: The attribute of a worker that counts the runs that paused its profiler.
_PAUSES = "_matador_arena_profiler_pauses"


def pause_profiler(worker: Any) -> None:
    """Stop the worker's statistical profiler (kept stopped while any run needs it).

    It samples every thread's stack 100 times a second while holding the GIL: in a match's
    thread that cost about 8% of the referee's CPU, and each sample delays the referee's
    reading of a bot's answer, so the bots' clocks would be charged for it.
    """
    pauses = getattr(worker, _PAUSES, None)
    if pauses is None:
        running = [
            name
            for name in PROFILER_CALLBACKS
            if (callback := worker.periodic_callbacks.get(name)) is not None
            and callback.is_running()
        ]
        pauses = {"count": 0, "stopped": running}
        setattr(worker, _PAUSES, pauses)
        for name in running:
            worker.periodic_callbacks[name].stop()
    pauses["count"] += 1


def resume_profiler(worker: Any) -> None:
    """Undo one `pause_profiler`; the last one starts the callbacks it stopped again."""
    pauses = getattr(worker, _PAUSES, None)
    if pauses is None:
        return
    pauses["count"] -= 1
    if pauses["count"] <= 0:
        delattr(worker, _PAUSES)
        for name in pauses["stopped"]:
            callback = worker.periodic_callbacks.get(name)
            if callback is not None:
                callback.start()


def register() -> None:
    """Have this module pickled by value from now on (in this process): its plugin then
    reaches workers without the arena."""
    import sys

    import cloudpickle  # type: ignore[import-untyped]

    module = sys.modules[__name__]
    if __name__ not in cloudpickle.list_registry_pickle_by_value():
        cloudpickle.register_pickle_by_value(module)


def task_graph(key: str, distribution: str, version: str, payload: bytes) -> dict[str, Any]:
    """A one-task Dask graph that runs `run_on_worker` (pickled by value) with its arguments.

    The graph names only the standard library (``operator.call`` of ``pickle.loads`` of the
    function's bytes): the scheduler and every worker unpickle it without the arena.
    """
    import operator
    import pickle

    function = (pickle.loads, _function_bytes())
    return {key: (operator.call, function, distribution, version, payload)}


_BYTES: list[bytes] = []


def _function_bytes() -> bytes:
    if not _BYTES:
        import cloudpickle

        register()
        _BYTES.append(cloudpickle.dumps(run_on_worker))
    return _BYTES[0]
