#!/usr/bin/env python3
"""Test bot: reads stdin and never answers; after stdin closes it sleeps until killed."""

import sys
import time

for _line in sys.stdin.buffer:
    pass
time.sleep(3600)
