#!/usr/bin/env python3
"""Test bot: prints its uid, working directory and environment as one JSON line."""

import json
import os

print(json.dumps({"uid": os.getuid(), "cwd": os.getcwd(), "env": dict(os.environ)}), flush=True)
