#!/usr/bin/env python3
"""Test bot: answers every line with argv[2] (default '{}') after sleeping argv[1] seconds."""

import sys
import time

delay = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
reply = (sys.argv[2] if len(sys.argv) > 2 else "{}").encode() + b"\n"
for _line in sys.stdin.buffer:
    time.sleep(delay)
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
