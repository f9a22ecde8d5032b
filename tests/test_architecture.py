"""The import rules of docs/architecture.md, checked by walking the source with ``ast``.

The game engines and the protocol are pure: they touch no processes, clocks, files or sockets,
and neither imports the other nor anything else of ours. Randomness enters the engines only in
``arena/games/tiles.py``. Only ``arena/referee/process.py`` runs processes. The arrows point
inward: nothing but ``arena/__main__.py`` imports the CLI (``arena/cli/``, whose modules import
their siblings, never the package itself), and only the CLI, the tournament and the referee
itself import the referee.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "arena" / "games").rglob("*.py"))
PROTOCOL = sorted((ROOT / "protocol").glob("*.py"))
ALL_SOURCES = sorted((ROOT / "arena").rglob("*.py")) + PROTOCOL

#: Standard-library modules that would let a pure module reach processes, time, files,
#: sockets, threads or the interpreter's I/O.
IMPURE = frozenset(
    {
        "asyncio",
        "datetime",
        "io",
        "multiprocessing",
        "os",
        "pathlib",
        "random",
        "select",
        "shutil",
        "signal",
        "socket",
        "subprocess",
        "sys",
        "tempfile",
        "threading",
        "time",
        "trio",
    }
)
#: Where the seeded shuffle lives: the one pure module allowed to import ``random``.
RANDOM_ALLOWED = ROOT / "arena" / "games" / "tiles.py"


def _imports(path: Path) -> list[str]:
    """Every module ``path`` imports, anywhere in the file, as absolute dotted names."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if module != "__future__":
                names.append(module)
    return names


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("path", GAMES + PROTOCOL, ids=_rel)
def test_pure_module_imports_nothing_impure(path: Path) -> None:
    """Engines and protocol import no trio/os/time/subprocess/socket/pathlib/random (etc.)."""
    allowed = {"random"} if path == RANDOM_ALLOWED else set()
    bad = sorted({n for n in _imports(path) if _top(n) in IMPURE - allowed})
    assert not bad, f"{_rel(path)} imports {bad}"


@pytest.mark.parametrize("path", GAMES, ids=_rel)
def test_games_import_only_the_standard_library_and_games(path: Path) -> None:
    """arena/games/ imports the standard library and arena.games only (no protocol, no msgspec)."""
    bad = sorted(
        n
        for n in _imports(path)
        if not (n == "arena.games" or n.startswith("arena.games."))
        and _top(n) not in sys.stdlib_module_names
    )
    assert not bad, f"{_rel(path)} imports {bad}"


@pytest.mark.parametrize("path", PROTOCOL, ids=_rel)
def test_protocol_imports_only_the_standard_library_msgspec_and_itself(path: Path) -> None:
    """protocol/ imports the standard library, msgspec and protocol only (never arena)."""
    bad = sorted(
        n
        for n in _imports(path)
        if _top(n) not in {"protocol", "msgspec"} and _top(n) not in sys.stdlib_module_names
    )
    assert not bad, f"{_rel(path)} imports {bad}"


def test_only_the_process_module_runs_processes() -> None:
    """subprocess is imported by arena/referee/process.py and by no other module."""
    users = [_rel(p) for p in ALL_SOURCES if "subprocess" in map(_top, _imports(p))]
    assert users == ["arena/referee/process.py"]


def test_arrows_point_inward() -> None:
    """Only __main__ imports the CLI; only the CLI, the tournament and the referee itself import
    the referee (cli -> tournament -> referee -> games)."""
    for path in ALL_SOURCES:
        names = _imports(path)
        rel = _rel(path)
        cli = [n for n in names if n == "arena.cli" or n.startswith("arena.cli.")]
        if rel.startswith("arena/cli/"):
            if rel != "arena/cli/__init__.py":  # siblings import siblings: no import cycle
                assert "arena.cli" not in names, f"{rel} imports the CLI's package"
        elif rel == "arena/__main__.py":
            assert cli == ["arena.cli"], f"{rel} imports {cli}"
        else:
            assert not cli, f"{rel} imports the CLI"
        if not rel.startswith(("arena/cli/", "arena/referee/", "arena/tournament/")):
            referee = [n for n in names if n == "arena.referee" or n.startswith("arena.referee.")]
            assert not referee, f"{rel} imports {referee}"


def test_the_walk_sees_the_modules_it_guards() -> None:
    """The globs find the engines and the protocol (an empty walk would check nothing)."""
    assert {"tiles.py", "api.py", "engine.py", "match.py", "plugin.py"} <= {p.name for p in GAMES}
    assert {"messages.py", "codec.py"} <= {p.name for p in PROTOCOL}
    assert _imports(RANDOM_ALLOWED).count("random") == 1
