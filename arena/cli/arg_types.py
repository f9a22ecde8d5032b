"""The argparse types of the ``arena`` command's numbers: whole numbers in a range, seeds."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _whole_number(
    least: int, too_small: str, *, below: int | None = None, too_large: str = ""
) -> Callable[[str], int]:
    """An argparse type: a whole number, at least ``least`` and, if given, below ``below``.
    ``too_small`` and ``too_large`` say what is wrong with a number out of range, after it."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} {too_small}")
        if below is not None and value >= below:
            raise argparse.ArgumentTypeError(f"{value} {too_large}")
        return value

    return whole_number


_positive = _whole_number(1, "must be at least 1")
_non_negative = _whole_number(0, "must not be negative")
_seed = _whole_number(
    0, "must not be negative", below=2**63, too_large="is too large (seeds are below 2**63)"
)
