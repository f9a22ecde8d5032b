#!/usr/bin/env python3
"""Test bot: answers one line with "ready", then at the next line allocates and touches 2 GB."""

import sys

print("ready", flush=True)
sys.stdin.readline()
try:
    hog = b"x" * (2 << 30)
except MemoryError:
    print("MemoryError", flush=True)
    sys.exit(1)
print(f"survived {len(hog)}", flush=True)
