#!/usr/bin/env python3
"""Test bot: answers the handshake, then thinks forever over its first request.

Usage: think_forever.py MARKER... On its first request it replaces itself (exec: the same pid
and pipes) by ``think_forever.py --thinking MARKER...``, so that a test can see in its command
line that it is thinking; it then reads its input until that closes and sleeps until killed.
"""

import json
import os
import sys
import time

if sys.argv[1:2] == ["--thinking"]:
    for _line in sys.stdin.buffer:
        pass
    time.sleep(3600)
    sys.exit(0)

for line in sys.stdin.buffer:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stdout.write(json.dumps({"type": "ready", "name": "thinker"}) + "\n")
        sys.stdout.flush()
    elif message["type"] == "request":
        os.execv(sys.executable, [sys.executable, __file__, "--thinking", *sys.argv[1:]])
