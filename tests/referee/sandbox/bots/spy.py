#!/usr/bin/env python3
"""Test bot: looks at each path given as ``look=PATH`` and reports what it saw, with its uid.

With ``caps`` among them the report also has the effective capabilities (``caps``). A
folder is ``"empty"`` or ``"N entries: a,b"``, a file ``"read"`` (or ``"empty"``, as
``/dev/null`` is), anything else its errno name (``ENOENT``, ``EACCES``...). The argument
``look=PATH`` names no existing path, so the sandbox does not make PATH visible for it.

``spy.py report look=...``: prints the report as one JSON line, then waits for stdin to close.
Otherwise it plays: ``ready``, then the first legal move of every request, with the report as
its first move's ``debug`` note (the replay keeps it). Standard library only.
"""

import errno
import json
import os
import sys


def look(path):
    """What the bot can see at ``path``, in a few words."""
    try:
        if os.path.isdir(path):
            names = sorted(os.listdir(path))
            return f"{len(names)} entries: {','.join(names)[:80]}" if names else "empty"
        with open(path, "rb") as f:
            return "read" if f.read(1) else "empty"
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc.errno))


def capabilities():
    """The effective capabilities, as /proc/self/status shows them (hex)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("CapEff:"):
                return line.split()[1]
    return "?"


def report(args):
    """The report of every ``look=PATH`` argument, the uid, and with ``caps`` the effective
    capabilities."""
    seen = {"uid": os.getuid()}
    if "caps" in args:
        seen["caps"] = capabilities()
    for arg in args:
        if arg.startswith("look="):
            seen[arg[5:]] = look(arg[5:])
    return json.dumps(seen)


def main():
    args = sys.argv[1:]
    if args[:1] == ["report"]:
        print(report(args[1:]), flush=True)
        for _line in sys.stdin:
            pass
        return
    note = report(args)[:1024]
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            sys.stdout.write(json.dumps({"type": "ready", "name": "spy"}) + "\n")
        elif kind == "request":
            move = {"type": "move", "id": msg["id"], "move": msg["legal"][0]}
            if note:
                move["debug"], note = note, ""
            sys.stdout.write(json.dumps(move) + "\n")
        elif kind in ("match_end", "error"):
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
