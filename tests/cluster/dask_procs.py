"""Real Dask clusters for the tests: one ``dask scheduler`` and its ``dask worker`` processes,
all on 127.0.0.1 (free ports, dashboards on loopback too), each in its own process group and
stopped by its pid at the end, with a check that nothing of theirs is left."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from tests.helpers import REPO

#: Seconds a scheduler and its workers get to come up.
START_TIMEOUT_S = 60.0


def dask_command(kind: str) -> list[str]:
    """``dask scheduler`` or ``dask worker``, from this Python's installation."""
    dask = Path(sys.executable).with_name("dask")
    if dask.exists():
        return [str(dask), kind]
    found = shutil.which("dask")
    if found is not None:
        return [found, kind]
    return [sys.executable, "-m", f"distributed.cli.dask_{kind}"]


def worker_env(pythonpath: Sequence[str | Path] = ()) -> dict[str, str]:
    """The environment of a worker: this repository's arena first on its path."""
    env = dict(os.environ)
    paths = [str(p) for p in pythonpath] + [str(REPO)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


@dataclass
class DaskCluster:
    """A scheduler and its workers (their process-group leaders' pids)."""

    folder: Path
    tls: list[str] = field(default_factory=list)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    address: str = ""

    @property
    def scheduler_file(self) -> Path:
        """Where the scheduler writes its address."""
        return self.folder / "scheduler.json"

    def _start(self, argv: list[str], log: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
        with open(self.folder / log, "wb") as out:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
                env=env,
                start_new_session=True,
            )
        self.processes.append(process)
        return process

    def _tls_flags(self) -> list[str]:
        return [*self.tls, "--protocol", "tls"] if self.tls else []

    def start_scheduler(self) -> str:
        """Start the scheduler; its address once it has written it."""
        argv = [
            *dask_command("scheduler"),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--dashboard-address",
            "127.0.0.1:0",
            "--scheduler-file",
            str(self.scheduler_file),
            *self._tls_flags(),
        ]
        self._start(argv, "scheduler.log", worker_env())
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.scheduler_file.exists():
                try:
                    self.address = json.loads(self.scheduler_file.read_text())["address"]
                    return self.address
                except (ValueError, KeyError):
                    pass
            time.sleep(0.1)
        raise RuntimeError(f"the scheduler did not start: {self.log('scheduler.log')}")

    def start_worker(
        self,
        name: str,
        *,
        pythonpath: Sequence[str | Path] = (),
        preload: Path | None = None,
        extra: Sequence[str] = (),
    ) -> None:
        """Start one worker (with its nanny), one thread."""
        argv = [
            *dask_command("worker"),
            "--scheduler-file",
            str(self.scheduler_file),
            "--nthreads",
            "1",
            "--host",
            "127.0.0.1",
            "--dashboard-address",
            "127.0.0.1:0",
            "--name",
            name,
            *self._tls_flags(),
            *extra,
        ]
        if preload is not None:
            argv += ["--preload", str(preload)]
        self._start(argv, f"{name}.log", worker_env(pythonpath))

    def wait_for_workers(self, count: int) -> None:
        """Wait until ``count`` workers have joined the scheduler."""
        from distributed import Client

        security = None
        if self.tls:
            from distributed.security import Security

            files = dict(zip(self.tls[::2], self.tls[1::2], strict=True))
            security = Security(
                tls_ca_file=files["--tls-ca-file"],
                tls_client_cert=files["--tls-cert"],
                tls_client_key=files["--tls-key"],
                require_encryption=True,
            )
        with Client(self.address, security=security, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=START_TIMEOUT_S)

    def log(self, name: str) -> str:
        """One process's output so far."""
        return (self.folder / name).read_text(errors="replace")

    def pids(self) -> set[int]:
        """Every process of the cluster now: the leaders and all their descendants."""
        found = set()
        for process in self.processes:
            try:
                leader = psutil.Process(process.pid)
                found.add(leader.pid)
                found.update(child.pid for child in leader.children(recursive=True))
            except psutil.NoSuchProcess:
                continue
        return found

    def listening(self) -> set[str]:
        """The addresses the cluster's processes listen on (``IP:PORT``)."""
        addresses = set()
        for pid in self.pids():
            try:
                connections = psutil.Process(pid).net_connections(kind="inet")
            except psutil.NoSuchProcess:
                continue
            for c in connections:
                if c.status == psutil.CONN_LISTEN:
                    addresses.add(f"{c.laddr.ip}:{c.laddr.port}")
        return addresses

    def stop(self) -> set[int]:
        """Stop every process group by its leader's pid; the pids still alive after (none)."""
        every = self.pids()
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        time.sleep(0.2)
        return {p for p in every if psutil.pid_exists(p) and _alive(p)}


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def start_cluster(
    folder: Path, workers: int = 2, tls: Sequence[str] = (), extra: Sequence[str] = ()
) -> DaskCluster:
    """A scheduler and ``workers`` workers (with the ``extra`` options), all joined."""
    folder.mkdir(parents=True, exist_ok=True)
    cluster = DaskCluster(folder, list(tls))
    try:
        cluster.start_scheduler()
        for i in range(workers):
            cluster.start_worker(f"w{i}", extra=extra)
        cluster.wait_for_workers(workers)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def arena(*args: str, cwd: Path = REPO, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``python3 -m arena ARGS`` in ``cwd`` with this repository's arena."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        env=worker_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
