#!/usr/bin/env python3
"""Test bot: tries a TCP connection to 127.0.0.1:argv[1] and says "connected" or why not."""

import errno
import socket
import sys

try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2) as conn:
        conn.sendall(b"hello from the bot\n")
    print("connected", flush=True)
except OSError as exc:
    print(f"failed {errno.errorcode.get(exc.errno or 0, exc.errno)}", flush=True)
