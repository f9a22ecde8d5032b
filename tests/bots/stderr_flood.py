#!/usr/bin/env python3
"""Test bot: floods stderr from a thread without pause while answering every line with argv[1]."""

import os
import sys
import threading

reply = (sys.argv[1] if len(sys.argv) > 1 else "{}").encode() + b"\n"


def flood() -> None:
    chunk = b"stderr flood " * 5000 + b"\n"
    while True:
        os.write(2, chunk)


threading.Thread(target=flood, daemon=True).start()
for _line in sys.stdin.buffer:
    sys.stdout.buffer.write(reply)
    sys.stdout.buffer.flush()
