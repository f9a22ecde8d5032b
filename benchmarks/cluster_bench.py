"""The Dask cluster beside the local pool, and the coordinator's capacity (issue 12).

Rows:

- ``local`` / ``dask``: the same round-robin tournament (fixed seed, ``--hands`` hands per
  match, 30 s start-up and 10 s per move so only the arena is measured), played through the
  arena's own code (`arena.tournament.session.open_new`, then
  `arena.tournament.runner.TournamentRun` with a plain reporter writing to ``os.devnull``, as
  ``arena tournament`` does): on the local pool with 2 worker processes (concurrency 2), and on
  a Dask cluster this script starts on 127.0.0.1 (``dask scheduler`` and 2 ``dask worker
  --nthreads 1`` processes, as ``tests/cluster`` does, stopped by pid at the end). Bots: 4
  instant C bots (``benchmarks/c_bot``: nearly all the time is the arena's) and the sample bots
  (random_bot.py, greedy.py, and greedy.js when node is installed; 2 rounds). ``matches/s``
  is matches over the wall time of ``TournamentRun.run`` (the Dask row includes connecting,
  shipping the bots and checking every worker; ``steady`` is matches/s from the first match's
  start to the last result). ``slot ms`` is the time each match holds a slot beyond its own duration
  (``(steady time * slots - sum of the replays' duration_s) / matches``: dispatch, start-up of
  the match, replay writing, result delivery); ``overhead ms`` is Dask's ``slot ms`` less the
  local pool's. Targets: Dask >= 90% of the local pool's
  matches/s with 20-hand matches; overhead <= 5 ms. A second table splits the CPU each match
  cost by process: this process (the coordinator: its every thread), and for Dask the
  scheduler, the nannies, the worker processes (Dask's threads and the referee's) and the bots
  (the workers' reaped children); for the local pool the worker processes and their bots
  together (its reaped children, since they end with the pool: their start-up is in it, while
  the Dask workers were started before). A third table is Dask's own floor: tasks that do
  nothing but return 83 KB (a 20-hand replay's size), as many in flight as the arena keeps (2
  per slot), submitted with ``Client.submit``: the CPU each costs the scheduler, the nannies,
  the workers and this process, which no change of the arena's can lower.
- ``coordinator`` (``--coordinator``): results recorded per second with instant synthetic
  matches (`coordinator_load`). Target: >= 2,000/s.

Each configuration runs ``--repeat`` times, interleaved (the VM is shared); the best is shown.

Usage::

    python3 benchmarks/cluster_bench.py                    # every row, ~3 min
    python3 benchmarks/cluster_bench.py --coordinator      # the coordinator rows only
    python3 benchmarks/cluster_bench.py --no-coordinator --hands 20 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import coordinator_load  # noqa: E402
import trio  # noqa: E402
from referee_bench import build_c_bot  # noqa: E402
from tournament_bench import machine, settings_for  # noqa: E402

from arena.tournament.jobs import JobDone  # noqa: E402
from arena.tournament.live import PlainReporter  # noqa: E402
from arena.tournament.runner import RunOptions, TournamentRun  # noqa: E402
from arena.tournament.session import open_new  # noqa: E402
from arena.tournament.settings import TournamentSettings  # noqa: E402

if TYPE_CHECKING:
    from tests.cluster.dask_procs import DaskCluster

TARGET_SHARE = 0.90
TARGET_OVERHEAD_MS = 5.0
SLOTS = 2
COORDINATOR_ROWS = ((40, 6240), (300, 20_000))


@dataclass
class PoolRow:
    """One tournament on one pool."""

    bots: str
    pool: str
    matches: int
    moves: int
    wall_s: float
    steady_s: float
    play_s: float
    cpu_s: dict[str, float]

    @property
    def slot_ms(self) -> float:
        """Slot time per match beyond the match's own duration (``duration_s``, from its
        first message to its last): what running it costs besides playing it."""
        return (self.steady_s * SLOTS - self.play_s) / self.matches * 1e3

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.wall_s

    @property
    def steady_per_s(self) -> float:
        return self.matches / self.steady_s


CPU_ROLES = ("coordinator", "scheduler", "nannies", "workers", "bots", "workers+bots")


def cpu_by_role(cluster: DaskCluster) -> dict[str, float]:
    """CPU seconds so far of this process and the cluster's, by role (see the docstring): the
    cluster's first process is the scheduler, the others are nannies, the nannies' children
    the worker processes, and theirs (reaped) the bots."""
    import psutil

    times = psutil.Process().cpu_times()
    seconds = dict.fromkeys(CPU_ROLES, 0.0)
    seconds["coordinator"] = times.user + times.system
    seconds["workers+bots"] = times.children_user + times.children_system
    for index, leader in enumerate(cluster.processes):
        try:
            process = psutil.Process(leader.pid)
            own = process.cpu_times()
            seconds["scheduler" if index == 0 else "nannies"] += own.user + own.system
            for child in process.children() if index else []:
                worker = child.cpu_times()
                seconds["workers"] += worker.user + worker.system
                seconds["bots"] += worker.children_user + worker.children_system
        except psutil.Error:
            continue
    return seconds


def run_tournament(
    label: str,
    pool: str,
    commands: list[str],
    settings: TournamentSettings,
    address: str | None,
    cluster: DaskCluster | None = None,
) -> PoolRow:
    """One whole tournament in a temporary folder; fails loudly if a bot failed."""
    from arena.cluster.options import ClusterOptions

    with (
        tempfile.TemporaryDirectory(prefix="cluster-bench-") as tmp,
        open(os.devnull, "w", encoding="utf-8") as null,
    ):
        out = Path(tmp)
        opened = open_new(commands, settings, out / "tournament.db")
        if opened.excluded:
            reasons = "; ".join(f"{x.entrant.name}: {x.reason}" for x in opened.excluded)
            raise RuntimeError(f"bots left out of the benchmark tournament: {reasons}")
        try:
            remote = None if address is None else ClusterOptions(address)
            options = RunOptions(out_dir=out, concurrency=SLOTS, workers=SLOTS, cluster=remote)
            runner = TournamentRun(opened.settings, opened.store, options, PlainReporter(null))
            marks = {"first": 0.0, "last": 0.0}
            started, finished = runner._started, runner._finished

            async def on_started(table: int) -> None:
                marks["first"] = marks["first"] or time.perf_counter()
                await started(table)

            async def on_finished(result: JobDone) -> None:
                await finished(result)
                marks["last"] = time.perf_counter()

            runner._started = on_started  # type: ignore[method-assign]
            runner._finished = on_finished  # type: ignore[method-assign]
            before = cpu_by_role(cluster) if cluster is not None else {}
            w0 = time.perf_counter()
            trio.run(runner.run)
            w1 = time.perf_counter()
            after = cpu_by_role(cluster) if cluster is not None else {}
        finally:
            opened.store.close()
    failed = [
        f"table {r.table.idx} seat {s.seat}: {s.status.value} {s.detail}"
        for r in runner.rows
        for s in r.summary.seats
        if s.failure is not None
    ]
    if failed:
        raise RuntimeError("a bot failed during the benchmark: " + "; ".join(failed[:5]))
    return PoolRow(
        bots=label,
        pool=pool,
        matches=len(runner.rows),
        moves=sum(r.summary.moves for r in runner.rows),
        wall_s=w1 - w0,
        steady_s=marks["last"] - marks["first"],
        play_s=sum(r.summary.duration_s for r in runner.rows),
        cpu_s={role: after[role] - before[role] for role in after},
    )


FLOOR_TASKS = 400
_RESULT = bytes(83_000)


def _do_nothing(i: int) -> bytes:
    return _RESULT


def dask_floor(cluster: DaskCluster) -> dict[str, float]:
    """CPU ms per do-nothing task by role (see the module's docstring), and tasks/s."""
    from distributed import Client, as_completed

    with Client(cluster.address) as client:
        client.submit(_do_nothing, -1, pure=False).result()
        before = cpu_by_role(cluster)
        started = time.perf_counter()
        numbers = iter(range(FLOOR_TASKS))
        running = as_completed(
            [client.submit(_do_nothing, next(numbers), pure=False) for _ in range(2 * SLOTS)]
        )
        for future in running:
            future.result()
            number = next(numbers, None)
            if number is not None:
                running.add(client.submit(_do_nothing, number, pure=False))
        seconds = time.perf_counter() - started
        after = cpu_by_role(cluster)
    floor = {r: (after[r] - before[r]) / FLOOR_TASKS * 1e3 for r in after}
    floor["tasks/s"] = FLOOR_TASKS / seconds
    return floor


def cpu_header() -> str:
    roles = " ".join(f"{r:>12}" for r in CPU_ROLES)
    return f"{'bots':<16} {'pool':<22} {roles} {'total':>8}"


def cpu_line(row: PoolRow) -> str:
    per_match = {role: seconds / row.matches * 1e3 for role, seconds in row.cpu_s.items()}
    if "dask" in row.pool:
        per_match["workers+bots"] = per_match["workers"] + per_match["bots"]
        shown = {r: per_match[r] for r in CPU_ROLES}
    else:
        shown = {
            r: per_match[r] if r in ("coordinator", "workers+bots") else None for r in CPU_ROLES
        }
    total = sum(v for r, v in shown.items() if v is not None and r not in ("workers", "bots"))
    cells = " ".join(f"{'':>12}" if v is None else f"{v:>12.1f}" for v in shown.values())
    return f"{row.bots:<16} {row.pool:<22} {cells} {total:>8.1f}"


def pool_header() -> str:
    return (
        f"{'bots':<16} {'pool':<22} {'matches':>7} {'moves':>7} {'wall s':>7} "
        f"{'matches/s':>9} {'steady/s':>9} {'share':>6} {'slot ms':>7} {'overhead ms':>11}"
    )


def pool_line(row: PoolRow, local: PoolRow | None) -> str:
    share = overhead = ""
    if local is not None and row is not local:
        share = f"{row.steady_per_s / local.steady_per_s:.0%}"
        overhead = f"{row.slot_ms - local.slot_ms:.1f}"
    return (
        f"{row.bots:<16} {row.pool:<22} {row.matches:>7} {row.moves:>7} {row.wall_s:>7.2f} "
        f"{row.matches_per_s:>9.1f} {row.steady_per_s:>9.1f} {share:>6} {row.slot_ms:>7.1f} "
        f"{overhead:>11}"
    )


def pool_rows(args: argparse.Namespace) -> None:
    from tests.cluster.dask_procs import start_cluster

    binary = build_c_bot()
    c_bots = [f"{shlex.quote(str(binary))} seat-{i + 1}" for i in range(4)]
    python = shlex.quote(sys.executable)
    samples = [
        f"{python} {shlex.quote(str(ROOT / 'sample_bots' / 'random_bot.py'))}",
        f"{python} {shlex.quote(str(ROOT / 'sample_bots' / 'greedy.py'))}",
    ]
    node = shutil.which("node")
    if node is not None:
        samples.append(f"{shlex.quote(node)} {shlex.quote(str(ROOT / 'sample_bots/greedy.js'))}")
    tournaments = [
        ("C instant x4", c_bots, settings_for(args.hands, 1, args.rounds)),
        ("samples" + ("+node" if node else ""), samples, settings_for(args.hands, 1, 2)),
    ]
    with tempfile.TemporaryDirectory(prefix="cluster-bench-dask-") as tmp:
        cluster = start_cluster(Path(tmp), workers=SLOTS)
        try:
            pools = [("local, 2 workers", None), ("dask, 2 workers x 1", cluster.address)]
            best: dict[tuple[str, str], PoolRow] = {}
            floors = []
            for _ in range(args.repeat):
                floors.append(dask_floor(cluster))
                for label, commands, settings in tournaments:
                    for pool, address in pools:
                        row = run_tournament(label, pool, commands, settings, address, cluster)
                        key = (label, pool)
                        if key not in best or row.steady_per_s > best[key].steady_per_s:
                            best[key] = row
        finally:
            left = cluster.stop()
    print(
        f"cluster_bench: round robin, 2 players, {args.hands} hands per match, seed 1, best of "
        f"{args.repeat}; {machine()}"
    )
    print(pool_header())
    print("-" * len(pool_header()))
    verdicts = []
    for label, _, _ in tournaments:
        local = best[(label, pools[0][0])]
        dask = best[(label, pools[1][0])]
        print(pool_line(local, None))
        print(pool_line(dask, local))
        share = dask.steady_per_s / local.steady_per_s
        extra = dask.slot_ms - local.slot_ms
        verdicts.append(
            f"{label}: dask/local {share:.0%} (target >= {TARGET_SHARE:.0%}: "
            f"{'met' if share >= TARGET_SHARE else 'NOT met'}), overhead {extra:.1f} ms per "
            f"match (target <= {TARGET_OVERHEAD_MS:g}: "
            f"{'met' if extra <= TARGET_OVERHEAD_MS else 'NOT met'})"
        )
    print()
    print("CPU ms per match, by process (the same runs)")
    print(cpu_header())
    print("-" * len(cpu_header()))
    for label, _, _ in tournaments:
        for pool, _ in pools:
            print(cpu_line(best[(label, pool)]))
    floor = min(floors, key=lambda f: sum(f[r] for r in CPU_ROLES if r != "workers+bots"))
    cells = " ".join(f"{floor[r]:>12.1f}" for r in CPU_ROLES[:4])
    total = sum(floor[r] for r in CPU_ROLES[:4])
    label = f"{floor['tasks/s']:.0f} tasks/s"
    print(f"{'do-nothing task':<16} {'dask, ' + label:<22} {cells} {'':>12} {'':>12} {total:>8.1f}")
    print()
    for line in verdicts:
        print(line)
    if left:
        print(f"warning: processes of the benchmark's cluster survived: {sorted(left)}")


def coordinator_rows(args: argparse.Namespace) -> None:
    configs = [(b, r, rep) for b, r in COORDINATOR_ROWS for rep in ("plain", "live")]
    best: dict[tuple[int, int, str], coordinator_load.CoordinatorRow] = {}
    for _ in range(args.repeat):
        for bots, results, reporter in configs:
            row = coordinator_load.run_coordinator(bots, results, reporter, events=True)
            key = (bots, results, reporter)
            if key not in best or row.results_per_s > best[key].results_per_s:
                best[key] = row
    print(
        f"coordinator: instant synthetic {coordinator_load.HANDS}-hand results, database "
        f"(synchronous=FULL) + events file + standings + reporter, best of {args.repeat}"
    )
    print(coordinator_load.header())
    print("-" * len(coordinator_load.header()))
    for key in best:
        print(coordinator_load.format_row(best[key]))
    worst = min(r.results_per_s for r in best.values())
    per_cpu = min(r.results_per_cpu_s for r in best.values())
    target = coordinator_load.TARGET_RESULTS_PER_S
    print(
        f"slowest row {worst:,.0f} results/s of wall time (target >= {target:,.0f}: "
        f"{'met' if worst >= target else 'NOT met'}); {per_cpu:,.0f} results per CPU second "
        f"of the coordinator ({'met' if per_cpu >= target else 'NOT met'} with one free core); "
        f"load average during the run {os.getloadavg()[0]:.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20, help="hands per match (20)")
    parser.add_argument("--rounds", type=int, default=4, help="round-robin rounds, C bots (4)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each row, best kept (2)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--coordinator", action="store_true", help="the coordinator rows only")
    which.add_argument("--no-coordinator", action="store_true", help="skip the coordinator rows")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    if not args.coordinator:
        pool_rows(args)
        print()
    if not args.no_coordinator:
        coordinator_rows(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
