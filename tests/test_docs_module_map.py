"""docs/architecture.md's module map names every module of ``arena/`` and ``protocol/``.

The map is the ``text`` block under "## Module map": a folder (``arena/games/``) or a module
(``arena/wire.py``) at the left margin, the folder's entries indented two spaces per level, and
each entry's purpose in the description column. A module counts as named when it has its own
entry, or when its folder has one whose description names the file (``positions.py``); a
package's ``__init__.py`` is named by its folder's entry.
"""

from __future__ import annotations

import re

from tests.helpers import REPO

DOC = REPO / "docs" / "architecture.md"
#: Where an entry's name stops and its description starts: a line indented this far or more
#: continues the description above it.
DESCRIPTION_COLUMN = 20
#: One entry: its name, or several sharing a line (``viewer.js, viewer.css``), then its purpose.
ENTRY = re.compile(r"(?P<names>[\w./]+(?:, [\w./]+)*)\s*(?P<description>.*)")


def module_map(text: str) -> dict[str, str]:
    """The map's entries: each folder's or module's path (``arena/referee/sandbox/``) to its
    description, continuation lines included."""
    block = text.split("## Module map", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    entries: dict[str, str] = {}
    folders: list[str] = []  # the open folder at each indentation level
    last = ""
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent >= DESCRIPTION_COLUMN:
            entries[last] += " " + line.strip()
            continue
        level = indent // 2
        found = ENTRY.match(line.strip())
        assert found, f"not a module map line: {line!r}"
        del folders[level:]
        for name in found["names"].split(", "):
            last = "".join(folders) + name
            entries[last] = found["description"]
        if last.endswith("/"):
            folders.append(found["names"])
    return entries


def unnamed_modules(entries: dict[str, str], modules: list[str]) -> list[str]:
    """The modules (paths relative to the repository) the map does not name."""
    missing = []
    for module in modules:
        folder, _, file = module.rpartition("/")
        folder_entry = entries.get(folder + "/")
        if module in entries:
            continue
        if folder_entry is not None and (
            file == "__init__.py" or re.search(rf"\b{re.escape(file)}\b", folder_entry)
        ):
            continue
        missing.append(module)
    return missing


def test_the_module_map_names_every_module() -> None:
    """Every ``.py`` under arena/ and protocol/ has a line (or a mention) in the map."""
    modules = sorted(
        str(path.relative_to(REPO))
        for top in ("arena", "protocol")
        for path in (REPO / top).rglob("*.py")
    )
    missing = unnamed_modules(module_map(DOC.read_text(encoding="utf-8")), modules)
    assert not missing, f"docs/architecture.md's module map does not name {missing}"


def test_the_module_map_names_only_modules_that_exist() -> None:
    """No entry of the map names a module or folder that is gone."""
    entries = module_map(DOC.read_text(encoding="utf-8"))
    gone = sorted(path for path in entries if not (REPO / path).exists())
    assert not gone, f"docs/architecture.md's module map names missing paths: {gone}"


def test_the_map_reader_sees_nesting_and_mentions() -> None:
    """The reader nests entries under their folders, and a folder's description names files."""
    text = (
        "## Module map\n\n```text\n"
        "arena/x/                    a folder\n"
        "  a.py                      a module\n"
        "                            continued\n"
        "  sub/                      inner folder: b.py\n"
        "    c.py, c.css             deeper\n"
        "arena/y.py                  top level\n"
        "```\n"
    )
    entries = module_map(text)
    assert entries["arena/x/a.py"] == "a module continued"
    assert entries["arena/x/sub/c.py"] == entries["arena/x/sub/c.css"] == "deeper"
    assert "arena/y.py" in entries
    modules = ["arena/x/a.py", "arena/x/sub/b.py", "arena/x/sub/__init__.py", "arena/x/d.py"]
    assert unnamed_modules(entries, modules) == ["arena/x/d.py"]
