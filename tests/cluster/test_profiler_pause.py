"""`bootstrap.pause_profiler` / `resume_profiler`: the arena's runs stop a worker's statistical
profiler while they play and give it back as they found it, also when two runs share a
worker (on a real cluster: `test_workers_profiler_is_paused_while_a_run_plays`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.cluster.bootstrap import pause_profiler, resume_profiler


@dataclass
class Callback:
    running: bool = True
    calls: list[str] = field(default_factory=list)

    def is_running(self) -> bool:
        return self.running

    def stop(self) -> None:
        self.calls.append("stop")
        self.running = False

    def start(self) -> None:
        self.calls.append("start")
        self.running = True


class Worker:
    def __init__(self, **callbacks: Callback) -> None:
        self.periodic_callbacks = {name.replace("_", "-"): cb for name, cb in callbacks.items()}


def test_two_runs_on_one_worker_give_the_profiler_back_after_the_last() -> None:
    profile, cycle = Callback(), Callback()
    worker = Worker(profile=profile, profile_cycle=cycle)
    pause_profiler(worker)
    pause_profiler(worker)
    assert (profile.running, cycle.running) == (False, False)
    resume_profiler(worker)
    assert (profile.running, cycle.running) == (False, False)
    resume_profiler(worker)
    assert (profile.running, cycle.running) == (True, True)
    assert profile.calls == cycle.calls == ["stop", "start"]


def test_a_profiler_that_was_off_stays_off() -> None:
    profile = Callback(running=False)
    worker = Worker(profile=profile)
    pause_profiler(worker)
    resume_profiler(worker)
    assert profile.calls == []
    assert not profile.running


def test_a_worker_without_a_profiler_and_a_resume_without_a_pause_do_nothing() -> None:
    worker = Worker()
    resume_profiler(worker)
    pause_profiler(worker)
    resume_profiler(worker)
    assert worker.periodic_callbacks == {}
