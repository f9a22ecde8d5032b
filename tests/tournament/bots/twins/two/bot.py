#!/usr/bin/env python3
"""Test bot (folder "alpha"): answers hello with ready and plays the first legal move."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "ready", "name": "alpha"}
    elif kind == "request":
        reply = {"type": "move", "id": message["id"], "move": message["legal"][0]}
    elif kind == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
