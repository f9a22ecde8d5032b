#!/usr/bin/env python3
"""Test bot: forks argv[1] children that sleep (or as many as it can), then says how many."""

import os
import sys
import time

wanted = int(sys.argv[1])
started = 0
for _ in range(wanted):
    try:
        pid = os.fork()
    except OSError as exc:  # the pids cgroup refuses the fork
        print(f"fork failed: {exc.strerror}", file=sys.stderr, flush=True)
        break
    if pid == 0:
        time.sleep(3600)
        os._exit(0)
    started += 1
print(f"started {started}", flush=True)
for _line in sys.stdin:
    pass
time.sleep(3600)
