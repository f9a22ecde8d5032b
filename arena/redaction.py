"""What a bot is told about another seat's failure: its detail, with nothing hidden in it.

A failure's ``detail`` is written for the failing bot's author. It names the move the bot
tried (``illegal move 1-5 on east, 5 out in request 28; ...``), and a bad message's decoder
error quotes what the bot wrote (``Invalid enum value '1-5' - at `$.move.end```). The failing
bot gets it whole in its ``error`` (and ``strike``) message, and the replay keeps it with all
the evidence. The other seats read it in ``match_end.results``, and must not learn from it a
tile they were never shown: a tile of a hand that was never revealed, of the boneyard, or one a
bot wrote into a bad line for another seat to read. So their copy of the detail shows as
`HIDDEN`:

- the move of an ``illegal_move`` (whatever it was, a pass or a draw too: which move a bot
  tried says something about its hand): ``illegal move (hidden) in request 28; open ends
  east=5, west=3`` (the open ends were on the table for everybody);
- every value a decoder error quotes of the bot's line (``Invalid enum value (hidden)``,
  ``Object contains unknown field (hidden)``); the JSON path stays;
- and, whatever text remains, anything written like a tile: ``1-5``, ``[1, 5]``, ``(1, 5)``.

Everything else (the status, the request id, the timing, an exit code or signal, a sandbox
limit) stays as it is, and a seat that did not fail has the empty detail it always had.
"""

from __future__ import annotations

import re

from arena.failure_text import wire_move_text
from arena.replay import Failure, Status

#: What another seat reads instead of a hidden move, value or tile.
HIDDEN = "(hidden)"

# What msgspec quotes of a bad line: a value in 'quotes' (an enum or a tag) or a field name in
# `backquotes`, always followed by the JSON path (the codec adds " - at `$`" when msgspec does
# not); greedy, so a quote inside the bot's value does not end it early.
_QUOTED = re.compile(
    r"(?P<what>Invalid (?:enum )?value) '.*'(?= - at `)"
    r"|(?P<field>unknown field) `.*`(?= - at `)"
)
# A tile as text: 1-5 (not inside a longer word or number), [1, 5], (1, 5).
_TILE = re.compile(
    r"(?<![\w.-])[0-6]\s*-\s*[0-6](?![\w.-])"
    r"|\[\s*[0-6]\s*,\s*[0-6]\s*\]"
    r"|\(\s*[0-6]\s*,\s*[0-6]\s*\)"
)


def public_decoder_error(error: str) -> str:
    """A decoder error with every value it quotes of the bot's line shown as `HIDDEN`."""

    def hide(found: re.Match[str]) -> str:
        return f"{found.group('what') or found.group('field')} {HIDDEN}"

    return _QUOTED.sub(hide, error)


def hide_tiles(text: str) -> str:
    """``text`` with everything written like a tile (``1-5``, ``[1, 5]``, ``(1, 5)``) shown as
    `HIDDEN`."""
    return _TILE.sub(HIDDEN, text)


def detail_for_others(failure: Failure | None) -> str:
    """The detail of ``failure`` as the other seats read it (``""`` when the seat is ok)."""
    if failure is None:
        return ""
    text = failure.detail
    if failure.status is Status.ILLEGAL_MOVE and failure.move is not None:
        shown = f"illegal move {wire_move_text(failure.move)}"
        text = text.replace(shown, f"illegal move {HIDDEN}", 1)
    if failure.error:
        text = text.replace(failure.error, public_decoder_error(failure.error))
    return hide_tiles(text)
