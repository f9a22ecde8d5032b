"""The coordinator's judgement of its workers (arena/cluster/checks.py, pure): how many matches
run at once, crowded hosts, and the words that refuse a worker."""

from __future__ import annotations

from arena.cluster.bootstrap import ANSWER, NO_ARENA, OTHER_VERSION
from arena.cluster.checks import Slots, crowded_hosts, problem_text, refusal, slots
from arena.cluster.messages import BotProblem, WorkerReport


def report(worker: str, host: str, nthreads: int, cpus: int, **resources: float) -> WorkerReport:
    """A worker's answer to its check."""
    return WorkerReport(
        worker=worker, host=host, version="0.1.0", mechanism="bwrap", cgroups=None, cpus=cpus,
        nthreads=nthreads, resources=dict(resources),
    )  # fmt: skip


def test_one_match_per_declared_cpu_when_every_worker_declares_it() -> None:
    """Workers started with --resources CPU=N: each match asks for CPU=1."""
    reports = [report("tcp://a:1", "a", 4, 4, CPU=4), report("tcp://b:1", "b", 2, 2, CPU=2)]
    assert slots(reports) == Slots(6, {"CPU": 1})


def test_one_match_per_thread_otherwise() -> None:
    """A worker without the resource: matches take threads, on every worker."""
    reports = [report("tcp://a:1", "a", 4, 4, CPU=4), report("tcp://b:1", "b", 1, 2)]
    assert slots(reports) == Slots(5, None)


def test_a_host_running_more_matches_than_cpus_is_named() -> None:
    """Two 2-thread workers on one 2-CPU host: 4 matches on 2 CPUs."""
    reports = [report("tcp://a:1", "lab", 2, 2), report("tcp://a:2", "lab", 2, 2)]
    reports.append(report("tcp://b:1", "ok", 1, 2))
    assert crowded_hosts(reports, slots(reports)) == ["host lab runs 4 matches at once on 2 CPUs"]


def test_the_refusals_name_the_worker_its_host_and_both_versions() -> None:
    """Another version, and no arena at all, in the words the coordinator prints."""
    assert refusal(OTHER_VERSION, "tcp://a:1", "lab", "0.2.0", "0.1.0") == (
        "worker tcp://a:1 (host lab) runs matador-arena 0.2.0, this coordinator 0.1.0: every "
        "machine of the cluster needs the same version"
    )
    assert refusal(
        NO_ARENA, "tcp://a:1", "lab", "no matador-arena package is installed", "0.1.0"
    ) == (
        "worker tcp://a:1 (host lab) cannot run the arena: no matador-arena package is "
        "installed; install matador-arena 0.1.0 there (pip install 'matador-arena[cluster]==0.1.0')"
    )
    assert refusal(ANSWER, "tcp://a:1", "lab", b"", "0.1.0") is None


def test_a_bot_problem_is_one_line() -> None:
    """A build's output over several lines becomes one line naming the bot, stage and host."""
    problem = BotProblem(
        "fast", "build", "build 'make' failed; its output ends with:\nerr 1\nerr 2"
    )
    assert problem_text(problem, "tcp://a:1", "lab") == (
        "bot fast: its build failed on worker tcp://a:1 (host lab): build 'make' failed; its "
        "output ends with: / err 1 / err 2"
    )
