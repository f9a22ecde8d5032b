#!/usr/bin/env python3
"""Test bot: tries each action in argv (read:PATH, list:PATH, write:PATH) and prints one JSON
line mapping each to "ok" or its errno name, then waits for stdin to close."""

import errno
import json
import os
import sys

results = {}
for action in sys.argv[1:]:
    kind, _sep, path = action.partition(":")
    try:
        if kind == "read":
            with open(path, "rb") as f:
                f.read(1)
        elif kind == "list":
            os.listdir(path)
        elif kind == "write":
            with open(path, "wb") as f:
                f.write(b"written by the bot\n")
        else:
            continue
        results[action] = "ok"
    except OSError as exc:
        results[action] = errno.errorcode.get(exc.errno or 0, str(exc.errno))
print(json.dumps(results), flush=True)
for _line in sys.stdin:
    pass
