#!/usr/bin/env python3
"""Test bot: echoes every line back; with argv[1], answers every line with that line instead."""

import sys

reply = sys.argv[1].encode() + b"\n" if len(sys.argv) > 1 else None
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(reply if reply is not None else line)
    sys.stdout.buffer.flush()
