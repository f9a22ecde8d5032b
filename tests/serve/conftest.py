"""Fixtures of the live server's tests: a finished tournament's out folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO
from tests.serve.service import GREEDY, RANDOM


@pytest.fixture(scope="session")
def finished_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The out folder of a finished two-match tournament of the sample bots (seed 1)."""
    out = tmp_path_factory.mktemp("finished") / "out"
    args = [sys.executable, "-m", "arena", "tournament", GREEDY, RANDOM, "--hands", "2", "--seed"]
    args += ["1", "--out", str(out), "--concurrency", "2"]
    done = subprocess.run(
        args,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out
