#!/usr/bin/env python3
"""Test bot: answers argv[1] lines (default 1) with argv[2] (default '{}'), then raises."""

import sys

answers = int(sys.argv[1]) if len(sys.argv) > 1 else 1
reply = (sys.argv[2] if len(sys.argv) > 2 else "{}").encode() + b"\n"
for count, _line in enumerate(sys.stdin.buffer):
    if count >= answers:
        raise RuntimeError(f"crash_mid_game: deliberate crash on line {count + 1}")
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
