#!/usr/bin/env python3
"""Test bot: a seeded random legal move after sleeping argv[1] seconds (default 0.02), so a
match lasts long enough to kill its worker in the middle of it; its name is argv[2]."""

import json
import random
import sys
import time

delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.02
name = sys.argv[2] if len(sys.argv) > 2 else "slow"
rng = random.Random(0)
for line in sys.stdin.buffer:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        rng = random.Random(msg["seed"])
        reply = {"type": "ready", "name": name}
    elif kind == "request":
        time.sleep(delay)
        reply = {"type": "move", "id": msg["id"], "move": rng.choice(msg["legal"])}
    elif kind in ("match_end", "error"):
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
