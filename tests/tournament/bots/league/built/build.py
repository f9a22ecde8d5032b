#!/usr/bin/env python3
"""Build step of the test bot "built": writes name.txt, which the bot reads at start."""

from pathlib import Path

Path("name.txt").write_text("built\n")
print("wrote name.txt")
