#!/usr/bin/env python3
"""Test bot that speaks protocol v1 until its first move request, then misbehaves.

argv[1] says how: ``hog`` allocates and touches 2 GB, ``spin`` spins on the CPU for ever,
``flood`` writes 4 KiB blocks without a newline to stdout for ever (a cap on the whole
stdout below the line cap stops it first).
"""

import json
import sys

mode = sys.argv[1]
for line in sys.stdin.buffer:
    kind = json.loads(line).get("type")
    if kind == "hello":
        sys.stdout.write(json.dumps({"type": "ready", "name": f"misbehaver-{mode}"}) + "\n")
        sys.stdout.flush()
    elif kind == "request":
        break
if mode == "hog":
    hog = b"x" * (2 << 30)
    print(len(hog), file=sys.stderr)
elif mode == "spin":
    count = 0
    while True:
        count += 1
elif mode == "flood":
    out = sys.stdout.buffer
    while True:
        out.write(b"x" * 4096)
        out.flush()
