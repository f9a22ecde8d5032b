"""A game as a plugin: everything code outside ``arena/games/`` may know about a game, as data.

Every game package (``arena/games/<name>/``) declares one :class:`GamePlugin` as ``PLUGIN`` and
registers it in :mod:`arena.games.registry`. Generic code (the CLI, the wire, the referee, the
checker, the tournament, the viewers, the replay walk) asks the plugin and never names a game:

- the **engine** (:class:`arena.games.api.Game`; a plugin is one too, it forwards the four
  calls), the **rules dataclass** whose fields carry a :class:`RuleFlag` each (the CLI's
  options, their choices and help, the rule table of docs/rules.md are derived from it), the
  **player range**, the game's own **match target** (Fives' 100) and the default target;
- the **table features** of its views (:class:`TableFeatures`: the wire and the viewers test
  features, never names), whether a hand starts with an **automatic opening**, the **drawing
  data** (:class:`Drawing`: special tiles and their label, end names, arms) and the
  **positions** ``arena check`` plays (:class:`arena.games.scenario.Scenario`).

Pure: data and the engine's functions only.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.games.api import Deal, Game, GameState
from arena.games.tiles import Tile

if TYPE_CHECKING:
    from arena.games.scenario import Scenario

#: The key of a rules field's metadata that holds its :class:`RuleFlag`.
FLAG = "flag"


@dataclass(frozen=True, slots=True)
class RuleFlag:
    """How one field of a game's rules dataclass is set and documented.

    Attributes:
        option: the command-line option (``"--hand-size"``); a bool flag also takes
            ``--no-...`` (``--spinner-sides-first`` / ``--no-spinner-sides-first``).
        choices: the allowed values, in the order the help and the docs list them.
        help: the option's help text (``arena play --help``), without the default.
        doc: what the flag does, one sentence for docs/rules.md's rule table.
        rule: the rule of docs/rules.md it belongs to (``"1.3"``).
        anchor: that rule's anchor in docs/rules.md (``"#13-deal"``).
        example: a value to show in the docs' ``arena play`` option column (a non-default).
    """

    option: str
    choices: tuple[Any, ...]
    help: str
    doc: str
    rule: str
    anchor: str
    example: Any = None

    @property
    def is_bool(self) -> bool:
        """Whether the flag is a switch (``--x`` / ``--no-x``)."""
        return all(isinstance(c, bool) for c in self.choices)

    @property
    def dest(self) -> str:
        """The argparse destination of the option (``--hand-size`` -> ``hand_size``)."""
        return self.option.removeprefix("--").replace("-", "_")


def flag(
    *,
    option: str,
    choices: tuple[Any, ...],
    help: str,
    doc: str,
    rule: str,
    anchor: str,
    example: Any = None,
) -> dict[str, RuleFlag]:
    """A rules dataclass field's metadata: its :class:`RuleFlag`, e.g.
    ``hand_size: HandSize = field(default=5, metadata=flag(option="--hand-size", ...))``."""
    return {FLAG: RuleFlag(option, choices, help, doc, rule, anchor, example)}


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """One rules flag of a game: the dataclass field's ``name``, ``default`` and ``flag``."""

    name: str
    default: Any
    flag: RuleFlag


def rule_specs(rules_type: type[Any]) -> tuple[RuleSpec, ...]:
    """The flags of a rules dataclass in field order (every field must carry a RuleFlag)."""
    specs = []
    for f in dataclasses.fields(rules_type):
        flag = f.metadata.get(FLAG)
        if not isinstance(flag, RuleFlag):
            raise TypeError(f"{rules_type.__name__}.{f.name} has no RuleFlag metadata")
        specs.append(RuleSpec(f.name, f.default, flag))
    return tuple(specs)


@dataclass(frozen=True, slots=True)
class TableFeatures:
    """The table facts a game's seat views carry beyond every game's (``SeatView``'s tail).

    Attributes:
        spinner: a spinner with arms: ``SeatView.spinner`` and ``SeatView.arms`` are set (the
            wire sends ``spinner`` and ``arms``; the viewers draw a cross).
        end_count: ``SeatView.end_count`` is the count of the open ends (the wire's ``count``).
        hand_scoring: points are scored during a hand: ``SeatView.scoring`` lists the events
            and the scores include them as they happen (the wire's ``scoring``).
        draws: a seat may draw from the boneyard (``DRAW`` is a move of the game).
    """

    spinner: bool = False
    end_count: bool = False
    hand_scoring: bool = False
    draws: bool = True


@dataclass(frozen=True, slots=True)
class Drawing:
    """What the viewers and the report need to draw a game's table.

    Attributes:
        special_tiles: tiles marked as special (Matador's matadors), empty when none.
        special_label: what a special tile is called (``"matador"``), plural with an ``s``.
        line_ends: the two ends of the line, the one whose plays go before ``layout[0]`` first
            (``("left", "right")``; Fives: ``("west", "east")``).
        arm_ends: the spinner's arm ends, read outward from it (Fives: ``("north", "south")``),
            empty when the game has no spinner.
        boneyard_label: what the undealt tiles are called (``"boneyard"``; Fives: ``"stock"``;
            Block: ``"out of play"``, nobody draws them).
        join_rule: how tiles join, one short phrase for a legend (``"halves sum to 7"``).
        count_multiple: with ``TableFeatures.end_count``, the multiple of the count of the open
            ends that scores (Fives: 5; the viewers mark such a count); 0 when none does.
    """

    special_tiles: frozenset[Tile] = frozenset()
    special_label: str = ""
    line_ends: tuple[str, str] = ("left", "right")
    arm_ends: tuple[str, ...] = ()
    boneyard_label: str = "boneyard"
    join_rule: str = "equal halves"
    count_multiple: int = 0

    @property
    def end_names(self) -> tuple[str, ...]:
        """Every end position of the game: the line's two, then the arms'."""
        return (*self.line_ends, *self.arm_ends)


@dataclass(frozen=True, repr=False)
class GamePlugin:
    """A game, as generic code sees it (see the module docstring).

    Attributes:
        name: the game's name: the registry's key, ``--game``'s value, the replay's ``game``
            and the tag of its rules message on the wire.
        title: the name as printed (``"Matador"``).
        summary: one line saying what the game is (``arena --help``, the docs).
        engine: the engine: parse_rules, rules_dict, deal, start_hand.
        rules_type: the rules dataclass; each field carries a :class:`RuleFlag`.
        min_players, max_players: how many seats it is for.
        match_target: a score that ends a match at once, whatever its length (Fives' 100),
            or ``None``.
        default_target: the target of a match when no length is given.
        automatic_opening: a hand starts with a tile already laid (Fives: the opening is the
            first entry of the history and no bot was asked for it).
        features: the table facts its views carry.
        drawing: what the viewers need to draw it.
        check_first: ``arena check``'s first-hand position (the bot's first request).
        check_rules: ``arena check``'s rule positions, in the order they are played.
        rules_doc: the section of docs/rules.md about the game (``"rules.md#fives"``).
    """

    name: str
    title: str
    summary: str
    engine: Game
    rules_type: type[Any]
    min_players: int
    max_players: int
    match_target: int | None
    automatic_opening: bool
    features: TableFeatures
    drawing: Drawing
    check_first: Scenario
    check_rules: tuple[Scenario, ...]
    rules_doc: str
    default_target: int = 100

    def __repr__(self) -> str:
        return f"<GamePlugin {self.name}>"

    # -- the engine's four calls, so that a plugin is an arena.games.api.Game --

    def parse_rules(self, raw: dict[str, Any]) -> Any:
        """The engine's rules from a JSON-like mapping of flags (``ValueError`` if wrong)."""
        return self.engine.parse_rules(raw)

    def rules_dict(self, rules: Any) -> dict[str, Any]:
        """Every flag of ``rules`` as a JSON-ready mapping (defaults included)."""
        return self.engine.rules_dict(rules)

    def deal(self, rules: Any, players: int, seed: int) -> Deal:
        """The deal of a hand from ``seed``."""
        return self.engine.deal(rules, players, seed)

    def start_hand(
        self,
        rules: Any,
        players: int,
        deal: Deal,
        scores: tuple[int, ...] | None = None,
        retired: frozenset[int] = frozenset(),
    ) -> GameState:
        """The opening position of a hand (after the automatic opening, if the game has one)."""
        return self.engine.start_hand(rules, players, deal, scores, retired)

    # -- derived facts --

    @property
    def rules(self) -> tuple[RuleSpec, ...]:
        """The game's rules flags, in the rules dataclass's field order."""
        return rule_specs(self.rules_type)

    def players_text(self) -> str:
        """``2`` or ``2 to 4``."""
        low, high = self.min_players, self.max_players
        return f"{low}" if low == high else f"{low} to {high}"

    def check_players(self, players: int) -> str | None:
        """Why ``players`` seats cannot play this game (``None`` when they can)."""
        if self.min_players <= players <= self.max_players:
            return None
        return f"{self.name} is for {self.players_text()} players, not {players}"


def rule_table(plugin: GamePlugin) -> str:
    """The Markdown table of ``plugin``'s rules flags, as docs/rules.md prints it (a test
    compares the page with this), or ``""`` for a game without flags."""
    if not plugin.rules:
        return ""
    rows = [
        "| Flag | Values | Default | `arena play` option | Rule | What it sets |",
        "|---|---|---|---|---|---|",
    ]
    for spec in plugin.rules:
        flag = spec.flag
        values = ", ".join(f"`{_json(c)}`" for c in flag.choices)
        if flag.is_bool:
            option = f"`{flag.option}` / `--no-{flag.option[2:]}`"
        else:
            option = f"`{flag.option} {flag.example}`"
        rule = f"[{flag.rule}]({flag.anchor})"
        rows.append(
            f"| `{spec.name}` | {values} | `{_json(spec.default)}` | {option} | {rule} "
            f"| {flag.doc} |"
        )
    return "\n".join(rows) + "\n"


def _json(value: Any) -> str:
    """A rules value as JSON writes it (``5``, ``"any"``, ``true``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)
