#!/usr/bin/env python3
"""Test bot: plays the first legal move; at its request N it makes the referee wake late.

Usage: stall_referee.py N STALL_S [MARKER...]. At request N it stops its parent process (the
referee, when it runs without a sandbox) with SIGSTOP, answers at once, waits STALL_S seconds
and lets the referee go on (SIGCONT): the referee wakes past the deadline with the reply
waiting in its pipe, as an overloaded machine makes it do.
"""

import json
import os
import signal
import sys
import time

at = int(sys.argv[1])
stall_s = float(sys.argv[2])
requests = 0
for line in sys.stdin.buffer:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print(json.dumps({"type": "ready", "name": "staller"}), flush=True)
    elif kind == "request":
        requests += 1
        reply = json.dumps({"type": "move", "id": message["id"], "move": message["legal"][0]})
        if requests != at:
            print(reply, flush=True)
            continue
        referee = os.getppid()
        os.kill(referee, signal.SIGSTOP)
        try:
            print(reply, flush=True)
            time.sleep(stall_s)
        finally:
            os.kill(referee, signal.SIGCONT)
    elif kind == "match_end":
        break
