#!/usr/bin/env python3
"""Test bot: plays the first legal move, and misbehaves as argv[1] says at request argv[2].

Usage: player.py MODE [N] [ARG] [MARKER]. Until request N (1-based, default 1) it plays
correctly; at request N it does MODE:

  ok            never misbehaves
  hang          stops answering (keeps reading)
  crash         writes a traceback-like line to stderr and exits with code 3
  signal        kills itself with SIGKILL
  garbage       answers with bytes that are not JSON
  deep          answers with JSON nested 5000 levels deep in an unknown field
  endless       writes 'x' forever without a newline
  illegal       answers with a move that is not legal (a tile it does not hold)
  wrong_id      answers with the wrong request id
  unknown_field answers with an extra field "mvoe"
  lone_surrogate answers with a debug note holding a lone \\ud800 escape (not valid JSON)
  late          answers after sleeping ARG seconds (default 1.5)
  silent_exit   exits 0 without answering
  close_stdout  closes its stdout and keeps running
  orphan        starts a child that holds its stdout open, then exits 0 without answering
  flood_stderr  writes 2 MB to stderr, then answers correctly (never fails)
  ignore_term   ignores SIGTERM and never exits by itself after match_end (never fails)
  linger        keeps running after match_end with a child holding stdout (never fails)
  debug         attaches a debug note ARG to every reply (never fails)
  close_after_out  after playing the last tile of its hand, closes its stdin and waits
  illegal_from  answers with an illegal move at request N and at every request after it
  crash_once    crashes like 'crash' at request N, unless file ARG exists (it creates it
                first), so a restarted process plays on

Every mode writes each 'strike' message it receives to stderr ("player got strike 1/3: ...").
"""

import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
at = int(sys.argv[2]) if len(sys.argv) > 2 else 1
arg = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
marker = sys.argv[4:]  # tests pass a unique marker so they can find leftover processes
out = sys.stdout.buffer


def send(obj: dict) -> None:
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


if mode == "ignore_term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
NEVER_FAILS = (
    "ok",
    "flood_stderr",
    "ignore_term",
    "linger",
    "debug",
    "close_after_out",
)
requests = 0
for raw in sys.stdin.buffer:
    msg = json.loads(raw)
    kind = msg["type"]
    if kind == "hello":
        send({"type": "ready", "name": f"player-{mode}"})
    elif kind == "request":
        requests += 1
        reply = {"type": "move", "id": msg["id"], "move": msg["legal"][0]}
        if mode == "debug":
            reply["debug"] = arg or "thinking"
        if mode == "flood_stderr" and requests == at:
            for _ in range(2048):
                sys.stderr.write("e" * 1023 + "\n")
            sys.stderr.flush()
        if mode == "illegal_from" and requests >= at:
            held = {tuple(t) for t in msg["hand"]}
            tile = next([a, b] for a in range(7) for b in range(a, 7) if (a, b) not in held)
            reply["move"] = {"action": "play", "tile": tile, "end": "left", "out": tile[1]}
        if mode == "crash_once" and requests == at and not os.path.exists(arg or ""):
            open(arg or "", "w").close()
            sys.stderr.write("Traceback: player.py crashed once\n")
            sys.stderr.flush()
            os._exit(3)
        if requests == at and mode not in NEVER_FAILS:
            if mode == "hang":
                for _ in sys.stdin.buffer:
                    pass
                time.sleep(3600)
            elif mode == "crash":
                sys.stderr.write("Traceback: player.py deliberately crashed\n")
                sys.stderr.flush()
                os._exit(3)
            elif mode == "signal":
                os.kill(os.getpid(), signal.SIGKILL)
            elif mode == "garbage":
                out.write(b"this is not json\n")
                out.flush()
                continue
            elif mode == "deep":
                nested = b"[" * 5000 + b"]" * 5000
                out.write(b'{"x":' + nested + b',"type":"move","id":1}\n')
                out.flush()
                continue
            elif mode == "endless":
                while True:
                    out.write(b"x" * 65536)
                    out.flush()
            elif mode == "illegal":
                held = {tuple(t) for t in msg["hand"]}
                tile = next([a, b] for a in range(7) for b in range(a, 7) if (a, b) not in held)
                reply["move"] = {"action": "play", "tile": tile, "end": "left", "out": tile[1]}
            elif mode == "wrong_id":
                reply["id"] = msg["id"] + 1000
            elif mode == "lone_surrogate":
                text = json.dumps(reply)[:-1] + ', "debug": "x\\ud800"}'
                out.write(text.encode() + b"\n")
                out.flush()
                continue
            elif mode == "unknown_field":
                reply["mvoe"] = 1
            elif mode == "late":
                time.sleep(float(arg or 1.5))
            elif mode == "silent_exit":
                sys.exit(0)
            elif mode == "orphan":
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", *marker])
                os._exit(0)
            elif mode == "close_stdout":
                os.close(1)
                time.sleep(3600)
        last_tile = reply["move"]["action"] == "play" and len(msg["hand"]) == 1
        if mode == "close_after_out" and last_tile:
            # Closed before the reply goes out, so the referee's hand_end meets a closed pipe
            # (after the reply, the referee could write hand_end before the close: a race).
            os.close(0)
            send(reply)
            time.sleep(3600)
        send(reply)
    elif kind == "strike":
        sys.stderr.write(
            f"player got strike {msg['strikes']}/{msg['max_strikes']}: {msg['code']}\n"
        )
        sys.stderr.flush()
    elif kind in ("match_end", "error"):
        sys.stderr.write(f"player got {kind}: {msg.get('message', '')}\n")
        sys.stderr.flush()
        if mode == "ignore_term":
            time.sleep(3600)
        if mode == "linger":
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", *marker])
            time.sleep(3600)
        break
