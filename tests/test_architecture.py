"""The import rules of docs/architecture.md, checked by walking the source with ``ast``.

The game engines and the protocol are pure: they touch no processes, clocks, files or sockets,
and neither imports the other nor anything else of ours. Randomness enters the engines only in
``arena/games/tiles.py``. Only ``arena/referee/spawn.py`` starts processes. The arrows point
inward: nothing but ``arena/__main__.py`` imports the CLI (``arena/cli/``, whose modules import
their siblings, never the package itself), and only the CLI, the tournament and the referee
itself import the referee. No module of ``arena/`` or ``protocol/`` takes part in an import
cycle, counting the imports inside functions.
"""

from __future__ import annotations

import ast
import re
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
        "_random",  # random's C generator (tiles.py's fast shuffle uses it)
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
#: Where the seeded shuffle lives: the one pure module allowed to import ``random`` (and its C
#: generator ``_random``).
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
    allowed = {"random", "_random"} if path == RANDOM_ALLOWED else set()
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


#: The one module that starts processes.
SPAWN = ROOT / "arena" / "referee" / "spawn.py"
#: Modules that start processes when imported and used.
STARTS_PROCESSES = frozenset({"subprocess", "multiprocessing", "pty", "asyncio.subprocess"})
#: Calls that start a process or replace this one (as ``module.name``; ``*`` ends a prefix).
PROCESS_CALLS = (
    "os.fork",
    "os.forkpty",
    "os.posix_spawn",
    "os.posix_spawnp",
    "os.exec*",
    "os.spawn*",
    "os.system",
    "os.popen",
    "trio.run_process",
    "trio.lowlevel.open_process",
    "asyncio.create_subprocess_*",
)


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for an attribute chain on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _is_process_call(name: str) -> bool:
    return any(
        name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern
        for pattern in PROCESS_CALLS
    )


def _process_starts(path: Path) -> list[str]:
    """What in ``path`` starts processes: imports of such modules, and such calls or names."""
    found = sorted(
        {n for n in _imports(path) if n in STARTS_PROCESSES or _top(n) in STARTS_PROCESSES}
    )
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Attribute) and (name := _dotted(node)) and _is_process_call(name):
            found.append(name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [
                f"{node.module}.{alias.name}"
                for alias in node.names
                if _is_process_call(f"{node.module}.{alias.name}")
            ]
    return found


def test_only_the_spawn_module_starts_processes() -> None:
    """Only arena/referee/spawn.py imports subprocess or calls fork, exec, posix_spawn or
    trio's open_process (the probes and the builds go through it too)."""
    users = {_rel(p): _process_starts(p) for p in ALL_SOURCES}
    assert {rel: what for rel, what in users.items() if what and rel != _rel(SPAWN)} == {}
    assert "subprocess" in users[_rel(SPAWN)]
    assert "trio.lowlevel.open_process" in users[_rel(SPAWN)]


def test_arrows_point_inward() -> None:
    """Only __main__ imports the CLI; only the CLI, the tournament, the cluster (which plays a
    tournament's matches on workers) and the referee itself import the referee (cli ->
    tournament -> cluster -> referee -> games)."""
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
        if not rel.startswith(
            ("arena/cli/", "arena/referee/", "arena/tournament/", "arena/cluster/")
        ):
            referee = [n for n in names if n == "arena.referee" or n.startswith("arena.referee.")]
            assert not referee, f"{rel} imports {referee}"


#: The Dask packages: imported only in arena/cluster/, which only --cluster imports.
DASK = ("dask", "distributed", "cloudpickle")


def test_only_the_cluster_imports_dask() -> None:
    """No module outside arena/cluster/ imports Dask, and outside the CLI and the tournament
    runner nothing imports arena/cluster/ (the local path never loads Dask)."""
    for path in ALL_SOURCES:
        names = _imports(path)
        rel = _rel(path)
        if rel.startswith("arena/cluster/"):
            continue
        dask = [n for n in names if n.split(".")[0] in DASK]
        assert not dask, f"{rel} imports {dask}"
        cluster = [n for n in names if n == "arena.cluster" or n.startswith("arena.cluster.")]
        if rel not in ("arena/tournament/runner.py", "arena/cli/cluster.py"):
            assert not cluster, f"{rel} imports {cluster}"


def test_the_walk_sees_the_modules_it_guards() -> None:
    """The globs find the engines and the protocol (an empty walk would check nothing)."""
    assert {"tiles.py", "api.py", "engine.py", "match.py", "plugin.py"} <= {p.name for p in GAMES}
    assert {"messages.py", "codec.py"} <= {p.name for p in PROTOCOL}
    assert _imports(RANDOM_ALLOWED).count("random") == 1


# -- import cycles --------------------------------------------------------------------------------


def _module(path: Path) -> str:
    """The dotted name of a source file (a package's ``__init__.py`` is the package)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in ALL_SOURCES}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: at module level, in functions and classes, in
    ``try`` and ``if`` blocks, but not in the body of ``if TYPE_CHECKING:`` (it never runs;
    its ``else`` does)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _targets(importer: str, path: Path) -> set[str]:
    """The modules of ours that running ``importer`` imports, with the packages whose
    ``__init__`` runs on the way (not its own packages: they are already being imported)."""
    package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
    named: list[str] = []
    for node in _runtime_import_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join([*base, node.module] if node.module else base)
        else:
            module = node.module or ""
        named.append(module)
        # ``from package import module`` imports that module.
        named += [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in MODULES]
    own = {".".join(importer.split(".")[:n]) for n in range(1, importer.count(".") + 2)}
    targets: set[str] = set()
    for name in named:
        parts = name.split(".")
        for n in range(1, len(parts) + 1):
            prefix = ".".join(parts[:n])
            if prefix in MODULES and prefix not in own:
                targets.add(prefix)
    return targets


def _import_graph() -> dict[str, set[str]]:
    return {name: _targets(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    """One cycle per strongly connected component, shortest through its first module, as
    ``a -> b -> a``; sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm (the graph has ~100 nodes)
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    cycles = []
    for component in components:
        start = min(component)
        paths = {start: [start]}
        queue = [start]
        cycle: list[str] | None = None
        while queue and cycle is None:
            node = queue.pop(0)
            for succ in sorted(graph[node] & component):
                if succ == start:
                    cycle = [*paths[node], start]
                    break
                if succ not in paths:
                    paths[succ] = [*paths[node], succ]
                    queue.append(succ)
        assert cycle is not None
        cycles.append(" -> ".join(cycle))
    return sorted(cycles)


def test_no_import_cycles() -> None:
    """No module of arena/ or protocol/ imports itself through others: imports inside
    functions count (they run, only later); those under ``if TYPE_CHECKING:`` do not (they
    never run: mypy alone reads them)."""
    assert _cycles(_import_graph()) == []


def test_the_cycle_check_finds_cycles() -> None:
    """The cycle finder names a cycle through a function-level import, and sees none where
    the only way back is a TYPE_CHECKING import."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == ["a -> b -> c -> a"]
    assert _cycles({"a": {"a"}}) == ["a -> a"]
    lazy = ast.parse("def f():\n    import arena.cli\n")
    guarded = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\n")
    assert [n.names[0].name for n in _runtime_import_nodes(lazy)] == ["arena.cli"]
    assert [type(n).__name__ for n in _runtime_import_nodes(guarded)] == ["ImportFrom"]


def test_the_import_graph_sees_packages_and_lazy_imports() -> None:
    """The graph holds the probes' import of spawn, the CLI's imports inside functions, and
    the package __init__ that importing a submodule from outside the package runs."""
    graph = _import_graph()
    assert "arena.referee.process" in graph["arena.cli.check"]  # imported inside a function
    assert "arena.referee.spawn" in graph["arena.referee.sandbox.probes"]
    assert "arena.referee.sandbox" in graph["arena.referee.process"]
    assert "arena.referee.sandbox" not in graph["arena.referee.sandbox.plan"]
    assert "arena.referee.sandbox.plan" not in graph["arena.referee.sandbox.bot"]


def test_the_process_check_sees_forks_and_execs() -> None:
    """fork, exec*, posix_spawn and trio's open_process are recognised as starting processes."""
    tree = ast.parse(
        "os.fork(); os.execvp(a, b); os.posix_spawn(p, a, e); trio.lowlevel.open_process(x);"
        " os.getpid(); trio.lowlevel.wait_readable(fd)"
    )
    names = [_dotted(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    assert sorted(n for n in names if n and _is_process_call(n)) == [
        "os.execvp",
        "os.fork",
        "os.posix_spawn",
        "trio.lowlevel.open_process",
    ]


def test_generic_code_names_no_game() -> None:
    """Outside arena/games/ no module names a registered game: no quoted name ("fives"), no
    title as a word (Fives). A game's name that is also a hand's end is not looked for (Block:
    "block" is HandEnd.BLOCK's value everywhere). The product's name and its resource prefix
    live in arena/__init__.py."""
    from arena.games.api import HandEnd
    from arena.games.registry import GAMES

    ordinary_words = {end.value for end in HandEnd}
    games_dir = ROOT / "arena" / "games"
    found = []
    for path in sorted((ROOT / "arena").rglob("*.py")):
        if games_dir in path.parents or path == ROOT / "arena" / "__init__.py":
            continue
        text = path.read_text(encoding="utf-8").replace("Matador Arena", "")
        for name, plugin in GAMES.items():
            if name in ordinary_words:
                continue
            hits = re.findall(rf"""["']{re.escape(name)}["']""", text, re.IGNORECASE)
            hits += re.findall(rf"\b{re.escape(plugin.title)}s?\b", text, re.IGNORECASE)
            found += [f"{_rel(path)}: {hit}" for hit in hits]
    assert found == []
