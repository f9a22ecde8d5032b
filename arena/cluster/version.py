"""The arena's version as installed: a worker must run the coordinator's."""

from __future__ import annotations

from importlib import metadata

#: The distribution every machine of a cluster installs (``pip install matador-arena[cluster]``).
DISTRIBUTION = "matador-arena"


def arena_version() -> str:
    """The installed version of the arena, or ``"unknown"`` when it is not installed as a
    package (run from a source folder without ``pip install``)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"
