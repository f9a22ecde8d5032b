"""Integers stay exact in the pages: a seed above 2**53 (JavaScript's last exact integer) shows
and copies with every digit, in the viewer page and in the tournament report, in the browser."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from arena.replay import Action, Replay, write_replay
from arena.view import html
from tests.view.browser import ViewerPage
from tests.view.matches import play_scripted, scripted_bot

#: The seed of the issue: JavaScript reads it as 3865857861745209856 and shows 3865857861745210000.
SEED = 3865857861745209631
ROUNDED = "3865857861745210000"
#: Request ids far beyond 2**53 (a replay may hold any integer).
BIG_ID = 2**60 + 1


@pytest.fixture(scope="module")
def big_seed() -> Replay:
    """Two seats, one hand, seed :data:`SEED`."""
    return play_scripted([scripted_bot("first"), scripted_bot("second")], seed=SEED)


def with_big_numbers(replay: Replay) -> Replay:
    """``replay`` with every request id moved to :data:`BIG_ID` and up, and a move limit of
    2**60 + 3 ms: integers the viewer shows that no real match reaches."""
    counter = iter(range(BIG_ID, BIG_ID + 10_000))
    hands = []
    for hand in replay.hands:
        events = [
            msgspec.structs.replace(e, request_id=next(counter))
            if isinstance(e, Action) and e.request_id is not None
            else e
            for e in hand.events
        ]
        hands.append(msgspec.structs.replace(hand, events=events))
    time = msgspec.structs.replace(replay.time, move_ms=2**60 + 3)
    return msgspec.structs.replace(replay, hands=hands, time=time)


def unsafe_numbers(value: Any) -> list[int]:
    """Every JSON number in ``value`` that a JavaScript number cannot hold exactly."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [] if abs(value) <= 2**53 - 1 else [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in unsafe_numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in unsafe_numbers(v)]
    return []


def embedded(page: str) -> Any:
    """The JSON document inside a viewer page's data element."""
    found = re.search(r'id="viewer-data">(.*?)</script>', page, re.DOTALL)
    assert found is not None
    return json.loads(found.group(1))


# -- without a browser -------------------------------------------------------------------------


def test_exact_integers_turns_only_unsafe_integers_into_strings() -> None:
    """Integers within ±(2**53 - 1) stay numbers, larger ones become their digits, at any
    depth; booleans, floats and strings are left alone."""
    edge = 2**53 - 1
    data = {"a": [edge, -edge, edge + 1, -(edge + 1)], "b": {"c": (SEED, True, 1.5, "7")}}
    assert html.exact_integers(data) == {
        "a": [edge, -edge, str(edge + 1), str(-(edge + 1))],
        "b": {"c": [str(SEED), True, 1.5, "7"]},
    }


def test_the_data_holds_the_seed_and_request_ids_as_digits(big_seed: Replay) -> None:
    """Seeds and request ids are strings in the data, whatever their size; no JSON number in
    the page is beyond 2**53 - 1, even for integers no real match reaches."""
    data = html.viewer_data(big_seed)
    assert data["match"]["seed"] == str(SEED)
    ids = [s["request_id"] for s in data["steps"] if s["kind"] == "move"]
    assert ids
    assert all(isinstance(i, str) and i.isdigit() for i in ids)
    page = embedded(html.html_page(with_big_numbers(big_seed)))
    assert unsafe_numbers(page) == []
    assert page["match"]["time"]["move_ms"] == str(2**60 + 3)
    assert page["title"].endswith(f"(seed {SEED})")


# -- in the browser ----------------------------------------------------------------------------

# Every text a user can read or copy: the page's text, its title, and the tooltips.
_TEXTS_JS = """
() => ({
  text: document.body.innerText,
  title: document.title,
  tooltips: [...document.querySelectorAll("[title]")].map((e) => e.getAttribute("title")),
  seed: window.arenaViewer ? window.arenaViewer.data.match.seed : null,
})
"""


def selected_text(viewer: ViewerPage, selector: str) -> str:
    """What a user copies after selecting the element ``selector`` (a triple click does)."""
    viewer.page.locator(selector).first.select_text()
    copied: str = viewer.page.evaluate("() => window.getSelection().toString()")
    return copied


def test_the_viewer_shows_and_copies_the_exact_seed(
    viewer: ViewerPage, big_seed: Replay, tmp_path: Path
) -> None:
    """A replay with a seed above 2**53: the header chip, the match-start sentence and the
    window title show every digit, and selecting the chip copies them; the rounded number
    appears nowhere."""
    page = html.write_html(big_seed, tmp_path / "seed.html")
    viewer.open(page)
    shown = viewer.page.evaluate(_TEXTS_JS)
    assert shown["seed"] == str(SEED)
    assert f"seed {SEED}" in shown["text"]
    assert shown["title"].endswith(f"(seed {SEED})")
    assert ROUNDED not in shown["text"] + shown["title"] + " ".join(shown["tooltips"])
    chip = viewer.page.locator(".topbar .chip", has_text="seed")
    assert chip.count() == 1
    assert chip.text_content() == f"seed {SEED}"
    assert selected_text(viewer, ".topbar .chip:has-text('seed')") == f"seed {SEED}"
    state = viewer.open(page, "#move=1")
    assert f"seed {SEED}" in (state["text"] or "")


def test_the_viewer_shows_integers_beyond_2_53_exactly(
    viewer: ViewerPage, big_seed: Replay, tmp_path: Path
) -> None:
    """Request ids and a move limit beyond 2**53 show with every digit in the clock line and
    the match card (the page never turns them into JavaScript numbers)."""
    replay = with_big_numbers(big_seed)
    page = html.write_html(replay, tmp_path / "big.html")
    state = viewer.open(page)
    assert f"{2**60 + 3} ms per move" in viewer.page.evaluate(_TEXTS_JS)["text"]
    state = viewer.open(page, "#move=3")  # the match start, the deal, then the first move
    first = next(e for h in replay.hands for e in h.events if isinstance(e, Action))
    assert first.request_id == BIG_ID
    assert state["clock"] is not None
    assert state["clock"].endswith(f" · request {BIG_ID}")


def test_the_report_and_its_pages_show_the_exact_seed(viewer: ViewerPage, tmp_path: Path) -> None:
    """A tournament whose seed and table seed are above 2**53: the report's header shows the
    tournament seed's digits, and the viewer page the report makes for the match shows the
    match seed's."""
    from arena.tournament.html_report import write_report
    from arena.tournament.jobs import summarize
    from arena.tournament.settings import TournamentSettings
    from arena.tournament.store import EntrantRow, Store, TableRow

    tournament_seed = SEED + 1
    replay = play_scripted([scripted_bot("a"), scripted_bot("b")], seed=SEED)
    replay_path = write_replay(tmp_path / "replays" / "t00000.json", replay)
    store = Store(tmp_path / "tournament.db")
    store.create(
        TournamentSettings(game="matador", hands=1, target=None, seed=tournament_seed).to_dict(),
        [EntrantRow(i + 1, n, f"bot{i}", None, None, None) for i, n in enumerate("ab")],
        [TableRow(0, 1, replay.seed, 0, 0, (1, 2))],
    )
    store.record(store.tables()[0], summarize(replay), str(replay_path), "2026-01-01T00:00:00")
    write_report(store, tmp_path / "report.html")
    store.close()
    viewer.page.goto((tmp_path / "report.html").resolve().as_uri())
    viewer.page.wait_for_selector("tr.match")
    text: str = viewer.page.evaluate("() => document.body.innerText")
    assert f"seed {tournament_seed}" in text
    assert ROUNDED not in text  # what JavaScript would show for it
    match_page = replay_path.with_suffix(".html")
    assert match_page.is_file()
    viewer.open(match_page)
    assert viewer.page.evaluate(_TEXTS_JS)["seed"] == str(SEED)
    assert selected_text(viewer, ".topbar .chip:has-text('seed')") == f"seed {SEED}"
