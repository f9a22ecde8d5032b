"""Finding leftover processes: every test that runs bots checks that none survives."""

from __future__ import annotations

from pathlib import Path


def live_processes_with(marker: str) -> list[int]:
    """Pids of live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if marker.encode() in cmdline and "State:\tZ" not in status:
            found.append(int(entry.name))
    return found
