#!/usr/bin/env python3
"""Test bot: reads the first line, then exits with code 0 without writing anything."""

import sys

sys.stdin.buffer.readline()
sys.exit(0)
