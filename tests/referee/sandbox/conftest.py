"""Fixtures for the sandbox tests: what this machine allows, plans per mechanism, and the
checks that follow every real-process test (no process, fd, cgroup or directory left)."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee.sandbox import (
    Capabilities,
    Mechanism,
    SandboxConfig,
    SandboxPlan,
    detect_capabilities,
    plan_sandbox,
)
from arena.referee.sandbox.cgroups import CGROUP_PREFIX
from tests.helpers import bot_argv
from tests.processes import live_processes_with

BOTS = Path(__file__).resolve().parent / "bots"

#: Debian's interpreter: readable by the sandbox's unprivileged user wherever it runs (a
#: pyenv interpreter under /root is not, without bwrap), and quick to start.
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

#: Small limits so the limit tests finish quickly.
FAST = SandboxConfig(
    memory_mb=128,
    cpu_seconds=1,
    max_processes=64,
    file_size_mb=8,
    scratch_mb=16,
    cpu_poll_s=0.05,
)


def bot(name: str, *args: str) -> list[str]:
    """Returns the argv that runs tests/referee/sandbox/bots/<name>.py."""
    return bot_argv(name, *args, folder=BOTS, python=PYTHON)


@pytest.fixture(scope="session")
def capabilities() -> Capabilities:
    """What this machine allows, measured once for the session."""
    return detect_capabilities()


def why_missing(caps: Capabilities, mechanism: Mechanism) -> str | None:
    """Says why a mechanism cannot run here, or None when it can."""
    if mechanism is Mechanism.BWRAP and caps.bwrap is None:
        return f"bwrap unavailable on this machine: {caps.bwrap_problem}"
    if mechanism is Mechanism.UNSHARE and caps.unshare is None:
        return f"unshare unavailable on this machine: {caps.unshare_problem}"
    return None


def make_plan(caps: Capabilities, mechanism: Mechanism, **changes: object) -> SandboxPlan:
    """Plans the FAST config for one mechanism, skipping the test if it is missing here."""
    reason = why_missing(caps, mechanism)
    if reason:
        pytest.skip(reason)
    config = dataclasses.replace(FAST, mechanism=mechanism.value, **changes)
    return plan_sandbox(config, caps)


@pytest.fixture(params=list(Mechanism), ids=lambda m: m.value)
def mechanism(request: pytest.FixtureRequest) -> Mechanism:
    """Each containment mechanism in turn."""
    value: Mechanism = request.param
    return value


@pytest.fixture
def marker() -> str:
    """A unique string passed to a bot's command so that its processes can be found."""
    return f"sandbox-test-{uuid.uuid4().hex}"


def open_fds() -> set[int]:
    """Returns the file descriptors this process has open."""
    return {int(fd) for fd in os.listdir("/proc/self/fd")}


def rss_bytes() -> int:
    """Returns this process's resident memory."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def our_cgroups(caps: Capabilities) -> list[str]:
    """Returns the cgroups this process created and has not removed."""
    if caps.cgroup is None:
        return []
    prefix = f"{CGROUP_PREFIX}.{os.getpid()}."
    return [
        os.path.join(parent, name)
        for _controller, parent in caps.cgroup.parents
        for name in os.listdir(parent)
        if name.startswith(prefix)
    ]


def wait_gone(marker: str, within: float = 1.0) -> float:
    """Waits until no live process has ``marker`` in its command line; returns how long."""
    start = time.monotonic()
    while live_processes_with(marker) and time.monotonic() - start < within:
        time.sleep(0.005)
    return time.monotonic() - start


@pytest.fixture
def clean(marker: str, capabilities: Capabilities) -> Iterator[None]:
    """After the test: no process of the bot, no leaked fd, no cgroup, bounded RSS."""
    fds = open_fds()
    rss = rss_bytes()
    yield
    wait_gone(marker)
    assert live_processes_with(marker) == []
    assert open_fds() == fds
    assert our_cgroups(capabilities) == []
    assert rss_bytes() - rss < 64 << 20
