"""A ``dask worker --preload``: this worker's PATH has no bubblewrap (a weaker host)."""

import os

os.environ["PATH"] = os.pathsep.join(
    d for d in os.environ["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(d, "bwrap"))
)
