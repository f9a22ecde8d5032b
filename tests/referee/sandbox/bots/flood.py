#!/usr/bin/env python3
"""Test bot: writes "x" to stdout for ever without a newline (or, with argv[1] == "lines",
short lines for ever)."""

import sys

out = sys.stdout.buffer
block = b"x" * 65536 if sys.argv[1:2] != ["lines"] else b"y" * 99 + b"\n"
while True:
    out.write(block * (1 if len(block) > 100 else 600))
    out.flush()
