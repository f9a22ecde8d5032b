"""The arena's version as installed: a worker must run the coordinator's."""

from __future__ import annotations

from importlib import metadata

from arena import SLUG

#: The distribution every machine of a cluster installs (``pip install NAME[cluster]``).
DISTRIBUTION = f"{SLUG}-arena"


def arena_version() -> str:
    """The installed version of the arena, or ``"unknown"`` when it is not installed as a
    package (run from a source folder without ``pip install``)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"
