#!/usr/bin/env python3
"""Test bot: writes a 1 GB file in its working directory, 1 MB at a time, says how it went,
then waits for stdin to close.

Python ignores SIGXFSZ, so the file-size limit shows as EFBIG ("File too large").
"""

import errno
import os
import sys

chunk = b"\0" * (1 << 20)
written = 0
path = os.path.join(os.getcwd(), "big.bin")
try:
    with open(path, "wb", buffering=0) as out:
        while written < 1 << 30:
            written += out.write(chunk)
    print(f"wrote {written} {path}", flush=True)
except OSError as exc:
    print(f"{errno.errorcode.get(exc.errno or 0, exc.errno)} {written} {path}", flush=True)
for _line in sys.stdin:
    pass
