#!/usr/bin/env python3
"""Test bot: every text it controls holds terminal escape sequences.

Its ``ready`` name holds ESC[31m, a carriage return, a bell and rich markup; it writes an OSC
title sequence and a screen clear to stderr; its first move carries a debug note with a blink
sequence; at its second request it answers with an unknown field named with an escape, a bad
message (so the failure's detail quotes bot-controlled text). Any extra arguments are ignored
(tests pass a marker to find leftover processes).
"""

import json
import sys

NAME = "evil\x1b[31m\r\x07[bold]x[/bold]"
out = sys.stdout.buffer
requests = 0
for raw in sys.stdin.buffer:
    msg = json.loads(raw)
    if msg["type"] == "hello":
        sys.stderr.write("\x1b]0;pwned\x07\x1b[2J stderr line\r\n")
        sys.stderr.flush()
        out.write(json.dumps({"type": "ready", "name": NAME}).encode() + b"\n")
    elif msg["type"] == "request":
        requests += 1
        reply = {"type": "move", "id": msg["id"], "move": msg["legal"][0]}
        if requests == 1:
            reply["debug"] = "\x1b[5mblink\x07"
        else:
            reply["\x1b[2Jfield"] = 1
        out.write(json.dumps(reply).encode() + b"\n")
    elif msg["type"] in ("match_end", "error"):
        break
    out.flush()
