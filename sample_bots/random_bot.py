#!/usr/bin/env python3
"""A bot that plays a uniformly random legal move, in any game: protocol v1 in the raw.

It never looks at the game: every request lists the legal moves, whatever the game, so the same
few lines play Matador, Fives and Block.

Standard library only, so it shows the wire format plainly. The referee starts this program
and talks to it in JSON Lines: one JSON object per line on our stdin, one per line from our
stdout. Every message has a "type"; we only ever send two kinds back ("ready" and "move").
Anything we print to stdout must be a protocol message; use stderr for logging.

    python3 sample_bots/random_bot.py     # then type: {"type":"hello","seed":1}
"""

import json
import random
import sys


def send(message):
    """Write one message as one line and flush it at once (a pipe would otherwise buffer it)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    """Answer the referee until the match ends, we are stopped, or stdin closes."""
    rng = random.Random(0)
    # Read bytes: the referee sends UTF-8 whatever our locale is, and json.loads takes bytes.
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            # First message, once. It carries the rules, our seat, the time limits and a seed
            # for our own randomness: seeding from it makes a match reproducible move for move.
            # We must answer "ready" within hello["time"]["startup_ms"] milliseconds.
            rng = random.Random(msg["seed"])
            send({"type": "ready", "name": "random"})
        elif kind == "request":
            # Our turn. msg["legal"] lists every legal move, e.g.
            #   {"action": "play", "tile": [3, 5], "end": "left", "out": 5}
            #   (in Fives the ends are "west", "east", "north" and "south")
            #   {"action": "draw"}  or  {"action": "pass"}
            # Answer with one of them and the request's id, within msg["time_left_ms"].
            move = rng.choice(msg["legal"])
            send({"type": "move", "id": msg["id"], "move": move})
        elif kind in ("match_end", "error"):
            # "match_end": the match is over, so exit. "error": the referee says why it is
            # stopping us (a timeout, an illegal move...); log it to stderr and exit too.
            if kind == "error":
                print(f"referee error {msg.get('code')}: {msg.get('message')}", file=sys.stderr)
            return
        # Anything else ("hand_start", "hand_end", or a type added in a later version) is
        # information only: no reply is expected, so we ignore it, as we ignore unknown fields.
    # EOF: the referee closed our stdin; just exit.


if __name__ == "__main__":
    main()
    sys.exit(0)
