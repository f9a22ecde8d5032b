#!/usr/bin/env python3
"""Test bot: answers every line with the same line of non-JSON, non-UTF-8 bytes."""

import sys

GARBAGE = b"\xff\xfe garbage {{{ not json \x00\x01\n"
for _line in sys.stdin.buffer:
    sys.stdout.buffer.write(GARBAGE)
    sys.stdout.buffer.flush()
