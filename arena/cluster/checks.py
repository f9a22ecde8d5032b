"""The coordinator's judgement of its workers (pure): which may play, and in what words a
refused one is named.

A worker is refused, with its address and host, when the arena is missing there, installed in
another version (both versions named), when its sandbox cannot be what ``--sandbox`` asks for,
or when a bot fails its build or handshake there. Fair clocks: each worker runs at most one
match per CPU it declares (``--resources CPU=N``), else one per thread (``--nthreads``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.cluster.bootstrap import ANSWER, NO_ARENA, OTHER_VERSION
from arena.cluster.messages import BotProblem, WorkerReport
from arena.cluster.version import DISTRIBUTION

#: The Dask resource each match asks for when every worker declares it.
CPU = "CPU"


def worker_name(worker: str, host: str) -> str:
    """``worker tcp://10.0.0.7:40123 (host lab-7)``."""
    return f"worker {worker} (host {host})"


def refusal(kind: str, worker: str, host: str, detail: Any, version: str) -> str | None:
    """Why a worker's answer refuses it before anything else is known, or ``None``."""
    if kind == NO_ARENA:
        return (
            f"{worker_name(worker, host)} cannot run the arena: {detail}; install "
            f"{DISTRIBUTION} {version} there (pip install '{DISTRIBUTION}[cluster]=={version}')"
        )
    if kind == OTHER_VERSION:
        return (
            f"{worker_name(worker, host)} runs {DISTRIBUTION} {detail}, this coordinator "
            f"{version}: every machine of the cluster needs the same version"
        )
    if kind != ANSWER:
        return f"{worker_name(worker, host)} answered {kind!r}, which this arena does not know"
    return None


def problem_text(problem: BotProblem, worker: str, host: str) -> str:
    """``bot built: its build failed on worker ... (host ...): ...``."""
    reason = " / ".join(line.strip() for line in problem.reason.splitlines() if line.strip())
    return (
        f"bot {problem.name}: its {problem.stage} failed on {worker_name(worker, host)}: {reason}"
    )


def report_problems(report: WorkerReport, sandbox: str) -> list[str]:
    """Everything that refuses a worker that answered its preflight."""
    if report.sandbox_error is not None:
        return [
            f"{worker_name(report.worker, report.host)}: --sandbox {sandbox} cannot be had "
            f"there: {report.sandbox_error}"
        ]
    return [problem_text(p, report.worker, report.host) for p in report.problems]


@dataclass(frozen=True)
class Slots:
    """How many matches the cluster runs at once, and the resources each match asks for."""

    total: int
    resources: dict[str, float] | None


def slots(reports: Sequence[WorkerReport]) -> Slots:
    """One match per declared CPU when every worker declares ``CPU``, else one per thread."""
    if reports and all(CPU in r.resources for r in reports):
        return Slots(sum(int(r.resources[CPU]) for r in reports), {CPU: 1})
    return Slots(sum(r.nthreads for r in reports), None)


def crowded_hosts(reports: Sequence[WorkerReport], per_match: Slots) -> list[str]:
    """The hosts whose workers would run more matches at once than the host has CPUs."""
    running: dict[str, int] = defaultdict(int)
    cpus: dict[str, int] = {}
    for r in reports:
        running[r.host] += int(r.resources[CPU]) if per_match.resources is not None else r.nthreads
        cpus[r.host] = r.cpus
    return [
        f"host {host} runs {running[host]} matches at once on {cpus[host]} CPUs"
        for host in sorted(running)
        if running[host] > cpus[host]
    ]
