#!/usr/bin/env python3
"""Test bot: double-forks a grandchild that calls setsid() and keeps stdout open, then says
"ready <grandchild pid>" and waits for ever."""

import os
import sys
import time

read_end, write_end = os.pipe()
child = os.fork()
if child == 0:
    os.setsid()  # a new session: a kill of the bot's process group no longer reaches it
    if os.fork() == 0:
        os.write(write_end, str(os.getpid()).encode())
        os.close(write_end)
        time.sleep(3600)  # holds stdout, stdin and stderr open
    os._exit(0)
os.close(write_end)
os.waitpid(child, 0)
grandchild = os.read(read_end, 32).decode()
print(f"ready {grandchild}", flush=True)
for _line in sys.stdin:
    pass
time.sleep(3600)
