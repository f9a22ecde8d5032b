"""The bots of a tournament: finding them from the command line, building them, checking them.

A bot is given either as a command line (``"python3 sample_bots/greedy.py"``) or as a folder
with a ``bot.toml`` manifest, or as a directory whose immediate subfolders are bot folders.
`discover` (and `scan`, which also reports the subfolders it skipped) turns the arguments into
`Entrant` values with unique names, or raises `EntrantError` saying exactly what is wrong.

`prepare` then runs every bot's build command once, in its folder, with a time limit and its
output kept to a bounded tail, and checks the handshake of every bot that built: it starts the
bot, sends it a real ``hello`` and expects a ``ready`` within ``startup_ms``. Given the
tournament's sandbox plan, both steps run contained, the handshake exactly as a match starts
the bot. A bot that cannot be started, whose build fails, or that fails the handshake becomes
an `Excluded` record with a reason for people; the others go on to the tournament.
docs/bot-folders.md describes the manifest and these steps for bot authors.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import trio

from arena.errors import ArenaError
from arena.games.registry import DEFAULT_GAME, get_game
from arena.judge import Fault, Rejection, judge_ready
from arena.referee.capped import run_capped
from arena.referee.commands import BotCommandError
from arena.referee.framing import LineTooLongError
from arena.referee.process import (
    BotEOFError,
    BotGoneError,
    BotProcess,
    open_bot_process,
)
from arena.referee.sandbox import (
    Mechanism,
    ResourceLimit,
    ResourceOutcome,
    SandboxError,
    SandboxPlan,
)
from arena.reference.spec import SpecError, is_ref, ref_name
from arena.text import printable
from arena.wire import rules_to_wire
from protocol.codec import encode
from protocol.messages import (
    MAX_NAME_CHARS,
    PROTOCOL_VERSION,
    Hello,
    MatchLength,
    RulesConfig,
    TimeControl,
)

__all__ = [
    "BUILD_OUTPUT_CAP_BYTES",
    "DEFAULT_CONCURRENCY",
    "MANIFEST",
    "OUTPUT_TAIL_CHARS",
    "REASON_TAIL_CHARS",
    "REASON_TAIL_LINES",
    "Discovery",
    "Entrant",
    "EntrantError",
    "Excluded",
    "Skipped",
    "Stage",
    "command_names",
    "discover",
    "handshake_hello",
    "prepare",
    "scan",
    "too_few_text",
]

MANIFEST = "bot.toml"
"""The file name that makes a folder a bot folder."""

DEFAULT_CONCURRENCY = 8
"""How many bots `prepare` starts at once for the handshake check."""

BUILD_OUTPUT_CAP_BYTES = 1 << 16
"""How many bytes of a build's output (stdout and stderr together) are kept: the last ones."""

OUTPUT_TAIL_CHARS = 4000
"""The most characters of output an `Excluded` record carries."""

REASON_TAIL_LINES = 10
"""How many of the last output lines a build failure quotes in its reason."""

REASON_TAIL_CHARS = 1000
"""The most characters of output a build failure quotes in its reason."""

EXIT_WAIT_S = 0.5
"""After a bot closes its stdout, how long to wait for it to exit so its exit code is known."""

DRAIN_GRACE_S = 1.0
"""After a build ends, how long to wait for the rest of its output."""


Stage = Literal["build", "handshake", "command"]
"""Where a bot was excluded: its build, its handshake, or its command (it cannot be started)."""

_FIELDS = ("name", "command", "build", "language")
_REQUIRED = ("name", "command")
_NAME_RE = re.compile(r"[\w+-][\w.+-]*")
_NOT_NAME_CHARS = re.compile(r"[^\w.+-]+")
# Programs that run the file named after them: a command line's name comes from that file.
_INTERPRETER_RE = re.compile(
    r"(python|pypy|node|nodejs|deno|bun|ruby|perl|php|lua|luajit|bash|sh|dash|zsh|java|env"
    r"|julia|dotnet|mono|racket|guile|escript|elixir|swift|go|Rscript)[0-9.]*"
)
_TOML_TYPES: dict[type, str] = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    list: "an array",
    dict: "a table",
}


class EntrantError(ArenaError, ValueError):
    """The bots given cannot make a tournament: a bad manifest, a duplicate name, or no bot.

    Attributes:
        problems: One sentence per problem, each naming the file or argument at fault. The
            message is these sentences, one per line.
    """

    def __init__(self, problems: Sequence[str]) -> None:
        """Builds the error from its problems.

        Args:
            problems: At least one sentence for people.
        """
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True, slots=True)
class Entrant:
    """One bot of a tournament.

    Attributes:
        name: Its name, unique within the tournament: the manifest's ``name`` for a folder
            bot, derived from the command line otherwise.
        command: The command line that starts it (split shell-style; no shell is involved).
        cwd: The absolute path of the bot folder, where the command and the build run, or
            ``None`` for a command-line bot (which runs in the arena's own directory).
        language: The manifest's language note, or ``None``.
        build: The manifest's build command, or ``None``.
        source: The command-line argument the bot came from (for a directory of bot folders,
            that directory).
    """

    name: str
    command: str
    cwd: str | None = None
    language: str | None = None
    build: str | None = None
    source: str = ""

    @property
    def key(self) -> str:
        """The bot's stable key in the results database: its name."""
        return self.name


@dataclass(frozen=True, slots=True)
class Skipped:
    """A subfolder of a directory of bot folders that is not a bot.

    Attributes:
        path: The subfolder, as the argument spelled its directory.
        reason: Why it was skipped.
    """

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Discovery:
    """What `scan` found.

    Attributes:
        entrants: The bots, in the order of the arguments (bot folders of a directory sorted
            by folder name).
        skipped: Subfolders of directories of bot folders that have no manifest.
    """

    entrants: list[Entrant]
    skipped: list[Skipped]


@dataclass(frozen=True, slots=True)
class Excluded:
    """A bot that `prepare` left out of the tournament, and why.

    Attributes:
        entrant: The bot.
        stage: ``"command"`` (it cannot be started, e.g. its program does not exist),
            ``"build"`` (its build could not run, failed, or ran out of time) or
            ``"handshake"`` (it did not answer ``hello`` with a valid ``ready`` in time).
        reason: One sentence for people (a build failure quotes the last lines of output).
        output_tail: The end of the build's output (stdout and stderr together) or of the
            bot's stderr, up to `OUTPUT_TAIL_CHARS` characters; empty when there was none.
    """

    entrant: Entrant
    stage: Stage
    reason: str
    output_tail: str = ""


# -- discovery ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Found:
    """An entrant before names are settled: ``name`` is a wish for a command-line bot."""

    name: str
    command: str
    source: str
    explicit: bool
    origin: str  # the manifest path, or the command line, for messages
    cwd: str | None = None
    language: str | None = None
    build: str | None = None


def discover(args: Sequence[str]) -> list[Entrant]:
    """Turns command-line arguments into the bots of a tournament.

    Each argument is a bot folder (it holds a ``bot.toml``), a directory of bot folders (every
    immediate subfolder with a ``bot.toml``, sorted by folder name), a ``bot.toml`` file, or
    else a command line. Use `scan` to learn which subfolders were skipped.

    Args:
        args: The arguments, in order.

    Returns:
        The bots in the order found, with unique names.

    Raises:
        EntrantError: For an unparsable or empty command line, a bad manifest, a duplicate
            manifest name, a directory without bot folders, or no arguments. Every problem
            found is listed, not only the first.
    """
    return scan(args).entrants


def scan(args: Sequence[str]) -> Discovery:
    """Like `discover`, and also reports the subfolders that were skipped.

    Args:
        args: The arguments, in order (see `discover`).

    Returns:
        The bots and the skipped subfolders.

    Raises:
        EntrantError: As `discover`.
    """
    if not args:
        raise EntrantError(["no bots given: name bot folders, directories of them, or commands"])
    found: list[_Found] = []
    skipped: list[Skipped] = []
    problems: list[str] = []
    for arg in args:
        _scan_arg(arg, found, skipped, problems)
    if problems:
        raise EntrantError(problems)
    return Discovery(_settle_names(found), skipped)


def _scan_arg(arg: str, found: list[_Found], skipped: list[Skipped], problems: list[str]) -> None:
    if os.path.isfile(arg) and os.path.basename(arg) == MANIFEST:
        _load_folder(os.path.dirname(arg) or ".", arg, found, problems)
    elif os.path.isdir(arg):
        if os.path.isfile(os.path.join(arg, MANIFEST)):
            _load_folder(arg, arg, found, problems)
        else:
            _scan_directory(arg, found, skipped, problems)
    elif arg.endswith(("/", os.sep)):
        problems.append(f"{arg}: no such directory")
    else:
        _add_command(arg, found, problems)


def _scan_directory(
    directory: str, found: list[_Found], skipped: list[Skipped], problems: list[str]
) -> None:
    try:
        names = sorted(os.listdir(directory))
    except OSError as exc:
        problems.append(f"{directory}: cannot list: {exc.strerror or exc}")
        return
    folders = 0
    for name in names:
        path = os.path.join(directory, name)
        if name.startswith((".", "__")) or not os.path.isdir(path):
            continue
        if os.path.isfile(os.path.join(path, MANIFEST)):
            folders += 1
            _load_folder(path, directory, found, problems)
        else:
            skipped.append(Skipped(path, f"no {MANIFEST}"))
    if not folders:
        problems.append(
            f"{directory}: not a bot folder (no {MANIFEST}) and no subfolder is one either"
        )


def command_names(commands: Sequence[str]) -> list[str]:
    """The arena's names for bots given as command lines, as a tournament would name them:
    each the stem of the file its command runs, made unique (``greedy``, ``greedy-js``).

    Args:
        commands: The command lines (an unparsable one is named ``bot``).
    """
    found: list[_Found] = []
    for command in commands:
        problems: list[str] = []
        _add_command(command, found, problems)
        if problems:
            found.append(_Found("bot", command, command, explicit=False, origin=command))
    return [entrant.name for entrant in _settle_names(found)]


def _add_command(command: str, found: list[_Found], problems: list[str]) -> None:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        problems.append(f"bot command {command!r}: cannot parse: {exc}")
        return
    if not argv:
        problems.append(f"bot command {command!r}: empty command")
        return
    if len(argv) == 1 and is_ref(argv[0]):
        try:
            name = ref_name(argv[0])
        except SpecError as exc:
            problems.append(f"bot command {command!r}: {exc}")
            return
        found.append(_Found(name, command, command, explicit=False, origin=command))
        return
    found.append(_Found(_name_from_argv(argv), command, command, explicit=False, origin=command))


def _name_from_argv(argv: list[str]) -> str:
    """The stem of the file the command runs: the first argument that is neither an
    interpreter (``python3``, ``node``, ``java``, ``env``...), an option, an assignment nor the
    word ``run`` right after an interpreter; the program itself if every argument is one."""
    previous_was_interpreter = False
    for arg in argv:
        base = os.path.basename(arg)
        if _INTERPRETER_RE.fullmatch(base):
            previous_was_interpreter = True
            continue
        skip = arg.startswith("-") or ("=" in arg and "/" not in arg.split("=")[0])
        if skip or (previous_was_interpreter and arg == "run"):
            previous_was_interpreter = False
            continue
        name = _clean_name(arg)
        if name:
            return name
    return _clean_name(argv[0]) or "bot"


def _extension_of(command: str) -> str:
    """The extension of the file a command runs (``js`` for ``node bot.js``), or ``""``."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return ""
    stem = _name_from_argv(argv)
    for arg in argv:
        base = os.path.basename(arg)
        _root, ext = os.path.splitext(base)
        if ext and _clean_name(arg) == stem:
            return _NOT_NAME_CHARS.sub("-", ext[1:])[:8]
    return ""


def _clean_name(path: str) -> str:
    base = os.path.basename(path.rstrip("/"))
    stem = os.path.splitext(base)[0] if not base.startswith(".") else base
    return _NOT_NAME_CHARS.sub("-", stem).lstrip(".")[:MAX_NAME_CHARS]


def _settle_names(found: list[_Found]) -> list[Entrant]:
    """Checks manifest names for duplicates, then gives command-line bots free names."""
    by_name: dict[str, list[_Found]] = {}
    for item in found:
        if item.explicit:
            by_name.setdefault(item.name, []).append(item)
    duplicates = [
        f"duplicate bot name {name!r}: {_and(_origins(items))}"
        for name, items in by_name.items()
        if len(items) > 1
    ]
    if duplicates:
        raise EntrantError(duplicates)
    taken = set(by_name)
    extensions: dict[str, set[str]] = {}
    entrants = []
    for item in found:
        name = item.name
        if not item.explicit:
            extension = _extension_of(item.command)
            seen = extensions.setdefault(item.name, set())
            # greedy.py and greedy.js become greedy and greedy-js rather than greedy-2.
            if name in taken and seen and extension and extension not in seen:
                name = f"{name}-{extension}"
            seen.add(extension)
            number = 1
            while name in taken:
                number += 1
                name = f"{item.name}-{number}"
            taken.add(name)
        entrants.append(
            Entrant(
                name=name,
                command=item.command,
                cwd=item.cwd,
                language=item.language,
                build=item.build,
                source=item.source,
            )
        )
    return entrants


def _origins(items: list[_Found]) -> list[str]:
    """The manifests of same-named bots; with the argument each came from, if one is repeated."""
    origins = [item.origin for item in items]
    if len(set(origins)) == len(origins):
        return origins
    return [f"{item.origin} (given as {item.source})" for item in items]


def _and(words: Iterable[str]) -> str:
    items = list(words)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


# -- manifests ----------------------------------------------------------------------------------


def _load_folder(folder: str, source: str, found: list[_Found], problems: list[str]) -> None:
    path = os.path.join(folder, MANIFEST)
    fields, errors = _read_manifest(path)
    if errors:
        problems.extend(errors)
        return
    found.append(
        _Found(
            name=fields["name"],
            command=fields["command"],
            source=source,
            explicit=True,
            origin=path,
            cwd=os.path.abspath(folder),
            language=fields.get("language"),
            build=fields.get("build"),
        )
    )


def _read_manifest(path: str) -> tuple[dict[str, str], list[str]]:
    """Reads and checks one manifest.

    Returns:
        The fields (all strings) and the problems found, each a sentence naming ``path``.
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        return {}, [f"{path}: cannot read: {exc.strerror or exc}"]
    try:
        # utf-8-sig: editors on Windows start UTF-8 files with a byte order mark; TOML allows
        # none, but it is no mistake of the author's, so it is read past.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return {}, [f"{path}: not UTF-8 text (byte {exc.start})"]
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: invalid TOML: {exc}"]
    problems = []
    fields: dict[str, str] = {}
    for key, value in table.items():
        if key not in _FIELDS:
            close = difflib.get_close_matches(key, _FIELDS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(_FIELDS)
            problems.append(f"{path}: unknown field {key!r}{hint} (the fields are {known})")
        elif not isinstance(value, str):
            problems.append(f"{path}: {key!r} must be a string, not {_toml_type(value)}")
        else:
            fields[key] = value
    for key in _REQUIRED:
        if key not in table:
            problems.append(f"{path}: missing required field {key!r}")
    name = fields.get("name")
    if name is not None and not (len(name) <= MAX_NAME_CHARS and _NAME_RE.fullmatch(name)):
        problems.append(
            f"{path}: 'name' must be 1 to {MAX_NAME_CHARS} letters, digits, '_', '-', '+' or"
            f" '.' (not first), got {name!r}"
        )
    for key in ("command", "build"):
        value = fields.get(key)
        if value is None:
            continue
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            problems.append(f"{path}: {key!r} cannot be parsed: {exc}")
            continue
        if not argv:
            problems.append(f"{path}: {key!r} is empty")
    return fields, problems


def _toml_type(value: object) -> str:
    for kind, description in _TOML_TYPES.items():
        if isinstance(value, kind):
            return description
    return "a date or time"


def too_few_text(given: int, kept: int, players: int) -> str | None:
    """Why ``given`` bots, of which ``kept`` passed their build and handshake, cannot fill a
    ``players``-player table; ``None`` when they can.

    Args:
        given: How many bots the arguments named (after discovery).
        kept: How many of them passed `prepare` (``given`` when not prepared yet).
        players: The table size (``--players``).
    """
    table = f"a {players}-player table needs at least {players} bots"
    if given < players:
        return f"{table} (--players {players}), but {given} {_were(given)} given"
    if kept < players:
        return f"only {kept} of the {given} bots passed their build and handshake; {table}"
    return None


def _were(count: int) -> str:
    return "was" if count == 1 else "were"


# -- preparation --------------------------------------------------------------------------------


def default_rules_wire() -> RulesConfig:
    """The default game's default rules, as the ``rules`` of a ``hello``."""
    game = get_game(DEFAULT_GAME)
    return rules_to_wire(game.name, game.rules_dict(game.parse_rules({})))


def handshake_hello(startup_ms: int) -> Hello:
    """The ``hello`` that `prepare` sends by default: seat 0 of 2, default rules, seed 0.

    Args:
        startup_ms: The time the bot has to answer, as the message tells it.

    Returns:
        A ``hello`` for a match to 100 points with a 1000 ms move limit.
    """
    return Hello(
        protocol=PROTOCOL_VERSION,
        game=DEFAULT_GAME,
        seat=0,
        players=2,
        rules=default_rules_wire(),
        match=MatchLength(target=100),
        time=TimeControl(startup_ms=startup_ms, move_ms=1000),
        seed=0,
    )


async def prepare(
    entrants: Sequence[Entrant],
    *,
    startup_ms: int,
    build_timeout_s: float,
    concurrency: int = DEFAULT_CONCURRENCY,
    build_concurrency: int | None = None,
    hello: Hello | None = None,
    sandbox: SandboxPlan | None = None,
) -> tuple[list[Entrant], list[Excluded]]:
    """Builds every bot once, then checks that each one answers the handshake.

    First every build command runs in its bot folder (stdin empty, stdout and stderr kept
    together, the last `BUILD_OUTPUT_CAP_BYTES` of them kept), in its own process group,
    which is killed when the build ends or runs out of time. Then every bot that built is
    started (`open_bot_process`, in its folder), sent ``hello`` and given ``startup_ms`` from
    then to answer ``ready``; then it is stopped. Both steps run concurrently across bots.

    With ``sandbox``, the plan the tournament's matches use, both steps are contained, and
    every entrant's folder is hidden from the others (`SandboxPlan.with_hidden`). The
    handshake starts the bot exactly as a match does, so a bot that works only outside the
    sandbox is excluded here, with the sandbox named in its reason. A build runs as the
    bots' user on a private copy of its folder that is copied back when it succeeds
    (`run_capped` with ``sandbox``): the plan's network, memory, process, file-size and
    open-file limits, CPU time bounded by ``build_timeout_s`` instead of the match's.

    Args:
        entrants: The bots, e.g. from `discover`.
        startup_ms: The time a bot has to answer ``hello``, in milliseconds.
        build_timeout_s: The time a build may take, in seconds.
        concurrency: How many bots to start at once for the handshake.
        build_concurrency: How many builds to run at once (default: the number of CPUs).
        hello: The message to send (default: `handshake_hello`).
        sandbox: The sandbox plan of the tournament's bots, or ``None`` to build and check
            them uncontained.

    Returns:
        The bots that passed, and the ones excluded, each in the order given.

    Raises:
        ValueError: If a limit is not positive.
    """
    if startup_ms < 1 or build_timeout_s <= 0 or concurrency < 1:
        raise ValueError("startup_ms, build_timeout_s and concurrency must be positive")
    if build_concurrency is None:
        build_concurrency = os.cpu_count() or 1
    if build_concurrency < 1:
        raise ValueError("build_concurrency must be positive")
    line = encode(hello if hello is not None else handshake_hello(startup_ms))
    outcome: list[Excluded | None] = [None] * len(entrants)
    # As in the matches: no bot sees another entrant's folder (its own stays visible).
    plan = None if sandbox is None else sandbox.with_hidden(e.cwd for e in entrants if e.cwd)

    async def build_one(index: int, entrant: Entrant, limiter: trio.CapacityLimiter) -> None:
        assert entrant.build is not None
        async with limiter:
            outcome[index] = await _build(entrant, entrant.build, build_timeout_s, plan)

    async def check_one(index: int, entrant: Entrant, limiter: trio.CapacityLimiter) -> None:
        async with limiter:
            outcome[index] = await _handshake(entrant, line, startup_ms, plan)

    async with trio.open_nursery() as nursery:
        limiter = trio.CapacityLimiter(build_concurrency)
        for index, entrant in enumerate(entrants):
            if entrant.build is not None:
                nursery.start_soon(build_one, index, entrant, limiter)
    async with trio.open_nursery() as nursery:
        limiter = trio.CapacityLimiter(concurrency)
        for index, entrant in enumerate(entrants):
            if outcome[index] is None:
                nursery.start_soon(check_one, index, entrant, limiter)
    kept = [entrant for entrant, out in zip(entrants, outcome, strict=True) if out is None]
    return kept, [out for out in outcome if out is not None]


# -- builds -------------------------------------------------------------------------------------


async def _build(
    entrant: Entrant, build: str, timeout_s: float, plan: SandboxPlan | None
) -> Excluded | None:
    """Runs one build; returns why the bot is excluded, or ``None`` if the build succeeded."""
    if plan is not None and entrant.cwd is None:
        return Excluded(entrant, "build", "cannot run the build: a build needs a bot folder")
    try:
        result = await run_capped(
            build,
            cwd=entrant.cwd,
            timeout_s=timeout_s,
            output_cap=BUILD_OUTPUT_CAP_BYTES,
            sandbox=plan,
        )
    except BotCommandError as error:
        return Excluded(entrant, "build", f"cannot run the build: {error}")
    except SandboxError as error:
        return Excluded(entrant, "build", f"cannot run the build in the sandbox: {error}")
    output = result.output
    if result.timed_out:
        reason = f"build {build!r} did not finish within {timeout_s:g} s and was stopped"
    elif result.status.returncode == 0 and result.problem is None:
        return None
    elif result.status.returncode == 0:
        reason = f"build {build!r} succeeded but its results were not kept: {result.problem}"
    else:
        reason = f"build {build!r} failed ({result.status.describe()})"
        if result.limit is not None:
            reason += f": {_limit_text(result.limit)}"
        if plan is not None:
            reason += f" in the sandbox ({_sandbox_note(plan, build=True)})"
    return Excluded(entrant, "build", _with_output(reason, output), output[-OUTPUT_TAIL_CHARS:])


def _limit_text(outcome: ResourceOutcome) -> str:
    usage = outcome.usage
    if outcome.limit is ResourceLimit.MEMORY and usage.memory_limit_bytes is not None:
        return (
            f"it went over its memory limit of {usage.memory_limit_bytes >> 20} MB and"
            " the kernel killed it"
        )
    if outcome.limit is ResourceLimit.CPU and usage.cpu_limit_s is not None:
        return f"it used up its CPU time ({usage.cpu_limit_s:g} s)"
    return outcome.detail


def _sandbox_note(plan: SandboxPlan, *, build: bool) -> str:
    """What the sandbox changes for a bot, in a few words: its mechanism, network, files."""
    config = plan.config
    notes = [plan.mechanism.value]
    if not config.allow_network and plan.mechanism is not Mechanism.RLIMITS:
        notes.append("no network")
    if build and plan.mechanism is Mechanism.BWRAP:
        notes.append("it may write only in its folder, $HOME and $TMPDIR")
    elif build:
        notes.append("it runs in a copy of its folder")
    elif plan.mechanism is Mechanism.BWRAP:
        notes.append("its folder is read-only, it starts in an empty working directory")
    else:
        notes.append("it starts in an empty working directory")
    if plan.drop is not None:
        notes.append(f"as uid {plan.drop[0]}")
    return ", ".join(notes)


def _with_output(reason: str, output: str) -> str:
    # The output is the bot's: escaped here, so no terminal that shows the reason obeys it.
    tail = output.rstrip()[-REASON_TAIL_CHARS:].splitlines()[-REASON_TAIL_LINES:]
    lines = [printable(line) for line in tail]
    if not lines:
        return f"{reason}; it printed nothing"
    return f"{reason}; its output ends with:\n" + "\n".join(lines)


# -- handshakes ---------------------------------------------------------------------------------


async def _handshake(
    entrant: Entrant, hello: bytes, startup_ms: int, plan: SandboxPlan | None
) -> Excluded | None:
    """Starts one bot, sends ``hello``, awaits ``ready``; returns why it fails, or ``None``."""
    try:
        async with open_bot_process(entrant.command, cwd=entrant.cwd, sandbox=plan) as bot:
            reason = await _await_ready(bot, hello, startup_ms)
        tail = bot.stderr_tail(OUTPUT_TAIL_CHARS)
    except BotCommandError as error:
        return Excluded(entrant, "command", str(error))
    except SandboxError as error:
        return Excluded(entrant, "command", f"cannot start it in the sandbox: {error}")
    if reason is None:
        return None
    if plan is not None:
        limit = bot.resource_outcome()
        if limit is not None:
            reason += f": {_limit_text(limit)}"
        reason += f"; it ran in the sandbox ({_sandbox_note(plan, build=False)})"
    return Excluded(entrant, "handshake", reason, tail)


async def _await_ready(bot: BotProcess, hello: bytes, startup_ms: int) -> str | None:
    with trio.move_on_after(startup_ms / 1000):
        try:
            await bot.send_line(hello)
            return _check_ready(await bot.receive_line())
        except (BotGoneError, BotEOFError) as error:
            return await _ended_early(bot, error)
        except LineTooLongError as error:
            return f"answered 'hello' with a line that is too long: {error}"
    # A last look at the pipe, so a bot is not blamed for the arena's own stall.
    try:
        line = bot.poll_line_nowait()
    except LineTooLongError as error:
        return f"answered 'hello' with a line that is too long: {error}"
    if line is not None:
        return _check_ready(line)
    status = bot.exit_status()
    if not status.running:
        return (
            f"exited ({status.describe()}) without answering 'hello'; a process it started"
            " kept its output open"
        )
    return f"did not answer 'hello' with 'ready' within {startup_ms} ms"


async def _ended_early(bot: BotProcess, error: BotGoneError | BotEOFError) -> str:
    with trio.move_on_after(EXIT_WAIT_S):
        await bot.wait_exit()
    status = bot.exit_status()
    if status.running:
        reason = "closed its output without answering 'hello'"
    else:
        reason = f"exited ({status.describe()}) without answering 'hello'"
    unterminated = getattr(error, "unterminated", b"")
    if unterminated:
        shown = unterminated[:200].decode(errors="replace")
        reason += f"; it wrote {shown!r} without a newline"
    return reason


def _check_ready(line: bytes) -> str | None:
    """What is wrong with a bot's answer to ``hello`` (the referee's judge decides), or None."""
    judged = judge_ready(line)
    if not isinstance(judged, Rejection):
        return None
    if judged.fault is Fault.MALFORMED:
        return f"answered 'hello' with an invalid message: {judged.error}"
    if judged.fault is Fault.UNEXPECTED_MESSAGE:
        return f"answered 'hello' with a {judged.message!r} message, not 'ready'"
    return f"speaks protocol {judged.protocol}; this arena speaks protocol {PROTOCOL_VERSION}"
