#!/usr/bin/env python3
"""Test bot: ignores SIGTERM, answers each line with argv[1] (default '{}'), then sleeps."""

import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
reply = (sys.argv[1] if len(sys.argv) > 1 else "{}").encode() + b"\n"
for _line in sys.stdin.buffer:
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
while True:
    time.sleep(3600)
