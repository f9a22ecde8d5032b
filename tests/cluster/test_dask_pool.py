"""`DaskPool.run` against a stand-in for Dask's client (no processes): a worker that joins later
with another version is refused and retired and its match given to another worker, a task Dask
gave up on is the match's error, and a cluster with no worker left stops with the reasons."""

from __future__ import annotations

import sys
import threading
import zlib
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
import trio

from arena.cluster.bootstrap import ANSWER, OTHER_VERSION
from arena.cluster.connect import ClusterError
from arena.cluster.live import LiveBatches, events_of, play_live
from arena.cluster.messages import ClusterJob, Played, ShippedBot, decode_to_task, encode
from arena.cluster.pool import DaskPool, _fed, _Run
from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.live_events import MatchBegan, MatchOver, encode_event
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig
from arena.replay import Replay
from arena.tournament.jobs import Job, JobBot, JobDone, JobEvent, encode_events, summarize
from tests.helpers import REPO

Answer = Callable[[ClusterJob, int], Any]
RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"


class FakeFuture:
    """A finished task: its key and its value (or the exception it raised)."""

    def __init__(self, key: str, value: Any) -> None:
        self.key = key
        self.value = value

    def result(self) -> Any:
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value

    def add_done_callback(self, callback: Callable[[FakeFuture], None]) -> None:
        threading.Thread(target=callback, args=(self,)).start()  # as Dask: another thread


class FakeClient:
    """Answers each task at once with ``answer(job, attempt)``; records what was retired."""

    def __init__(self, answer: Answer, workers: list[str]) -> None:
        self.answer = answer
        self.workers = set(workers)
        self.retired: list[str] = []
        self.attempts = 0
        self.handler: Any = None
        self.messages: list[ClusterJob] = []

    def get(self, graph: dict[str, Any], key: str, **_: Any) -> FakeFuture:
        payload = graph[key][-1]
        message = decode_to_task(payload)
        assert isinstance(message, ClusterJob)
        self.messages.append(message)
        self.attempts += 1
        return FakeFuture(key, self.answer(message, self.attempts))

    def subscribe_topic(self, topic: str, handler: Any) -> None:
        self.handler = handler

    def unsubscribe_topic(self, topic: str) -> None:
        pass

    def cancel(self, futures: list[Any]) -> None:
        pass

    def retire_workers(self, workers: list[str], close_workers: bool) -> None:
        self.retired += workers
        self.workers -= set(workers)

    def scheduler_info(self) -> dict[str, Any]:
        return {"workers": {w: {} for w in self.workers}}


def job(table: int) -> Job:
    return Job(
        table=table, game="matador", rules={}, seed=table, target=None, hands=1,
        startup_ms=1000, move_ms=100, bank_ms=0, bots=[JobBot("./a", "/a"), JobBot("./b", "/b")],
        replay=f"/nowhere/t{table}.json",
    )  # fmt: skip


def played(message: ClusterJob, worker: str = "tcp://good:1") -> tuple[str, str, str, bytes]:
    """A match the worker could not play (``done.error``): nothing to write."""
    done = JobDone(table=message.job.table, replay=message.job.replay, referee_cpu_s=0.5, error="x")
    return (ANSWER, worker, "good", encode(Played(done, worker, "good", "bwrap")))


def run_pool(
    client: FakeClient,
    jobs: list[Job],
    capacity: int = 2,
    on_event: Callable[[JobEvent], None] | None = None,
) -> tuple[list[JobDone], list[str]]:
    said: list[str] = []
    bots = {
        ("./a", "/a"): ShippedBot("1" * 64, "a", "./a"),
        ("./b", "/b"): ShippedBot("2" * 64, "b", "./b"),
    }
    run = _Run(client, "0.1.0", "run-1", bots, None, 10.0, said.append)
    pool = DaskPool(run, capacity, [])
    done: list[JobDone] = []

    async def on_started(table: int) -> None:
        pass

    async def on_done(result: JobDone) -> None:
        done.append(result)

    trio.run(pool.run, jobs, on_started, on_done, on_event)
    return done, said


def test_a_worker_of_another_version_is_retired_and_its_match_played_elsewhere() -> None:
    """The first answer comes from a worker that joined with 0.2.0: it is named, retired, and
    the match is played by another worker; every match is taken once."""

    def answer(message: ClusterJob, attempt: int) -> Any:
        if attempt == 1:
            return (OTHER_VERSION, "tcp://late:1", "lab-9", "0.2.0")
        return played(message)

    client = FakeClient(answer, ["tcp://good:1", "tcp://late:1"])
    done, said = run_pool(client, [job(0), job(1), job(2)])
    assert sorted(d.table for d in done) == [0, 1, 2]
    assert client.retired == ["tcp://late:1"]
    assert said == [
        "refused worker tcp://late:1 (host lab-9) runs matador-arena 0.2.0, this coordinator "
        "0.1.0: every machine of the cluster needs the same version; retiring it"
    ]


def test_a_task_dask_gave_up_on_is_the_matchs_error() -> None:
    """A task whose workers kept dying (Dask's KilledWorker) is reported as not played."""

    def answer(message: ClusterJob, attempt: int) -> Any:
        return RuntimeError("worker died 3 times") if message.job.table == 1 else played(message)

    done, _ = run_pool(FakeClient(answer, ["tcp://good:1"]), [job(0), job(1)])
    errors = {d.table: d.error for d in done}
    assert errors[1] == "the cluster could not play this match: RuntimeError: worker died 3 times"
    assert errors[0] == "x"


def test_no_worker_left_stops_with_the_reasons() -> None:
    """Every worker refused: the run stops with one line naming each."""

    def answer(message: ClusterJob, attempt: int) -> Any:
        return (OTHER_VERSION, "tcp://only:1", "lab-1", "0.2.0")

    with pytest.raises(ClusterError) as caught:  # itself, not in an exception group
        run_pool(FakeClient(answer, ["tcp://only:1"]), [job(0)])
    assert str(caught.value).startswith(
        "no worker of the cluster can play: worker tcp://only:1 (host"
    )


def _recorded_match() -> tuple[list[JobEvent], Replay]:
    """The live events and the replay of a real one-hand match between two random bots."""
    sent: list[bytes] = []
    config = MatchConfig(
        game=MATADOR, rules=MatadorRules(), players=2, seed=4,
        length=MatchLength(target=None, hands=1), time=TimeLimits(move_ms=2000),
    )  # fmt: skip
    replay = trio.run(play_live, config, [RANDOM, RANDOM], LiveBatches(0, sent.append, 10.0))
    return [e for batch in sent for e in events_of(batch)], replay


def test_a_live_jobs_events_reach_on_event_in_order_for_its_table() -> None:
    """What the workers send to the run's topic, in compressed batches, is fed to
    ``on_event`` per table in the order sent; a started message still says so."""
    recorded, _ = _recorded_match()

    def answer(message: ClusterJob, attempt: int) -> Any:
        table = message.job.table
        events = [JobEvent(table, e.event, e.at) for e in recorded]
        client.handler((0.0, table))
        half = len(events) // 2
        for part in (events[:half], events[half:]):
            client.handler((0.0, zlib.compress(encode_events(part), 1)))
        return played(message)

    client = FakeClient(answer, ["tcp://good:1"])
    fed: list[JobEvent] = []
    live = [msgspec.structs.replace(job(t), live=True) for t in (0, 1)]
    done, _ = run_pool(client, live, on_event=fed.append)
    assert sorted(d.table for d in done) == [0, 1]
    for table in (0, 1):
        mine = [encode_event(e.event) for e in fed if e.table == table]
        assert mine == [encode_event(e.event) for e in recorded]
    assert isinstance(fed[0].event, MatchBegan)


def test_the_last_batch_that_comes_after_the_result_is_still_fed() -> None:
    """A match's last batch goes through the scheduler, its result does not: the result may
    come first. The run waits for the end of the live events of the matches it recorded."""
    recorded, replay = _recorded_match()
    summary = summarize(replay)

    def answer(message: ClusterJob, attempt: int) -> Any:
        table = message.job.table
        events = [JobEvent(table, e.event, e.at) for e in recorded]
        client.handler((0.0, zlib.compress(encode_events(events[:-1]), 1)))
        late = zlib.compress(encode_events(events[-1:]), 1)
        threading.Timer(0.3, client.handler, args=((0.0, late),)).start()
        done = JobDone(table=table, replay=message.job.replay, referee_cpu_s=0.1, summary=summary)
        return (ANSWER, "tcp://good:1", "good", encode(Played(done, "tcp://good:1", "good", None)))

    client = FakeClient(answer, ["tcp://good:1"])
    fed: list[JobEvent] = []
    done, _ = run_pool(client, [msgspec.structs.replace(job(0), live=True)], on_event=fed.append)
    assert [d.summary for d in done] == [summary]
    assert isinstance(fed[-1].event, MatchOver)
    assert len(fed) == len(recorded)


def test_a_recorded_match_is_not_begun_again_but_its_late_events_are_fed() -> None:
    recorded, _ = _recorded_match()
    began, later, over = recorded[0], recorded[2], recorded[-1]
    assert isinstance(began.event, MatchBegan)
    assert isinstance(over.event, MatchOver)
    assert _fed(began, set())
    assert not _fed(began, {0})
    assert _fed(later, {0})
    assert _fed(over, {0})
    assert _fed(began, {1})


@pytest.mark.parametrize(("capacity", "seconds"), [(2, 0.1), (1000, 2.5)])
def test_the_tasks_batch_interval_follows_the_clusters_size(capacity: int, seconds: float) -> None:
    client = FakeClient(lambda message, _attempt: played(message), ["tcp://good:1"])
    run_pool(client, [job(0)], capacity=capacity)
    assert [m.live_every_s for m in client.messages] == [seconds]
