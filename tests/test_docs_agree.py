"""The docs agree with each other and with the code on what several pages state: which rules a
citation names, and whether builds and handshake checks are contained."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Where code comments, docstrings and pages cite rules (CHANGELOG.md is history: left alone).
CITING = ["arena", "protocol", "docs", "tests", "sample_bots", "README.md"]
SUFFIXES = {".py", ".js", ".c", ".md", ".json", ".css"}
#: The name of a rules document that is not in this repository, spelt so this file is not a hit.
ABSENT = "SP" + "EC"


def files() -> list[Path]:
    """Every text file of :data:`CITING`."""
    found: list[Path] = []
    for name in CITING:
        root = REPO / name
        paths = [root] if root.is_file() else sorted(root.rglob("*"))
        found += [p for p in paths if p.suffix in SUFFIXES and p.is_file()]
    return found


def rule_numbers() -> set[str]:
    """The numbers of the rules docs/rules.md states (its headings ``## 1.4 Leader`` ...)."""
    text = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    return set(re.findall(r"^## (\d\.\d+) ", text, re.MULTILINE))


def test_nothing_cites_a_rules_document_that_is_not_here() -> None:
    """No comment, docstring, page or schema cites the old specification file or its
    numbering: rules are cited by docs/rules.md's sections."""
    pattern = re.compile(rf"\b{ABSENT}\b")
    hits = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []


def test_every_rule_number_cited_is_a_section_of_rules_md() -> None:
    """Each ``rules.md 2.5`` (or ``2.8-2.11``, ``1.3, 1.4``) cited anywhere names a rule that
    docs/rules.md has."""
    known = rule_numbers()
    assert {"1.1", "1.15", "2.1", "2.12"} <= known
    citation = re.compile(r"rules\.md,?\s+((?:\d\.\d+(?:\s*(?:-|–|,|and)\s*)?)+)")
    cited: dict[str, set[str]] = {}
    for path in files():
        for found in citation.finditer(path.read_text(encoding="utf-8")):
            for number in re.findall(r"\d\.\d+", found.group(1)):
                cited.setdefault(number, set()).add(str(path.relative_to(REPO)))
    assert len(cited) > 10
    assert {n: sorted(where) for n, where in cited.items() if n not in known} == {}


def test_no_page_says_builds_or_handshakes_run_uncontained() -> None:
    """The code builds and checks bots in the tournament's sandbox
    (tests/tournament/test_sandboxed_prepare.py): no page says they are not sandboxed."""
    uncontained = re.compile(r"not sandboxed|unsandboxed|not contained|outside (?:the|a) sandbox")
    hits = []
    for path in [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]:
        text = " ".join(path.read_text(encoding="utf-8").split())
        for sentence in re.split(r"(?<=[.;:])\s", text):
            if re.search(r"\bbuild|\bhandshake", sentence) and uncontained.search(sentence):
                hits.append(f"{path.name}: {sentence}")
    assert hits == []
