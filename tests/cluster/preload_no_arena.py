"""A ``dask worker --preload``: this worker cannot import the arena (as if not installed)."""

import sys

sys.modules["arena"] = None  # type: ignore[assignment]
