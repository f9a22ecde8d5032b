"""While it serves, the server's process collects garbage less often and never scans what
was made before it started; both are undone when it stops."""

from __future__ import annotations

import gc

from arena.serve.server import GC_YOUNG_THRESHOLD, _collect_less


def test_serving_freezes_the_old_objects_and_collects_less_until_it_stops() -> None:
    """Inside, the objects made before are frozen and the youngest generation's threshold is
    :data:`GC_YOUNG_THRESHOLD`; after, the thresholds and the frozen objects are as before."""
    before = gc.get_threshold()
    frozen = gc.get_freeze_count()
    with _collect_less():
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > frozen
    assert gc.get_threshold() == before
    if frozen == 0:
        assert gc.get_freeze_count() == 0
    else:  # frozen by someone else before: left frozen
        assert gc.get_freeze_count() >= frozen
