"""``arena report`` and the report ``arena tournament`` writes at its end, driven in headless
Chromium.

The tournaments are real: ``arena tournament`` runs three quick bots (one plays an illegal move
at its third request) in the test. The expectations come from the database by plain SQL and from
the replays (:mod:`tests.view.tournaments`), never from the report's own code.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from arena.replay import read_replay
from arena.text import seat_name
from arena.view.steps import StepKind, build_steps
from tests.view.browser import ViewerPage
from tests.view.matches import ROOT, play_scripted, scripted_bot
from tests.view.tournaments import (
    PY,
    Played,
    expected_cross,
    expected_points,
    play_tournament,
    stored_matches,
)

# -- the tournaments ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """Three bots, two players a table, round robin with both seatings: six matches, the
    illegal-move bot failing in each of its four."""
    return play_tournament(tmp_path_factory.mktemp("duel") / "out")


@pytest.fixture(scope="module")
def threesome(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The same three bots, three players a table."""
    return play_tournament(tmp_path_factory.mktemp("three") / "out", "--players", "3")


# What the tests read of the report, in one round trip.
_REPORT_JS = """
() => {
  const q = (sel, root) => [...(root || document).querySelectorAll(sel)];
  const text = (el) => (el ? el.textContent.trim() : null);
  const link = (el) => (el ? { href: el.href, attr: el.getAttribute("href") } : null);
  return {
    standings: q("tr.standing").map((tr) => ({
      name: tr.dataset.name,
      place: Number(text(tr.querySelector(".c-place"))),
      points: text(tr.querySelector(".c-points b")),
      wdl: text(tr.querySelector(".c-wdl")),
      matches: Number(text(tr.querySelector(".c-matches"))),
      failures: text(tr.querySelector(".c-failures")),
    })),
    ratingHeads: q("table.ratings thead th").map(text),
    ratings: q("tr.rating").map((tr) => tr.dataset.name),
    cross: q("table.cross-table td.cross:not(.self)").map((td) => ({
      row: td.dataset.row, col: td.dataset.col, text: text(td),
    })),
    crossSelf: q("table.cross-table td.cross.self").length,
    matches: q("tr.match").map((tr) => ({
      table: Number(tr.dataset.table),
      round: Number(text(tr.cells[1])),
      shown: getComputedStyle(tr).display !== "none",
      seats: q(".seat", tr).map((s) => ({
        name: s.dataset.name,
        score: Number(text(s.querySelector(".score"))),
        status: s.dataset.status,
        won: s.classList.contains("won"),
        failureLink: link(s.querySelector("a.status-link")),
      })),
      result: text(tr.querySelector(".c-result")),
      view: link(tr.querySelector("a.view-link")),
      json: link(tr.querySelector("a.json-link")),
      note: text(tr.querySelector(".link-note")),
    })),
    failures: q("li.failure").map((li) => ({
      bot: li.closest("article").dataset.name,
      table: Number(li.dataset.table),
      seat: Number(li.dataset.seat),
      status: li.dataset.status,
      detail: text(li.querySelector(".fdetail")),
      evidence: link(li.querySelector("a.evidence-link")),
    })),
    count: text(document.getElementById("match-count")),
    links: q("a[href]").map((a) => a.getAttribute("href")),
  };
}
"""


def read_report(viewer: ViewerPage, report: Path) -> dict[str, Any]:
    """Open the report from disk and read what it shows."""
    viewer.page.goto(report.resolve().as_uri())
    viewer.page.wait_for_selector("tr.match")
    result: dict[str, Any] = viewer.page.evaluate(_REPORT_JS)
    return result


def file_of(url: str) -> tuple[Path, str]:
    """The file a ``file://`` URL names, and its fragment."""
    parts = urllib.parse.urlsplit(url)
    assert parts.scheme == "file", url
    return Path(urllib.parse.unquote(parts.path)), parts.fragment


def retire_step(replay_path: Path, seat: int) -> int:
    """The 1-based step at which ``seat`` is retired, found by walking the replay's steps."""
    steps = build_steps(read_replay(replay_path))
    return next(
        number
        for number, step in enumerate(steps, start=1)
        if step.kind is StepKind.RETIRE and step.seat == seat
    )


# -- the report in the browser -----------------------------------------------------------------


def test_standings_are_in_order_with_the_stored_numbers(viewer: ViewerPage, duel: Played) -> None:
    """The standings list every bot once, ordered by points then wins, with the points, W-D-L
    and match counts computed from the stored ranks; the failing bot is last with its failures."""
    shown = read_report(viewer, duel.report)["standings"]
    expected = expected_points(stored_matches(duel.db))
    order = sorted(expected, key=lambda name: (-expected[name][0], -expected[name][1], name))
    assert [line["name"] for line in shown] == order
    assert [line["place"] for line in shown] == [1, 2, 3]
    for line in shown:
        points, wins, draws, losses = expected[line["name"]]
        assert float(line["points"]) == pytest.approx(points, abs=0.01)
        assert line["wdl"] == f"{wins}-{draws}-{losses}"
        assert line["matches"] == wins + draws + losses == 4
    assert shown[-1]["name"] == "player"
    assert shown[-1]["points"] == "0"
    assert shown[-1]["failures"] == "illegal_move 4"


def test_every_match_links_to_its_viewer_page(viewer: ViewerPage, duel: Played) -> None:
    """Each stored match is one row (seats, scores, statuses, winner as stored) whose view link
    is relative and opens the viewer page beside the match's replay, showing the same seats."""
    report = read_report(viewer, duel.report)
    stored = stored_matches(duel.db)
    assert [row["table"] for row in report["matches"]] == [m.table for m in stored]
    for row, match in zip(report["matches"], stored, strict=True):
        assert row["round"] == match.round
        assert [(s["name"], s["score"], s["status"]) for s in row["seats"]] == [
            (s.entrant, s.score, s.status) for s in match.seats
        ]
        assert [s["won"] for s in row["seats"]] == [i == match.winner for i in range(2)]
        assert match.winner is not None
        assert row["result"].startswith(f"{match.seats[match.winner].entrant} wins")
        assert row["note"] is None
        page, fragment = file_of(row["view"]["href"])
        assert row["view"]["attr"] == f"replays/{page.name}"  # relative to the report
        assert page == Path(match.replay).with_suffix(".html")
        assert page.is_file()
        assert fragment == ""
        assert file_of(row["json"]["href"])[0] == Path(match.replay)
    for row, match in zip(report["matches"], stored, strict=True):
        state = viewer.open(file_of(row["view"]["href"])[0])
        assert state["error"] is None
        assert state["step"] == 1
        names = [state["seats"][str(i)]["name"] for i in range(2)]
        assert names == [seat_name(seat) for seat in read_replay(match.replay).seats]


def test_failure_links_open_the_viewer_at_the_failure(viewer: ViewerPage, duel: Played) -> None:
    """Every stored failure is listed under its bot with its status and detail, and its link
    opens the match's viewer page at the step that retires that seat, showing the evidence."""
    report = read_report(viewer, duel.report)
    stored = {m.table: m for m in stored_matches(duel.db)}
    failed = sorted(
        (table, seat)
        for table, match in stored.items()
        for seat, s in enumerate(match.seats)
        if s.status != "ok"
    )
    assert len(failed) == 4
    assert sorted((f["table"], f["seat"]) for f in report["failures"]) == failed
    status_links = {
        (row["table"], i): s["failureLink"]
        for row in report["matches"]
        for i, s in enumerate(row["seats"])
        if s["failureLink"] is not None
    }
    assert sorted(status_links) == failed
    for item in report["failures"]:
        match = stored[item["table"]]
        seat = match.seats[item["seat"]]
        assert item["bot"] == seat.entrant == "player"
        assert item["status"] == seat.status == "illegal_move"
        assert item["detail"] == seat.detail
        page, fragment = file_of(item["evidence"]["href"])
        assert page == Path(match.replay).with_suffix(".html")
        step = retire_step(Path(match.replay), item["seat"])
        assert fragment == f"move={step}"
        assert status_links[(item["table"], item["seat"])]["href"] == item["evidence"]["href"]
        state = viewer.open(page, "#" + fragment)
        assert state["step"] == step
        assert state["current"]["text"].startswith("retired: illegal_move")
        assert state["evidence"] is not None
        assert seat.detail in state["evidence"]


@pytest.mark.parametrize("tournament", ["duel", "threesome"])
def test_cross_table_cells_match_the_store(
    viewer: ViewerPage, tournament: str, request: pytest.FixtureRequest
) -> None:
    """Every off-diagonal cross-table cell reads the row's points over the games it met the
    column, as computed from the stored ranks, for two and for three players a table."""
    played: Played = request.getfixturevalue(tournament)
    report = read_report(viewer, played.report)
    expected = expected_cross(stored_matches(played.db))
    shown = {(c["row"], c["col"]): c["text"] for c in report["cross"]}
    assert set(shown) == set(expected)
    for pair, (points, games) in expected.items():
        assert shown[pair] == f"{points:g}/{games}", pair
    assert report["crossSelf"] == 3


def test_elo_columns_only_for_two_players(
    viewer: ViewerPage, duel: Played, threesome: Played
) -> None:
    """The ratings list every bot; Elo columns appear for a two-player tournament only."""
    two = read_report(viewer, duel.report)
    three = read_report(viewer, threesome.report)
    for report in (two, three):
        assert sorted(report["ratings"]) == ["greedy", "player", "random_bot"]
    assert any("Elo" in head for head in two["ratingHeads"])
    assert not any("Elo" in head for head in three["ratingHeads"])


def test_the_report_works_from_disk(viewer: ViewerPage, duel: Played) -> None:
    """Opened from file://, the report requests nothing but itself, links only by relative
    paths or fragments, and its filters show exactly the matching matches."""
    report = read_report(viewer, duel.report)
    assert viewer.requests == [duel.report.resolve().as_uri()]
    assert all(not re.match(r"^[a-z]+:|^/", href) for href in report["links"]), report["links"]
    assert report["count"] == "6 of 6 matches"
    page = viewer.page
    page.select_option("#filter-bot", "greedy")
    shown = [r for r in viewer.page.evaluate(_REPORT_JS)["matches"] if r["shown"]]
    assert len(shown) == 4
    assert all("greedy" in [s["name"] for s in r["seats"]] for r in shown)
    page.select_option("#filter-bot", "")
    page.check("#filter-failed")
    after = viewer.page.evaluate(_REPORT_JS)
    shown = [r for r in after["matches"] if r["shown"]]
    assert {r["table"] for r in shown} == {f["table"] for f in after["failures"]}
    assert after["count"] == "4 of 6 matches"
    page.uncheck("#filter-failed")
    page.fill("#filter-text", "random_bot greedy")
    shown = [r for r in viewer.page.evaluate(_REPORT_JS)["matches"] if r["shown"]]
    assert len(shown) == 2
    page.fill("#filter-text", "")
    page.click("table.matches thead th:nth-child(6)")  # moves, ascending
    page.click("table.matches thead th:nth-child(6)")  # then descending
    moves = page.eval_on_selector_all(
        "tr.match", "rows => rows.map((r) => Number(r.cells[5].textContent))"
    )
    assert moves == sorted(moves, reverse=True)
    assert len(viewer.requests) == 1


# -- without a browser -------------------------------------------------------------------------


def test_a_tournament_ends_by_writing_its_report(duel: Played) -> None:
    """``arena tournament`` writes OUT/report.html and says where; each replay has its viewer
    page beside it, written by the worker."""
    assert f"report:   {duel.report}   (open it in a browser" in duel.stdout
    text = duel.report.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    for name in ("greedy", "random_bot", "player"):
        assert f'data-name="{name}"' in text
    replays = sorted((duel.out / "replays").glob("*.json"))
    assert len(replays) == 6
    assert all(r.with_suffix(".html").is_file() for r in replays)
    assert "viewer page" not in duel.stderr


def _row(report: str, table: int) -> str:
    """The HTML of match ``table``'s row in the report."""
    start = report.index(f'id="match-{table}"')
    return report[start : report.index("</tr>", start)]


def test_report_makes_missing_pages_and_says_what_it_cannot_show(tmp_path: Path) -> None:
    """``arena report`` makes a missing viewer page from its replay, links a replay that cannot
    be shown as JSON, and names a missing replay, saying so on stderr; links start from the
    report's folder."""
    played = play_tournament(tmp_path / "t", bots=[f"{PY} sample_bots/greedy.py"] * 2)
    replays = sorted((played.out / "replays").glob("*.json"))
    assert len(replays) == 2
    replays[0].with_suffix(".html").unlink()  # made again
    replays[1].write_text("not a replay")  # linked as JSON
    replays[1].with_suffix(".html").unlink()
    out = tmp_path / "elsewhere" / "r.html"
    run = subprocess.run(
        [PY, "-m", "arena", "report", "--db", str(played.db), "-o", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout == (
        f"wrote {out} (2 matches, 1 viewer page(s) made from their replays; open it in a browser)\n"
    )
    assert replays[0].with_suffix(".html").is_file()
    assert "table 1: the replay cannot be shown" in run.stderr
    report = out.read_text(encoding="utf-8")
    first, second = _row(report, 0), _row(report, 1)
    assert f'href="../t/replays/{replays[0].with_suffix(".html").name}"' in first
    assert "view-link" not in second
    assert f'href="../t/replays/{replays[1].name}"' in second
    assert "linked as JSON" in second
    replays[1].unlink()
    run = subprocess.run(
        [PY, "-m", "arena", "report", "--db", str(played.db)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "table 1: replay file not found" in run.stderr
    second = _row(played.report.read_text(encoding="utf-8"), 1)
    assert "replay file not found" in second
    assert "href=" not in second


def test_the_report_folder_moves_with_its_replays(tmp_path: Path, duel: Played) -> None:
    """A tournament folder copied elsewhere is reported from its own replays and pages."""
    copy = tmp_path / "copy"
    shutil.copytree(duel.out, copy)
    (copy / "report.html").unlink()
    run = subprocess.run(
        [PY, "-m", "arena", "report", "--db", str(copy / "tournament.db")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = (copy / "report.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'class="button view-link" href="([^"]+)"', report)
    assert len(hrefs) == 6
    assert all(h.startswith("replays/") and (copy / h).is_file() for h in hrefs)


def test_report_command_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    """No database, or an output that is a folder, is a usage error (exit code 2)."""
    run = subprocess.run(
        [PY, "-m", "arena", "report", "--db", str(tmp_path / "none.db")],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 2
    assert "no tournament database" in run.stderr
    db = tmp_path / "t.db"
    db.touch()
    run = subprocess.run(
        [PY, "-m", "arena", "report", "--db", str(db), "-o", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 2
    assert "is a directory" in run.stderr


def test_a_store_written_directly_with_markup_in_names(viewer: ViewerPage, tmp_path: Path) -> None:
    """A database written directly with a real replay, bots named with markup: the names show
    as text and run nothing, the missing viewer page is made, and the failure link opens it at
    the retirement."""
    from arena.replay import write_replay
    from arena.tournament.html_report import write_report
    from arena.tournament.jobs import summarize
    from arena.tournament.settings import TournamentSettings
    from arena.tournament.store import EntrantRow, Store, TableRow

    replay = play_scripted([scripted_bot("a"), scripted_bot("b", fail_at=3)], seed=6)
    replay_path = write_replay(tmp_path / "replays" / "t00000.json", replay)
    names = ['<img src=x onerror="document.title=1">', "b&amp;</script>"]
    store = Store(tmp_path / "tournament.db")
    store.create(
        TournamentSettings(game="matador", hands=1, target=None).to_dict(),
        [EntrantRow(i + 1, n, f"bot{i}", None, None, None) for i, n in enumerate(names)],
        [TableRow(0, 1, replay.seed, 0, 0, (1, 2))],
    )
    store.record(store.tables()[0], summarize(replay), str(replay_path), "2026-01-01T00:00:00")
    result = write_report(store, tmp_path / "report.html")
    store.close()
    assert result.pages_made == 1
    assert replay_path.with_suffix(".html").is_file()
    report = read_report(viewer, tmp_path / "report.html")
    assert [line["name"] for line in report["standings"]] == names
    assert [s["name"] for s in report["matches"][0]["seats"]] == names
    assert viewer.page.title().startswith("Tournament report")
    (failure,) = report["failures"]
    assert failure["bot"] == names[1]
    page, fragment = file_of(failure["evidence"]["href"])
    step = retire_step(replay_path, 1)
    assert fragment == f"move={step}"
    assert viewer.open(page, "#" + fragment)["step"] == step
