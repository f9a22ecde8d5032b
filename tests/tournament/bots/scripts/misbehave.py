#!/usr/bin/env python3
"""Test bot for handshake checks: does what argv[1] says when it gets hello.

Usage: misbehave.py MODE [MARKER]. MODE is one of:

  ok        answers ready and plays the first legal move
  crash     writes to stderr and exits with code 3 before reading anything
  garbage   answers hello with a line that is not JSON
  move      answers hello with a valid 'move' message instead of 'ready'
  protocol  answers ready for protocol 2
  hang      reads hello and never answers (until killed)
  partial   writes half a line without a newline and exits 0

MARKER is ignored; tests pass one to find leftover processes.
"""

import json
import sys
import time

mode = sys.argv[1]
if mode == "crash":
    sys.stderr.write("misbehave: crashing on purpose\n")
    sys.exit(3)
sys.stdin.readline()
if mode == "hang":
    time.sleep(3600)
elif mode == "garbage":
    print("hello to you too", flush=True)
elif mode == "move":
    print(json.dumps({"type": "move", "id": 0, "move": {"action": "pass"}}), flush=True)
elif mode == "protocol":
    print(json.dumps({"type": "ready", "name": "future", "protocol": 2}), flush=True)
elif mode == "partial":
    sys.stdout.write('{"type": "rea')
    sys.stdout.flush()
    sys.exit(0)
elif mode == "ok":
    print(json.dumps({"type": "ready", "name": "misbehave-ok"}), flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "request":
            reply = {"type": "move", "id": message["id"], "move": message["legal"][0]}
            print(json.dumps(reply), flush=True)
        elif message["type"] == "match_end":
            break
sys.stdin.read()
