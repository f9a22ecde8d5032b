"""Translation between engine values and protocol messages.

The engines (:mod:`arena.games`) and the protocol (:mod:`protocol`) import neither each other;
this module is the one bridge, used by the referee, the replay verifier and the sample bots'
helpers alike.

A game's extra table facts (the spinner, its arms, the count and the scoring events: the
:class:`arena.games.plugin.TableFeatures` ``spinner``, ``end_count``, ``hand_scoring``) go into
the messages whenever the seat's view carries a count (``SeatView.end_count`` is set); a view
of a game without those features has none, and its messages leave the fields out. No game is
named here: the rules message of a game is the member of the protocol's rules union whose tag
is the game's name.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from arena.games.api import DRAW, PASS, HandOutcome, Move, PublicEvent, SeatView, play
from arena.games.tiles import make_tile
from protocol import messages as m
from protocol.codec import encode_part, encode_value

_DRAW_WIRE = m.Draw()
_PASS_WIRE = m.Pass()
_wire_cache: dict[Move, m.WireMove] = {}
_EVENT_JSON: dict[PublicEvent, bytes] = {}
_ENDS: dict[tuple[tuple[str, int], ...], list[m.End]] = {}
_SCORES: dict[tuple[int, int, str], m.Score] = {}
_REPLY_MOVES: dict[m.ReplyMove, Move] = {}
_ENDS_JSON: dict[tuple[tuple[str, int], ...], bytes] = {}
_SMALL_JSON: dict[tuple[int, ...], bytes] = {}
_MOVE_JSON: dict[Move, bytes] = {}
_LEGAL_JSON: dict[int, tuple[tuple[Move, ...], bytes]] = {}
#: ``,"boneyard_size":N`` for every boneyard a double-nine set or smaller can leave.
_BONEYARD_JSON = tuple(b',"boneyard_size":%d' % n for n in range(56))
#: The most entries `_small_json`'s cache holds before it starts again.
_CACHE_LIMIT = 4096
_ENCODE = encode_value

#: The rules config message of each game, by its tag (the game's name) in the rules union.
_RULES_CONFIGS: dict[str, type[m.RulesConfig]] = {
    config.__struct_config__.tag: config for config in get_args(m.RulesConfig)
}


def move_to_wire(move: Move) -> m.WireMove:
    """The protocol form of an engine move (cached: moves are few and immutable)."""
    wire = _wire_cache.get(move)
    if wire is None:
        if move.kind == "draw":
            wire = _DRAW_WIRE
        elif move.kind == "pass":
            wire = _PASS_WIRE
        else:
            assert move.tile is not None
            assert move.out is not None
            end: Any = move.end
            wire = m.Play(tile=move.tile, end=end, out=move.out)
        _wire_cache[move] = wire
    return wire


def move_from_wire(wire: m.WireMove | m.ReplyMove) -> Move:
    """The engine move a bot asked for (or a replay records).

    A tile may be written in either order, and a lead may name either half as ``out``: the lead
    is laid low half left, high half right, whatever the bot wrote.

    Raises:
        ValueError: when a tile half is out of range (the decoder already checks this).
    """
    if isinstance(wire, m.Draw | m.DrawReply):
        return DRAW
    if isinstance(wire, m.Pass | m.PassReply):
        return PASS
    tile = make_tile(*wire.tile)
    out = wire.out
    if wire.end is None and out in tile:
        out = tile[1]
    return play(tile, wire.end, out)


def move_from_reply(wire: m.ReplyMove) -> Move:
    """:func:`move_from_wire` of a bot's reply, cached by the reply's value (the referee judges
    one per move; the decoder bounds every field, so there are a few thousand at most)."""
    move = _REPLY_MOVES.get(wire)
    if move is None:
        move = _REPLY_MOVES[wire] = move_from_wire(wire)
    return move


def rules_to_wire(game: str, rules: dict[str, Any]) -> m.RulesConfig:
    """The rules config message for a game's rules mapping (tagged with the game's name)."""
    config = _RULES_CONFIGS.get(game)
    if config is None:
        raise ValueError(f"no protocol rules config for game {game!r}")
    return msgspec.convert(rules, config)


def rules_from_wire(config: m.RulesConfig) -> dict[str, Any]:
    """The rules mapping (engine flags) of a rules config message."""
    raw = msgspec.to_builtins(config)
    raw.pop("game", None)
    return dict(raw)


def _event_json(event: PublicEvent) -> bytes:
    """The JSON of a history entry (cached: there are few seat and move combinations)."""
    data = _EVENT_JSON.get(event)
    if data is None:
        wire = m.Event(seat=event.seat, move=move_to_wire(event.move))
        data = _EVENT_JSON[event] = encode_part(wire)
    return data


def _ends_json(ends: tuple[tuple[str, int], ...]) -> bytes:
    """The JSON of the ``ends`` field for these open ends (cached: few combinations)."""
    data = _ENDS_JSON.get(ends)
    if data is None:
        data = _ENDS_JSON[ends] = _ENCODE(_ends(ends))
    return data


def _small_json(values: tuple[int, ...]) -> bytes:
    """The JSON of a short tuple of small numbers (counts, scores, seats), cached while the
    cache stays small (scores grow over a match)."""
    data = _SMALL_JSON.get(values)
    if data is None:
        data = _ENCODE(values)
        if len(_SMALL_JSON) >= _CACHE_LIMIT:
            _SMALL_JSON.clear()
        _SMALL_JSON[values] = data
    return data


def _legal_json(legal: tuple[Move, ...]) -> bytes:
    """:func:`_moves_json` of a view's legal moves, cached by the tuple's identity: an engine
    hands out the same tuple for the same position's moves wherever it can (from a memo), and
    looking a tuple up by value would hash every move in it. The cache holds each tuple it
    names, so an id in it is never another object's."""
    entry = _LEGAL_JSON.get(id(legal))
    if entry is not None and entry[0] is legal:
        return entry[1]
    data = _moves_json(legal)
    if len(_LEGAL_JSON) >= _CACHE_LIMIT:
        _LEGAL_JSON.clear()
    _LEGAL_JSON[id(legal)] = (legal, data)
    return data


def _moves_json(moves: tuple[Move, ...]) -> bytes:
    """The JSON of a list of moves (a request's ``legal``) without its brackets, from each
    move's JSON (cached: moves are few and immutable; looked up by value in one C call)."""
    try:
        return b",".join(map(_MOVE_JSON.__getitem__, moves))
    except KeyError:
        for move in moves:
            if move not in _MOVE_JSON:
                _MOVE_JSON[move] = encode_part(move_to_wire(move))
        return b",".join(map(_MOVE_JSON.__getitem__, moves))


def _ends(ends: tuple[tuple[str, int], ...]) -> list[m.End]:
    """The ``ends`` field for these open ends (cached: there are few combinations)."""
    wire = _ENDS.get(ends)
    if wire is None:
        wire = _ENDS[ends] = [m.End(position=p, value=v) for p, v in ends]  # type: ignore[arg-type]
    return wire


def score_to_wire(event: tuple[int, int, str]) -> m.Score:
    """The protocol form of a scoring event ``(seat, points, reason)`` (cached)."""
    wire = _SCORES.get(event)
    if wire is None:
        seat, points, text = event
        reason: Any = text
        wire = _SCORES[event] = m.Score(seat=seat, points=points, reason=reason)
    return wire


def arms_to_wire(view: SeatView) -> m.Arms | None:
    """The ``arms`` field of a view with a spinner: ``None`` before a spinner is laid."""
    if not view.arms:
        return None
    arms = dict(view.arms)
    return m.Arms(north=list(arms.get("north", ())), south=list(arms.get("south", ())))


#: `MoveRequest`'s fields in the order `RequestBuilder` passes them (by position).
REQUEST_FIELD_ORDER = (
    "id",
    "hand_number",
    "seat",
    "hand",
    "layout",
    "ends",
    "hand_counts",
    "boneyard_size",
    "scores",
    "draws",
    "passes",
    "history",
    "legal",
    "time_left_ms",
    "bank_ms",
    "retired",
    "spinner",
    "arms",
    "count",
    "scoring",
)


class RequestBuilder:
    """Builds the ``request`` messages of a match, converting each public event only once.

    A request carries the whole public history of the hand; converting it afresh for every
    request would cost the referee more than everything else it does per move. Call
    :meth:`new_hand` when a hand starts. A request shares the builder's history list: encode it
    before asking for the next one.
    """

    __slots__ = (
        "_ends",
        "_history",
        "_history_json",
        "_json_events",
        "_json_scores",
        "_layout",
        "_layout_json",
        "_scores",
        "_scores_json",
        "_scoring",
        "_scoring_json",
        "_tail",
        "_tail_key",
    )

    def __init__(self) -> None:
        self._history: list[m.Event] = []
        self._scoring: list[m.Score] = []
        # For request_line: the JSON of the history's first _json_events events, comma-joined
        # (and of the first _json_scores scoring events), and the last layout with its JSON.
        self._history_json = bytearray()
        self._json_events = 0
        self._scoring_json = b""
        self._json_scores = 0
        # The layout and open ends last seen, and the JSON from ',"layout":' to the ends' end.
        self._layout: tuple[tuple[int, int], ...] | None = None
        self._ends: tuple[tuple[str, int], ...] | None = None
        self._layout_json = b""
        # The scores last seen and ',"scores":' with their JSON (a hand's scores stay the same
        # object); the clock values and retired seats last seen, and the line's end from them.
        self._scores: tuple[int, ...] | None = None
        self._scores_json = b""
        self._tail_key: tuple[int, int, tuple[int, ...]] | None = None
        self._tail = b""

    def new_hand(self) -> None:
        """Forget the previous hand's history (and its scoring events, if the game has any)."""
        self._history = []
        self._scoring = []
        self._history_json = bytearray()
        self._json_events = 0
        self._scoring_json = b""
        self._json_scores = 0
        self._layout = None
        self._ends = None
        self._layout_json = b""

    def request(
        self, view: SeatView, request_id: int, hand_number: int, time_left_ms: int, bank_ms: int
    ) -> m.MoveRequest:
        """The ``request`` for the seat of ``view``, which must be the seat to move."""
        history = self._history
        events = view.history
        if len(history) > len(events):
            raise ValueError("the view's history is shorter than the last one: call new_hand()")
        for event in events[len(history) :]:
            history.append(m.Event(seat=event.seat, move=move_to_wire(event.move)))
        return self._message(view, request_id, hand_number, time_left_ms, bank_ms, history)

    def request_line(
        self, view: SeatView, request_id: int, hand_number: int, time_left_ms: int, bank_ms: int
    ) -> bytes:
        """The encoded ``request``, byte for byte ``encode(self.request(...))``: the referee's
        path.

        No message is built: the line is the JSON of each field joined, in the
        struct's field order (`REQUEST_FIELD_ORDER`). The history's JSON (and a game with a
        count's scoring events) is extended by the new events instead of encoded again, the
        layout's is kept while it is the same tuple (a draw or a pass), and the JSON of every
        move, open ends and short count list is cached. A test compares the two paths' bytes
        over thousands of seeded positions of every game
        (tests/test_wire_fast_path.py).
        """
        (
            seat,
            _players,
            _to_move,
            hand,
            hand_counts,
            boneyard_size,
            layout,
            ends,
            scores,
            events,
            legal,
            retired,
            draws,
            passes,
            _arms,
            _spinner,
            end_count,
            _scoring,
        ) = view
        history = self._history_json  # extended in place: joined below, never handed out
        done = self._json_events
        count = len(events)
        if done != count:
            if done + 1 == count:  # the referee's case: one event since the last request
                event = events[done]
                if done:
                    history += b","
                history += _EVENT_JSON.get(event) or _event_json(event)
            elif done > count:
                raise ValueError("the view's history is shorter than the last one: call new_hand()")
            else:
                if done:
                    history += b","
                history += b",".join([_event_json(event) for event in events[done:]])
            self._json_events = count
        if layout is not self._layout or ends != self._ends:
            self._layout = layout
            self._ends = ends
            self._layout_json = b"".join(
                (
                    b',"layout":',
                    _ENCODE(layout),
                    b',"ends":',
                    _ENDS_JSON.get(ends) or _ends_json(ends),
                    b',"hand_counts":',
                )
            )
        if scores is not self._scores:
            self._scores = scores
            self._scores_json = b',"scores":' + _small_json(scores)
        left = time_left_ms if time_left_ms > 0 else 0
        bank = bank_ms if bank_ms > 0 else 0
        key = (left, bank, retired)
        if key != self._tail_key:
            self._tail_key = key
            self._tail = b'],"time_left_ms":%d,"bank_ms":%d,"retired":%b' % (
                left,
                bank,
                _small_json(retired),
            )
        small = _SMALL_JSON.get
        return b"".join(
            (
                b'{"type":"request","id":%d,"hand_number":%d,"seat":%d,"hand":'
                % (request_id, hand_number, seat),
                _ENCODE(hand),
                self._layout_json,
                small(hand_counts) or _small_json(hand_counts),
                _BONEYARD_JSON[boneyard_size]
                if boneyard_size < 56
                else b',"boneyard_size":%d' % boneyard_size,
                self._scores_json,
                b',"draws":',
                small(draws) or _small_json(draws),
                b',"passes":',
                small(passes) or _small_json(passes),
                b',"history":[',
                history,
                b'],"legal":[',
                _legal_json(legal),
                self._tail,
                b"}" if end_count is None else self._table_json(view),
            )
        )

    def _table_json(self, view: SeatView) -> bytes:
        """The end of a request with the extra table facts (a game with a count): the spinner,
        its arms, the count and the scoring events (their JSON extended like the history's)."""
        spinner, arms, count, scoring = self._table_fields(view)
        done = self._json_scores
        if done < len(scoring):
            parts = [encode_part(score) for score in scoring[done:]]
            if done:
                parts.insert(0, self._scoring_json)
            self._scoring_json = b",".join(parts)
            self._json_scores = len(scoring)
        return b"".join(
            (
                b',"spinner":',
                _ENCODE(spinner),
                b',"arms":',
                _ENCODE(arms),
                b',"count":',
                _ENCODE(count),
                b',"scoring":[',
                self._scoring_json,
                b"]}",
            )
        )

    def _message(
        self,
        view: SeatView,
        request_id: int,
        hand_number: int,
        time_left_ms: int,
        bank_ms: int,
        history: Any,
    ) -> m.MoveRequest:
        """The request with ``history`` as given: a list of events, or their JSON (a Raw).

        The fields go by position, in the order of `REQUEST_FIELD_ORDER` (a test keeps it in step
        with the struct): by keyword, building the message costs ~0.7 µs more per request.
        """
        spinner: Any = msgspec.UNSET
        arms: Any = msgspec.UNSET
        count: Any = msgspec.UNSET
        scoring: Any = msgspec.UNSET
        if view.end_count is not None:
            spinner, arms, count, scoring = self._table_fields(view)
        return m.MoveRequest(
            request_id,
            hand_number,
            view.seat,
            list(view.hand),
            list(view.layout),
            _ends(view.ends),
            list(view.hand_counts),
            view.boneyard_size,
            list(view.scores),
            list(view.draws),
            list(view.passes),
            history,
            [move_to_wire(mv) for mv in view.legal],
            max(0, time_left_ms),
            max(0, bank_ms),
            list(view.retired),
            spinner,
            arms,
            count,
            scoring,
        )

    def _table_fields(
        self, view: SeatView
    ) -> tuple[int | None, m.Arms | None, int | None, list[m.Score]]:
        """The extra table facts of a request (a game with a count): the spinner, its arms,
        the count, the scores (each scoring event converted to its wire form once per hand,
        like the history)."""
        scoring = self._scoring
        if len(scoring) > len(view.scoring):
            raise ValueError("the view's scoring is shorter than the last one: call new_hand()")
        for event in view.scoring[len(scoring) :]:
            scoring.append(score_to_wire(event))
        return view.spinner, arms_to_wire(view), view.end_count, scoring


def move_request(
    view: SeatView, request_id: int, hand_number: int, time_left_ms: int, bank_ms: int
) -> m.MoveRequest:
    """The ``request`` message for the seat of ``view``, which must be the seat to move."""
    return RequestBuilder().request(view, request_id, hand_number, time_left_ms, bank_ms)


def hand_start(view: SeatView, hand_number: int, leader: int) -> m.HandStart:
    """The ``hand_start`` message for the seat of ``view`` (at the start of a hand).

    ``leader`` is the seat that leads: in a game with an automatic opening, the seat whose tile
    the opening laid (the other seat moves first); a game with a count also shows the table
    after the opening.
    """
    table: dict[str, Any] = {}
    if view.end_count is not None:
        table = {
            "layout": list(view.layout),
            "ends": list(_ends(view.ends)),
            "spinner": view.spinner,
            "arms": arms_to_wire(view),
            "count": view.end_count,
            "scoring": [score_to_wire(e) for e in view.scoring],
        }
    return m.HandStart(
        hand_number=hand_number,
        leader=leader,
        hand=list(view.hand),
        hand_counts=list(view.hand_counts),
        boneyard_size=view.boneyard_size,
        scores=list(view.scores),
        **table,
    )


def hand_end(
    outcome: HandOutcome,
    hand_number: int,
    hands: list[list[tuple[int, int]]],
    layout: tuple[tuple[int, int], ...],
    view: SeatView | None = None,
) -> m.HandEnd:
    """The ``hand_end`` message: every hand revealed, the award and the new scores.

    ``view`` is any seat's view of the finished hand; in a game with a count it adds the
    spinner, its arms and every scoring event of the hand (other games' views add nothing).
    """
    result: Any = outcome.kind.value
    if view is None or view.end_count is None:
        return m.HandEnd(
            hand_number=hand_number,
            result=result,
            winners=list(outcome.winners),
            award=list(outcome.award),
            scores=list(outcome.scores),
            pips=list(outcome.pips),
            hands=hands,
            layout=list(layout),
        )
    return m.HandEnd(
        hand_number=hand_number,
        result=result,
        winners=list(outcome.winners),
        award=list(outcome.award),
        scores=list(outcome.scores),
        pips=list(outcome.pips),
        hands=hands,
        layout=list(layout),
        spinner=view.spinner,
        arms=arms_to_wire(view),
        scoring=[score_to_wire(e) for e in view.scoring],
    )
