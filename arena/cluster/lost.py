"""The scheduler lost in the middle of a run: wait for it for a while, then stop cleanly.

When the coordinator loses its connection to the scheduler, Dask's client cancels every task
of the run ("scheduler-connection-lost") and tries to reconnect for its ``timeout``, which is
``--cluster-timeout`` (`arena.cluster.options.ClusterOptions.connect_timeout_s`, 10 s by
default). If it is back in that time and a worker joins it within that time again (Dask's
workers stop when they lose their scheduler: a supervisor or a person starts them again), the
lost matches are submitted again; if not, the run stops with `SchedulerLostError` (exit 2):
every result that arrived before is recorded, and ``arena tournament --resume`` plays the
rest.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from arena.cluster.connect import ClusterError

#: Seconds of grace after the client's own reconnection window before the arena gives up on
#: hearing its verdict (the client closes itself when the window ends).
VERDICT_GRACE_S = 5.0
#: How often the client's state is looked at while it reconnects (seconds).
POLL_S = 0.1
#: How long the scheduler has to answer the client's "identity" call once the client says it
#: is connected (seconds).
ANSWER_TIMEOUT_S = 1.0


class SchedulerLostError(ClusterError):
    """The scheduler went away in the middle of a run and did not come back in time."""


def scheduler_lost(error: BaseException, client: Any) -> bool:
    """Whether a task's failure is the lost scheduler (not the match's own problem).

    Besides Dask's own cancellation and a client that is not running, a result whose fetch
    broke on a closed connection (``CommClosedError``: the scheduler was killed while the
    result was on its way) is the scheduler lost too, even if the client has not noticed yet
    or has reconnected already: the match is played again, not recorded as an error.
    """
    from distributed.comm.core import CommClosedError

    reason = getattr(error, "reason", None)
    if reason == "scheduler-connection-lost" or client_status(client) != "running":
        return True
    return isinstance(error, CommClosedError)


def client_status(client: Any) -> str:
    """The client's connection: ``running``, ``connecting``, ``closing``, ``closed``, ...
    (``running`` for a stand-in client that does not say)."""
    return str(getattr(client, "status", "running"))


def wait_for_scheduler(client: Any, timeout_s: float) -> bool:
    """Block until the client is connected again (``True``) or has given up (``False``)."""
    # Dask logs its own giving up as an error; the arena says it once, with what to do.
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    deadline = time.monotonic() + timeout_s + VERDICT_GRACE_S
    while time.monotonic() < deadline:
        status = client_status(client)
        if status == "running" and scheduler_answers(client):
            return True
        if status in ("closing", "closed"):
            return False
        time.sleep(POLL_S)
    return False


def scheduler_answers(client: Any) -> bool:
    """Whether a scheduler answers the client's ``identity`` call as a scheduler.

    A client that says ``running`` just after a result's fetch broke on the killed scheduler
    may not have noticed the loss yet: its word alone would count the scheduler as back (CI
    once read "came back ... but no worker joined it" for a scheduler killed for good). A
    stand-in client without a scheduler connection is taken at its word.
    """
    sync = getattr(client, "sync", None)
    scheduler = getattr(client, "scheduler", None)
    if sync is None or scheduler is None:
        return True
    try:
        info = sync(scheduler.identity, callback_timeout=ANSWER_TIMEOUT_S)
    except Exception:  # no answer, a closed connection, a timeout: not back (yet)
        return False
    return isinstance(info, dict) and info.get("type") == "Scheduler"


def wait_for_workers(client: Any, timeout_s: float) -> bool:
    """Block until a worker has joined the scheduler that came back (``True``), or
    ``timeout_s`` has passed (``False``): Dask's workers stop when they lose the scheduler, so
    a new scheduler has only the workers started again since (by a supervisor or by hand)."""
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            client.wait_for_workers(1, timeout=left)
        except TimeoutError:
            return False
        except OSError:  # the new connection dropped as the scheduler came up: ask again
            time.sleep(POLL_S)
            continue
        return True
    return False


def retry_while_reconnecting(call: Callable[[], object], timeout_s: float) -> None:
    """``call()`` (a request to the scheduler that came back), asked again while its
    connection drops (Dask's ``CommClosedError`` is an ``OSError``) for up to ``timeout_s``;
    raises the last error after that."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            call()
            return
        except TimeoutError:
            raise
        except OSError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(POLL_S)


def no_workers_text(address: str, timeout_s: float) -> str:
    """What the run says when the scheduler came back without any worker."""
    return (
        f"the Dask scheduler at {address} came back after it was lost, but no worker joined it "
        f"within {timeout_s:g} s (--cluster-timeout)"
    )


def lost_text(address: str, timeout_s: float) -> str:
    """What the run says when it stops for a lost scheduler."""
    return (
        f"lost the Dask scheduler at {address} in the middle of the run and it did not come "
        f"back within {timeout_s:g} s (--cluster-timeout)"
    )
