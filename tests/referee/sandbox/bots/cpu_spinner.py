#!/usr/bin/env python3
"""Test bot: says "ready", then spins on the CPU for ever and never answers again."""

print("ready", flush=True)
count = 0
while True:
    count += 1
