#!/usr/bin/env python3
"""Test bot: another bot, slowed down. Usage: slow.py SECONDS COMMAND...

Runs COMMAND (a bot) as its child and passes every line between the referee and it, waiting
SECONDS before each move it passes back, so that a match lasts long enough to be watched.
"""

import subprocess
import sys
import threading
import time


def main() -> None:
    delay = float(sys.argv[1])
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None
    assert child.stdout is not None

    def forward() -> None:
        for line in sys.stdin.buffer:
            child.stdin.write(line)
            child.stdin.flush()
        child.stdin.close()

    threading.Thread(target=forward, daemon=True).start()
    for line in child.stdout:
        if b'"move"' in line[:40]:
            time.sleep(delay)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
