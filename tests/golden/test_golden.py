"""The golden replays (tests/data/golden/, written by ``python3 -m tests.golden.make_golden``):
the same seed and bots still give byte-identical replays, every golden still verifies, and both
viewers still show each one exactly as committed.

When one of these fails after a deliberate change (of a game, the replay format or a viewer),
rewrite the files with ``python3 -m tests.golden.make_golden`` and review ``git diff
tests/data/golden`` before committing them; otherwise the failure is a regression.
"""

from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.games.registry import GAMES
from arena.replay import decode_replay, read_replay
from arena.verify import verify_replay
from tests.golden.make_golden import (
    CASES,
    GOLDEN,
    REGENERATE,
    ROOT,
    Case,
    data_text,
    page_data,
    paths,
    replay_bytes,
    unmet,
    view_text,
    viewer_json,
)
from tests.view.browser import ViewerPage

BY_NAME = {case.name: case for case in CASES}
NAMES = list(BY_NAME)
#: The golden each browser test opens: one per game, with failures, strikes and a restart.
BROWSER_GOLDENS = ["matador-3p-lenient", "fives-2p-lenient"]


def differs(path: Path, expected: str, actual: str) -> str:
    """The failure message: which golden differs, the first difference, and the command that
    rewrites the goldens when the change is deliberate."""
    if "\n" in expected.rstrip("\n"):
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "committed", "now", lineterm="", n=1
        )
        shown = "\n".join(line[:200] for line in list(diff)[:20])
    else:  # a replay is one line: show where it starts to differ
        at = next(
            (i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
            min(len(expected), len(actual)),
        )
        shown = f"committed ...{expected[max(at - 80, 0) : at + 80]}...\n"
        shown += f"now       ...{actual[max(at - 80, 0) : at + 80]}..."
        shown = f"first difference at character {at}:\n{shown}"
    return (
        f"{path.relative_to(ROOT)} differs from what the code gives now.\n{shown}\n"
        f"If the change is deliberate, rewrite the golden files with `{REGENERATE}` "
        "and review `git diff tests/data/golden`."
    )


def test_the_golden_folder_holds_exactly_the_cases_files() -> None:
    """Every case has its three files, and there is no file of a case that no longer exists."""
    expected = {p.name for name in NAMES for p in paths(name)} | {"README.md"}
    assert {p.name for p in GOLDEN.iterdir()} == expected, (
        f"tests/data/golden does not match the cases of tests/golden/make_golden.py: "
        f"run `{REGENERATE}`"
    )


def test_the_goldens_stay_small() -> None:
    """All the golden files together stay near 1 MB (a few hands per match)."""
    total = sum(p.stat().st_size for p in GOLDEN.iterdir())
    assert total < 1_100_000, f"the golden files take {total} bytes"


def test_the_readme_lists_every_case() -> None:
    """tests/data/golden/README.md names each case."""
    readme = (GOLDEN / "README.md").read_text(encoding="utf-8")
    missing = [name for name in NAMES if f"`{name}`" not in readme]
    assert not missing, f"tests/data/golden/README.md does not describe {missing}"


# -- (a) the referee: a fresh match gives the committed bytes ----------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_fresh_match_gives_the_committed_replay_byte_for_byte(name: str) -> None:
    """Playing the case again (MockClock, same seed and scripted bots) gives exactly the
    committed replay file, once ``started_at`` and ``workdir`` are normalised."""
    path = paths(name)[0]
    expected = path.read_bytes()
    actual = replay_bytes(BY_NAME[name])
    if actual != expected:
        pytest.fail(differs(path, expected.decode(), actual.decode()), pytrace=False)


@pytest.mark.parametrize("name", NAMES)
def test_each_golden_shows_what_its_case_is_for(name: str) -> None:
    """The committed replay has the statuses, strikes, restarts, end reason... its case is
    there for (``Case.expect``)."""
    case: Case = BY_NAME[name]
    replay = decode_replay(paths(name)[0].read_bytes())
    assert unmet(case, replay) == []


def test_the_goldens_cover_every_game_player_count_policy_and_failure_kind() -> None:
    """Between them the goldens play both games, Matador with 2, 3 and 4 players, every
    failure policy, and every failure kind a bot in memory can make."""
    replays = [read_replay(paths(name)[0]) for name in NAMES]
    assert {(r.game, r.players) for r in replays} == {
        ("matador", 2),
        ("matador", 3),
        ("matador", 4),
        ("fives", 2),
    }
    assert {r.policy.name for r in replays} == {"strict", "classroom", "lenient"}
    assert {r.result.reason for r in replays} == {"target", "hands", "forfeit"}
    kinds = {s.status.value for r in replays for s in r.seats}
    assert kinds == {"ok", "timeout", "crash", "bad_message", "illegal_move", "line_too_long"}
    phases = {s.failure.phase for r in replays for s in r.seats if s.failure is not None}
    assert phases == {"startup", "move", "notify"}
    matador = GAMES["matador"]
    defaults = matador.rules_dict(matador.parse_rules({}))
    assert any(
        all(r.rules[k] != v for k, v in defaults.items()) for r in replays if r.game == "matador"
    ), "no Matador golden sets every variant flag"


# -- (b) the verifier ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_golden_verifies(name: str) -> None:
    """``arena verify`` (``arena.verify.verify_replay``) accepts every golden replay."""
    report = verify_replay(read_replay(paths(name)[0]))
    assert report.ok, report.error


#: Runs ``python3 -m arena verify FILE`` for each FILE in one interpreter (``runpy`` runs
#: ``arena/__main__.py`` exactly as ``-m`` does), printing each exit code: one process start
#: instead of one per file.
_VERIFY_EACH = """
import runpy, sys
for path in sys.argv[1:]:
    sys.argv = ["arena", "verify", path]
    try:
        runpy.run_module("arena", run_name="__main__", alter_sys=True)
    except SystemExit as end:
        print(f"exit {end.code}", flush=True)
"""


def test_arena_verify_passes_on_every_golden_file_in_a_real_process() -> None:
    """``python3 -m arena verify FILE`` prints ``OK: FILE: ...`` and exits 0 for every golden."""
    files = [str(paths(name)[0].relative_to(ROOT)) for name in NAMES]
    done = subprocess.run(
        [sys.executable, "-c", _VERIFY_EACH, *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 2 * len(files), done.stdout
    for path, said, code in zip(files, lines[::2], lines[1::2], strict=True):
        assert said.startswith(f"OK: {path}: "), said
        assert said.endswith(" verified"), said
        assert code == "exit 0", (path, code)


# -- (c) the terminal viewer -----------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_the_terminal_viewer_shows_each_golden_as_committed(name: str) -> None:
    """``arena view FILE --all`` prints exactly the committed ``NAME.view.txt``."""
    replay_path, view_path, _ = paths(name)
    expected = view_path.read_text(encoding="utf-8")
    actual = view_text(replay_path)
    if actual != expected:
        pytest.fail(differs(view_path, expected, actual), pytrace=False)


# -- (d) the HTML viewer -----------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_the_html_viewer_carries_the_committed_data_for_each_golden(
    name: str, tmp_path: Path
) -> None:
    """The data embedded in the page ``arena view FILE --html`` writes is exactly the
    committed ``NAME.viewer.json``."""
    replay_path, _, data_path = paths(name)
    expected = data_path.read_text(encoding="utf-8")
    actual = viewer_json(replay_path, tmp_path / "page.html")
    if actual != expected:
        pytest.fail(differs(data_path, expected, actual), pytrace=False)


def test_the_golden_viewer_data_is_json_written_one_step_a_line() -> None:
    """``data_text`` keeps the data whole: reading a golden back gives the same text."""
    path = paths("fives-2p-target")[2]
    text = path.read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    assert data_text(data) == text
    assert len(text.splitlines()) > len(data["steps"])
    page = '<script type="application/json" id="viewer-data">{"a":1}</script>'
    assert page_data(page) == {"a": 1}


@pytest.mark.parametrize("name", BROWSER_GOLDENS)
def test_the_page_of_a_golden_steps_to_its_last_move_without_a_script_error(
    name: str, viewer: ViewerPage, tmp_path: Path
) -> None:
    """In Chromium, the page of one golden of each game opens, steps through every step and
    ends on the match's end (the ``viewer`` fixture fails the test on any script error)."""
    replay_path, _, data_path = paths(name)
    page = tmp_path / f"{name}.html"
    viewer_json(replay_path, page)
    steps = json.loads(data_path.read_text(encoding="utf-8"))["steps"]
    first = viewer.open(page)  # the page numbers its steps from 1
    assert first["error"] is None
    states = viewer.every_step()
    assert [s["step"] for s in states] == list(range(1, len(steps) + 1))
    assert viewer.press("Home")["step"] == 1
    last = viewer.press("End")
    assert last["step"] == len(steps)
    assert last["text"] == steps[-1]["text"]
