#!/usr/bin/env python3
"""Test bot: closes its stdin at once, says "closed", and keeps running."""

import os
import time

os.close(0)
print("closed", flush=True)
time.sleep(3600)
