#!/usr/bin/env python3
"""Test bot (folder "built"): needs name.txt from its build; then plays the first legal move."""

import json
import sys
from pathlib import Path

name = Path("name.txt").read_text().strip()  # fails (exit 1) when the build did not run
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "ready", "name": name}
    elif kind == "request":
        reply = {"type": "move", "id": message["id"], "move": message["legal"][0]}
    elif kind == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
