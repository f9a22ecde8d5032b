#!/usr/bin/env python3
"""Build step of the test bot "broken-build": prints some output, then fails with exit code 3."""

import sys

print("compiling bot.py", flush=True)
print("bot.py:3: error: expected ';'", file=sys.stderr, flush=True)
sys.exit(3)
