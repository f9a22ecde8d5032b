"""A tournament's settings: what is played, stored in its database so ``--resume`` can check
that it continues the same tournament."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

FORMATS = ("round-robin", "gauntlet", "swiss", "sprt")


@dataclass(frozen=True)
class TournamentSettings:
    """Everything that decides a tournament's schedule, deals and matches.

    Attributes:
        game: the game's name.
        rules: the game's rule flags (every flag, defaults included).
        players: seats per table (2 to 4).
        format: ``round-robin``, ``gauntlet``, ``swiss``, or ``sprt`` (``arena sprt``: two
            bots, paired games until the test decides).
        rounds: how many times the schedule is played (Swiss: how many rounds).
        hands: hands per match, or ``None`` when matches are played to ``target``.
        target: points a match is played to, or ``None``.
        startup_ms, move_ms, bank_ms: the time control of every match.
        seed: the tournament seed; every deal derives from it.
    """

    game: str
    rules: dict[str, Any] = field(default_factory=dict)
    players: int = 2
    format: str = "round-robin"
    rounds: int = 1
    hands: int | None = None
    target: int | None = 100
    startup_ms: int = 5000
    move_ms: int = 1000
    bank_ms: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; formats: {', '.join(FORMATS)}")
        if not 2 <= self.players <= 4:
            raise ValueError(f"tables have 2 to 4 players, not {self.players}")
        if self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds}")
        if (self.hands is None) == (self.target is None):
            raise ValueError("matches are played either for a number of hands or to a target")
        if self.format in ("swiss", "sprt") and self.players != 2:
            raise ValueError(f"the {self.format} format pairs two players per table (--players 2)")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (stored in the database)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> TournamentSettings:
        """The settings stored by :meth:`to_dict`."""
        return cls(**raw)
