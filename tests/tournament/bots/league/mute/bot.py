#!/usr/bin/env python3
"""Test bot (folder "mute"): answers hello with text that is not a protocol message."""

import sys

sys.stdin.readline()
print("hello to you too", flush=True)
sys.stdin.read()
