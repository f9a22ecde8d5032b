"""``python3 -m arena.reference NAME[:options]``: a reference bot speaking protocol v1.

Seeded from ``hello.seed``, so a match against it is reproducible (and, with ``samples=N``,
independent of the machine's speed). Reads the referee's messages from stdin, one per line,
answers ``hello`` and ``request``; exits at ``match_end``, ``error`` or end of input. An unknown
name or option: one line on stderr naming the known ones, exit code 2.
"""

from __future__ import annotations

import sys
import traceback

from arena.reference.bots import PREFIX, RefBot, SpecError, parse_spec
from arena.reference.knowledge import KnowledgeTracker
from arena.wire import move_to_wire
from protocol import (
    Error,
    HandStart,
    Hello,
    MatchEnd,
    MoveReply,
    MoveRequest,
    ProtocolError,
    Ready,
    as_reply,
    decode_to_bot,
    encode,
)
from protocol.messages import MAX_DEBUG_CHARS, MAX_NAME_CHARS


def _send(message: Ready | MoveReply) -> None:
    sys.stdout.buffer.write(encode(message) + b"\n")
    sys.stdout.buffer.flush()


def main(argv: list[str] | None = None) -> int:
    """Play one match as the reference bot named by ``argv[0]``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python3 -m arena.reference NAME[:key=value,...]", file=sys.stderr)
        return 2
    try:
        spec = parse_spec(args[0])
    except SpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    name = (PREFIX + spec.text)[:MAX_NAME_CHARS]
    tracker = KnowledgeTracker()
    bot: RefBot | None = None
    move_ms = 1000
    for line in sys.stdin.buffer:
        try:
            message = decode_to_bot(line)
        except ProtocolError as error:
            print(f"{name}: ignoring a message: {error}", file=sys.stderr)
            continue
        if isinstance(message, Hello):
            tracker.hello(message)
            bot = RefBot(spec, message.seed, one_hand=message.match.hands == 1)
            move_ms = message.time.move_ms
            _send(Ready(name=name))
        elif isinstance(message, HandStart):
            tracker.hand_start(message)
        elif isinstance(message, MoveRequest):
            assert bot is not None, "hello comes first"
            knowledge = tracker.request(message)
            try:
                move, note = bot.choose(knowledge, message.time_left_ms, move_ms)
            except Exception:  # a bug of ours must not forfeit the match: play legal[0]
                traceback.print_exc(file=sys.stderr)
                move, note = knowledge.legal[0], "internal error: first legal move"
            reply = as_reply(move_to_wire(move))
            _send(MoveReply(id=message.id, move=reply, debug=note[:MAX_DEBUG_CHARS] or None))
        elif isinstance(message, MatchEnd | Error):
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
