#!/usr/bin/env python3
"""Test bot: ignores SIGTERM, starts a child that ignores it too, says "ready", and keeps
running after its stdin is closed."""

import os
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    time.sleep(3600)
    os._exit(0)
print("ready", flush=True)
for _line in sys.stdin:
    pass
time.sleep(3600)
