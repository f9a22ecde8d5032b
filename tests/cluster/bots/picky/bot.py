#!/usr/bin/env python3
"""Test bot (folder "picky"): plays the last legal move."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "ready", "name": "picky"}
    elif kind == "request":
        reply = {"type": "move", "id": message["id"], "move": message["legal"][-1]}
    elif kind == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
