"""Failures in words: the ``error`` text a failing bot is sent under ``classroom``
(`explain_for_bot`), the long explanation its author reads (`explain`), and the evidence a
viewer lists (`evidence_fields`).

Pure: everything is derived from the failure records of a replay (their evidence: the last
lines exchanged, the stderr tail, the offending line), so what a student reads is what the
record says. The failure bundle on disk is `arena.failure_report`'s.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from dataclasses import dataclass

import msgspec

from arena.replay import (
    Action,
    Failure,
    Phase,
    Replay,
    Restart,
    Retirement,
    SeatRecord,
    Status,
)
from arena.text import printable, seat_name
from arena.wire import move_from_wire
from protocol import messages as m

#: Characters of a message line shown in an explanation (the bundle keeps them whole).
SHOWN_LINE_CHARS = 600
#: What a bot author can do about each kind of failure.
ADVICE: dict[Status, str] = {
    Status.TIMEOUT: "Answer every request within the time it gives (time_left_ms), and flush "
    "stdout after each line (Python: print(..., flush=True)).",
    Status.CRASH: "Read the stderr tail below: it usually names the exception and the line.",
    Status.BAD_MESSAGE: "Send exactly one JSON object per line, with only the fields of "
    "docs/protocol.md (a 'move' message with the request's id and one of its legal moves).",
    Status.ILLEGAL_MOVE: "Answer with one of the moves listed in the request's 'legal' array; "
    "copying an element of it is always a correct move.",
    Status.LINE_TOO_LONG: "Keep each line short and end it with a newline.",
    Status.MEMORY_LIMIT: "Your bot used more memory than the sandbox allows (--memory-mb).",
    Status.CPU_LIMIT: "Your bot used more CPU time in the match than allowed (--cpu-seconds).",
    Status.OUTPUT_LIMIT: "Write only protocol messages to stdout; send logs to stderr.",
}


@dataclass(frozen=True)
class FailureEntry:
    """One failure of a match, where it is recorded, and what it cost.

    Attributes:
        seat: the seat whose bot failed.
        failure: the record, with its evidence.
        cost: ``"forfeit"``, ``"strike"`` or ``"restart"``.
    """

    seat: int
    failure: Failure
    cost: str


def failures_of(replay: Replay) -> list[FailureEntry]:
    """Every failure recorded in ``replay``, in match order: forfeits at start-up, then strikes,
    restarts and forfeits where they happened (a forfeit where its seat was retired)."""
    entries = [
        _forfeit(s)
        for s in replay.seats
        if s.failure is not None and s.failure.phase is Phase.STARTUP
    ]
    listed = {e.seat for e in entries}
    for hand in replay.hands:
        for event in [*hand.events, *hand.retired_after]:
            if isinstance(event, Action) and event.strike is not None:
                entries.append(FailureEntry(event.seat, event.strike, "strike"))
            elif isinstance(event, Restart):
                entries.append(FailureEntry(event.seat, event.failure, "restart"))
            elif isinstance(event, Retirement) and event.seat not in listed:
                seat = replay.seats[event.seat]
                if seat.failure is not None:
                    entries.append(_forfeit(seat))
                    listed.add(event.seat)
    # Every failure after start-up is retired where it happened; a hand-made replay that lacks
    # the event still has its failure listed, last, rather than lost.
    entries += [_forfeit(s) for s in replay.seats if s.failure is not None and s.seat not in listed]
    return entries


def _forfeit(seat: SeatRecord) -> FailureEntry:
    assert seat.failure is not None
    return FailureEntry(seat.seat, seat.failure, "forfeit")


def explain_for_bot(failure: Failure) -> str:
    """The ``error`` message's text under ``classroom``: the failure and the lines exchanged
    just before it (the bot has its own stderr)."""
    lines = [failure.detail]
    advice = ADVICE.get(failure.status)
    if advice:
        lines.append(advice)
    lines += list(_exchanged(failure))
    return "\n".join(lines)


def explain(replay: Replay, entry: FailureEntry, rematch: str | None = None) -> str:
    """The loud explanation of one failure, for the bot's author.

    What went wrong and what it cost, where, the last lines exchanged (the last request and
    the reply among them), the evidence, the advice, the stderr tail, and the command that
    plays the same match again.
    """
    failure, seat = entry.failure, replay.seats[entry.seat]
    cost = {
        "forfeit": "the bot forfeited the match",
        "strike": f"a strike (policy {replay.policy.describe()}): the referee played a random "
        "legal move for the bot",
        "restart": "the bot was restarted (policy lenient)",
    }[entry.cost]
    where = [f"phase {failure.phase}"]
    if failure.hand_number is not None:
        where.append(f"hand {failure.hand_number}")
    if failure.request_id is not None:
        where.append(f"request {failure.request_id}")
    # Every text the bot chose (its name, its lines, its stderr, the detail quoting them) is
    # escaped: the explanation is printed on terminals and in README.txt.
    title = f" seat {seat.seat} ({seat_name(seat)}): {failure.status.value.upper()} "
    out = [f"{title:=^78}", f"What went wrong: {printable(failure.detail)}"]
    out.append(f"What it cost:    {cost}")
    out.append(f"Where:           {', '.join(where)}")
    folder = f"  (in {printable(seat.folder)})" if seat.folder else ""
    out.append(f"Bot command:     {printable(seat.command)}{folder}")
    advice = ADVICE.get(failure.status)
    if advice:
        out.append(f"What to do:      {advice}")
    exchanged = list(_exchanged(failure))
    if exchanged:
        out += ["", "The last messages (oldest first):", *exchanged]
    evidence = _evidence(failure)
    if evidence:
        out += ["", *evidence]
    if failure.stderr_tail:
        out += ["", "The bot's stderr ended with:"]
        tail = failure.stderr_tail.rstrip("\n").splitlines()[-30:]
        out += [f"  | {printable(line)}" for line in tail]
    if rematch:
        out += ["", "Play the same match again (same bots, deal and clocks):", f"  {rematch}"]
    out.append("=" * 78)
    return "\n".join(out)


def _exchanged(failure: Failure) -> Iterator[str]:
    for line in failure.messages or []:
        arrow = "referee -> bot" if line.direction == "sent" else "bot -> referee"
        text = line.text
        if len(text) > SHOWN_LINE_CHARS:
            text = text[:SHOWN_LINE_CHARS] + f"... ({len(line.text)} characters)"
        yield f"  {arrow}: {printable(text)}"


def evidence_fields(failure: Failure) -> list[tuple[str, str]]:
    """The evidence particular to a failure's kind, as ``(label, value)`` pairs in the order a
    person reads them (plain text, not escaped): what the text explanation and the HTML viewer
    both show, beside the common fields, the lines exchanged and the stderr tail."""
    fields: list[tuple[str, str]] = []
    if failure.overrun_ms is not None:
        fields.append(("over the allowance by", f"{failure.overrun_ms:.1f} ms"))
    if failure.exit_code is not None:
        fields.append(("exit code", str(failure.exit_code)))
    if failure.signal is not None:
        fields.append(("signal", signal_name(failure.signal)))
    if failure.line is not None:
        fields.append(("offending line", failure.line))
    if failure.error is not None:
        fields.append(("decoder error", failure.error))
    if failure.move is not None:
        fields.append(("move asked for", wire_move_text(failure.move)))
    if failure.legal is not None:
        fields.append(("legal moves", "; ".join(map(wire_move_text, failure.legal)) or "none"))
    if failure.cpu_seconds is not None:
        fields.append(("CPU time used", f"{failure.cpu_seconds} s"))
    if failure.memory_peak_bytes is not None:
        fields.append(("peak memory", f"{failure.memory_peak_bytes / 2**20:.1f} MiB"))
    return fields


def signal_name(number: int) -> str:
    """``9 (SIGKILL)``; the bare number for a signal this system does not name."""
    try:
        return f"{number} ({signal.Signals(number).name})"
    except ValueError:
        return str(number)


def wire_move_text(move: m.WireMove | m.ReplyMove) -> str:
    """``3-4 on left, 3 out``, ``DRAW``: a move as written on the wire, in words (its JSON
    when it names no move the engine knows)."""
    try:
        return str(move_from_wire(move))
    except ValueError:
        return msgspec.json.encode(move).decode()


def _evidence(failure: Failure) -> list[str]:
    fields = evidence_fields(failure)
    return [f"{label[0].upper()}{label[1:]}: {printable(value)}" for label, value in fields]
