"""One match followed as it is played: its viewer data, growing with each live event.

A :class:`LiveMatch` is fed the match's live events (`arena.live_events`) in order. It walks
them through the engine with the replay's own walk (`arena.replay_walk.ReplayFollower`) and
turns each step into the viewer's step data with the viewer's own code
(`arena.view.steps.StepMaker`, `arena.view.html.step_data`), so the live page and a replay's
page draw the same positions in the same words. Nothing here decides a rule.

Two views of every step:

- the **public** view (the default of every live page): no seat's tiles (each hand as that
  many hidden tiles, ``null``), the boneyard's size only, no tile drawn, no bot's debug note
  (a bot may write its hand there), and a failure only as the other seats read it
  (`arena.redaction`: no tile, nothing the bot wrote, no stderr). At a hand's end and the
  match's end the hands left are shown: every bot is told them then (``hand_end``).
- the **revealed** view (``--serve-reveal``): everything, as a replay shows it.

Step data is made on demand and kept, so a match nobody watches costs the walk only.
Pure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import msgspec

from arena.live_events import HandBegan, HandOver, LiveEvent, MatchBegan, MatchOver, Played
from arena.redaction import detail_for_others
from arena.replay import Failure, Replay
from arena.replay_walk import ReplayFollower
from arena.view.html import evidence_rows, step_data, viewer_data
from arena.view.steps import Step, StepKind, StepMaker, failure_text, game_of
from arena.view.table import table_data_of


class LiveMatch:
    """The viewer data of one match so far (``header``: its :class:`MatchBegan`).

    Raises (from :meth:`feed`):
        arena.replay_walk.ReplayMismatch: when an event disagrees with the engine.
    """

    def __init__(self, began: MatchBegan) -> None:
        self.header: Replay = began.replay
        self._follower = ReplayFollower(self.header)
        self._maker = StepMaker(self.header)
        self._first_end = game_of(self.header).drawing.line_ends[0]
        self._anchor = 0
        # Each step with the layout index of its hand's lead tile (the viewer's anchor).
        self.steps: list[tuple[Step, int]] = []
        self._data: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
        self.hands = 0
        self.over: MatchOver | None = None
        self._add(self._maker.first())

    def feed(self, event: LiveEvent) -> int:
        """Take the next event of the match; the number of steps it added."""
        before = len(self.steps)
        follower, maker = self._follower, self._maker
        if isinstance(event, HandBegan):
            self.hands = event.hand.hand_number
            self._anchor = 0
            self._add(maker.step(follower.hand_start(event.hand)))
        elif isinstance(event, Played):
            step = maker.step(follower.event(event.event))
            if step.kind is StepKind.MOVE and step.move is not None:
                self._anchor += step.move.end == self._first_end
            self._add(step)
        elif isinstance(event, HandOver):
            for walked in follower.hand_end(event.outcome):
                self._add(maker.step(walked))
        elif isinstance(event, MatchOver):
            self.over = event
            self.header = msgspec.structs.replace(
                self.header, seats=event.seats, result=event.result, duration_s=event.duration_s
            )
            self._maker.replay = self.header
            self._retirements_told()
            self._add(maker.step(follower.match_end(event.result, self.hands)))
        return len(self.steps) - before

    def _retirements_told(self) -> None:
        """A retirement's failure is told at the match's end (the seats' records): its steps
        are made again with it."""
        for index, (step, anchor) in enumerate(self.steps):
            if step.kind is StepKind.RETIRE and step.seat is not None:
                failure = self.header.seats[step.seat].failure
                self.steps[index] = (replace(step, failure=failure), anchor)
        self._data = {False: [], True: []}  # made again on demand, with the seats' strikes

    def _add(self, step: Step) -> None:
        self.steps.append((step, self._anchor))

    def step_data(self, start: int, reveal: bool) -> list[dict[str, Any]]:
        """The viewer data of the steps from ``start`` (0-based) on, in the view asked."""
        made = self._data[reveal]
        seats = self.header.seats
        for step, anchor in self.steps[len(made) :]:
            shown = step if reveal else public_step(step)
            item = step_data(self.header, shown, anchor)
            seat = step.seat
            if step.kind is StepKind.RETIRE and seat is not None and 0 <= seat < len(seats):
                # The strike that forfeits retires the seat: only the seat's record counts it
                # (as on a replay's page, `arena.view.html`).
                struck = sum(1 for i in made if i.get("strike") and i["seat"] == seat)
                if seats[seat].strikes > struck:
                    item["strike"] = True
            made.append(item if reveal else public_data(item, step))
        return made[start:]

    def viewer_data(self, reveal: bool) -> dict[str, Any]:
        """The whole viewer document so far (`arena.view.html.viewer_data`), in the view
        asked; ``live`` says whether the match is still being played."""
        steps = [step for step, _anchor in self.steps]
        data = viewer_data(self.header, steps)
        data["steps"] = self.step_data(0, reveal)
        data["live"] = self.over is None
        data["revealed"] = reveal
        data["table"] = table_data_of(self.header.game)
        if not reveal:
            for seat, record in zip(data["seats"], self.header.seats, strict=True):
                failure = record.failure
                if failure is not None:
                    seat["failure_text"] = failure_text(record.status, public_failure(failure))
                    seat["evidence"] = evidence_rows(public_failure(failure))
                seat["stderr_tail"] = ""
                seat["stderr_cut"] = False
        return data


def public_step(step: Step) -> Step:
    """``step`` as everybody may see it: failures as the other seats read them, no tile
    drawn, no debug note (its board's hands are hidden by :func:`public_data`)."""
    action = step.action
    if action is not None:
        strike = None if action.strike is None else public_failure(action.strike)
        action = msgspec.structs.replace(action, debug=None, strike=strike)
    failure = None if step.failure is None else public_failure(step.failure)
    return replace(step, action=action, failure=failure, drawn=None)


def public_failure(failure: Failure) -> Failure:
    """A failure with nothing of a hand in it: its detail as the other seats read it, and no
    evidence (the lines exchanged, the bot's line and stderr)."""
    return Failure(
        status=failure.status,
        detail=detail_for_others(failure),
        phase=failure.phase,
        hand_number=failure.hand_number,
        request_id=failure.request_id,
        overrun_ms=failure.overrun_ms,
        exit_code=failure.exit_code,
        signal=failure.signal,
    )


def public_data(item: dict[str, Any], step: Step) -> dict[str, Any]:
    """Step data of a :func:`public_step` in the public view: each hand as that many hidden
    tiles (``null``), but at a hand's and the match's end, when every seat is told the hands
    left."""
    board = item.get("board")
    if board is not None and step.kind not in (StepKind.HAND_END, StepKind.MATCH_END):
        board["hands"] = [[None] * len(hand) for hand in board["hands"]]
    return item


__all__ = ["LiveMatch", "public_data", "public_failure", "public_step"]
