#!/usr/bin/env python3
"""Test bot: starts a sleeping child holding stdout, answers a line, then argv[1]: exit|hang."""

import subprocess
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "exit"
reply = (sys.argv[2] if len(sys.argv) > 2 else "{}").encode() + b"\n"
# The child inherits stdin, stdout and stderr and stays in the bot's process group.
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
sys.stderr.write(f"background child pid {child.pid}\n")
sys.stderr.flush()
for count, _line in enumerate(sys.stdin.buffer):
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
    if mode == "exit" and count == 0:
        sys.exit(0)
while True:
    time.sleep(3600)
