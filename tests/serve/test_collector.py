"""While it serves, the server's process collects garbage less often and never scans what
was made before it started; both are undone when it stops."""

from __future__ import annotations

import gc

import pytest
import trio

from arena.serve.hub import Hub
from arena.serve.server import GC_YOUNG_THRESHOLD, Address, _collect_less, bind, serving


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


@pytest.mark.parametrize("collect_less", [True, False])
def test_the_server_collects_less_only_where_no_match_is_played(collect_less: bool) -> None:
    """A server in a process that plays no match (a tournament's parent, ``arena serve``)
    changes the collector's threshold while it serves; ``arena play``'s, whose referee is in
    the same process, leaves it as it is."""
    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []

    async def main() -> None:
        sock = bind(Address("127.0.0.1", 0))
        try:
            async with serving(Hub(), sock, None, collect_less):
                seen.append(gc.get_threshold())
        finally:
            sock.close()

    trio.run(main)
    assert seen == [(GC_YOUNG_THRESHOLD, *before[1:]) if collect_less else before]
    assert gc.get_threshold() == before
