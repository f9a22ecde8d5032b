"""The replay's analysis section: what it holds, that it round-trips, and that the analysed
replay still verifies (``arena verify`` ignores the section)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from arena.analysis.analyzer import analyze_replay
from arena.analysis.evaluator import make_evaluator
from arena.analysis.files import analyze_file
from arena.analysis.record import ANALYSIS_VERSION, Analysis
from arena.analysis.summary import grade, seats_accuracy
from arena.cli import main
from arena.replay import Action, Replay, decode_replay, encode_replay, read_replay
from arena.verify import verify_replay
from tests.analysis.conftest import BOT


def test_every_decision_of_every_seat_is_analysed_in_replay_order(
    match: Replay, analysis: Analysis
) -> None:
    """One entry per move a bot chose (automatic moves have none), in order, each naming its
    hand, event, seat and the move played as the replay has it."""
    chosen = [
        (h.hand_number, i, e.seat, e.move)
        for h in match.hands
        for i, e in enumerate(h.events, start=1)
        if isinstance(e, Action) and not e.auto
    ]
    assert [(a.hand, a.event, a.seat, a.played) for a in analysis.moves] == chosen
    assert analysis.version == ANALYSIS_VERSION
    assert analysis.bot == BOT
    assert analysis.unit == "hand points"


def test_each_entry_is_consistent(analysis: Analysis) -> None:
    """Loss is best minus played and never negative; a best move played loses nothing; a forced
    move has one choice and no loss."""
    for entry in analysis.moves:
        assert entry.loss == pytest.approx(entry.best_value - entry.played_value, abs=2e-3)
        assert entry.loss >= 0
        if entry.best == entry.played:
            assert entry.loss == 0
        if entry.choices == 1:
            assert (entry.loss, entry.best) == (0, entry.played)
    assert any(entry.choices > 1 for entry in analysis.moves)


def test_the_seat_summaries_count_the_graded_decisions(analysis: Analysis) -> None:
    """Each seat's summary is the grades of its moves with a choice."""
    assert analysis.seats == seats_accuracy(2, analysis.moves, analysis.thresholds)
    for seat in analysis.seats:
        mine = [e for e in analysis.moves if e.seat == seat.seat and e.choices > 1]
        grades = [grade(e.loss, analysis.thresholds) for e in mine]
        assert seat.decisions == len(mine)
        assert (seat.inaccuracies, seat.mistakes, seat.blunders) == (
            grades.count("inaccuracy"),
            grades.count("mistake"),
            grades.count("blunder"),
        )
        assert seat.accuracy == round(100 * grades.count("ok") / len(mine), 1)


def test_a_fixed_budget_gives_the_same_analysis_again(match: Replay, analysis: Analysis) -> None:
    """The same replay, bot and seed: the same section."""
    assert analyze_replay(match, make_evaluator(BOT)) == analysis


def test_the_section_round_trips_and_a_replay_without_one_is_unchanged(
    match: Replay, analysis: Analysis
) -> None:
    """Encoded and read back, the analysed replay is equal; a replay without a section has no
    ``analysis`` key at all (its bytes are what they were)."""
    analysed = msgspec.structs.replace(match, analysis=analysis)
    assert decode_replay(encode_replay(analysed)) == analysed
    assert b'"analysis"' not in encode_replay(match)
    assert b'"analysis":{"version":1' in encode_replay(analysed)


def test_an_analysed_replay_still_verifies(replay_file: Path, tmp_path: Path) -> None:
    """``arena verify`` passes on the analysed file, with the same report as on the original."""
    out = tmp_path / "analysed.json"
    analyze_file(replay_file, make_evaluator(BOT), out=out)
    assert read_replay(out).analysis is not None
    assert verify_replay(read_replay(out)) == verify_replay(read_replay(replay_file))
    assert verify_replay(read_replay(out)).ok
    assert main(["verify", str(out)]) == 0


def test_a_reader_that_does_not_know_the_section_skips_it(
    match: Replay, analysis: Analysis
) -> None:
    """The replay's Struct does not forbid unknown fields: a format-2 reader without the
    ``analysis`` field (here: a copy of the Struct without it) reads the file as before."""
    older = msgspec.defstruct(
        "OlderReplay", [(f, object, None) for f in Replay.__struct_fields__ if f != "analysis"]
    )
    data = encode_replay(msgspec.structs.replace(match, analysis=analysis))
    read = msgspec.json.decode(data, type=older)
    assert read.seed == match.seed  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("game", "players"), [("matador", 3), ("matador", 4), ("fives", 2), ("block", 2)]
)
def test_every_game_and_player_count_is_analysed_and_still_verifies(
    game: str, players: int
) -> None:
    """Through the plugin registry: one hand of each game, every decision analysed, the
    analysed replay verifies."""
    from tests.view.matches import play_scripted, scripted_bot

    bots = [scripted_bot(f"b{i}", pick=i) for i in range(players)]
    replay = play_scripted(bots, seed=11, hands=1, game=game)
    analysis = analyze_replay(replay, make_evaluator("ref:search:samples=4"))
    chosen = sum(1 for h in replay.hands for e in h.events if isinstance(e, Action) and not e.auto)
    assert len(analysis.moves) == chosen
    assert [s.seat for s in analysis.seats] == list(range(players))
    assert verify_replay(msgspec.structs.replace(replay, analysis=analysis)).ok
