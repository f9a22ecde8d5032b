#!/usr/bin/env python3
"""Test bot: writes a message to stderr and exits with code argv[1] (default 3) at once."""

import sys

code = int(sys.argv[1]) if len(sys.argv) > 1 else 3
sys.stderr.write(f"crash_at_start: giving up before reading anything (exit {code})\n")
sys.exit(code)
