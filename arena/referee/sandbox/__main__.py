"""``python3 -m arena.referee.sandbox``: prints what this machine allows and the default plan."""

from __future__ import annotations

import logging

from arena.referee.sandbox.config import SandboxConfig
from arena.referee.sandbox.plan import plan_sandbox
from arena.referee.sandbox.probes import detect_capabilities


def main() -> None:
    """Prints what this machine allows and the default plan.

    Run it with ``python3 -m arena.referee.sandbox``.
    """
    logging.basicConfig(level=logging.ERROR)
    caps = detect_capabilities()
    print("detected:")
    print("  " + caps.describe().replace("\n", "\n  "))
    print()
    print(plan_sandbox(SandboxConfig(), caps).describe())


if __name__ == "__main__":
    main()
