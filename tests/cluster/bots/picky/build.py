#!/usr/bin/env python3
"""Build step of the test bot "picky": fails where the arena unpacked shipped bots (a worker)."""

import os
import sys

if "-arena-bots" in os.getcwd():
    sys.exit("picky: no compiler on this host")
print("built")
