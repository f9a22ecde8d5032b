#!/usr/bin/env python3
"""Test bot: answers argv[1] lines (default 0) with argv[2], then writes b'x' without end."""

import os
import sys

answers = int(sys.argv[1]) if len(sys.argv) > 1 else 0
reply = (sys.argv[2] if len(sys.argv) > 2 else "{}").encode() + b"\n"
for count, _line in enumerate(sys.stdin.buffer):
    if count >= answers:
        break
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
chunk = b"x" * 65536
while True:
    os.write(1, chunk)
