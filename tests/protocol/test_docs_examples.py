"""docs/protocol.md shows real messages of every type, and docs/protocol.schema.json is current."""

from __future__ import annotations

import json
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.replay import Status
from protocol import messages
from protocol.codec import decode_from_bot, decode_to_bot, encode
from protocol.schema import schema_json

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_MD = ROOT / "docs" / "protocol.md"
SCHEMA_FILE = ROOT / "docs" / "protocol.schema.json"
REGENERATE = "python3 -m arena schema --out docs/protocol.schema.json"
MARKER = re.compile(r"^<!-- example: (to_bot|from_bot) -->$")
OUTCOME_MARKER = "<!-- outcome-table -->"


@dataclass(frozen=True)
class Example:
    """One example block of docs/protocol.md: its direction, its text and where it starts."""

    direction: str
    text: str
    line: int


def _doc_lines() -> list[str]:
    """The lines of docs/protocol.md, or none when the file is missing."""
    if not PROTOCOL_MD.exists():
        return []
    return PROTOCOL_MD.read_text(encoding="utf-8").splitlines()


def _examples() -> tuple[list[Example], list[int]]:
    """Every block marked ``<!-- example: ... -->`` and the lines of markers without a block."""
    lines = _doc_lines()
    found, stray = [], []
    for number, line in enumerate(lines):
        match = MARKER.match(line.strip())
        if match is None:
            continue
        closing = [i for i in range(number + 2, len(lines)) if lines[i].strip() == "```"]
        if number + 1 == len(lines) or lines[number + 1].strip() != "```json" or not closing:
            stray.append(number + 1)
            continue
        text = "\n".join(lines[number + 2 : closing[0]])
        found.append(Example(match.group(1), text, number + 3))
    return found, stray


EXAMPLES, STRAY_MARKERS = _examples()
TO_BOT = [e for e in EXAMPLES if e.direction == "to_bot"]
FROM_BOT = [e for e in EXAMPLES if e.direction == "from_bot"]


def _id(example: Example) -> str:
    """A test id naming the line of the example in docs/protocol.md."""
    return f"protocol.md:{example.line}"


def _tags(union: Any) -> set[str]:
    """The ``type`` tags of the message Structs in a union of protocol.messages."""
    return {member.__struct_config__.tag for member in typing.get_args(union)}


def _tag(message: Any) -> str:
    """The ``type`` tag of a decoded message."""
    return str(type(message).__struct_config__.tag)


def test_the_doc_has_examples() -> None:
    """docs/protocol.md exists and has examples in both directions."""
    assert PROTOCOL_MD.exists(), "docs/protocol.md is missing"
    assert TO_BOT, "docs/protocol.md has no <!-- example: to_bot --> block"
    assert FROM_BOT, "docs/protocol.md has no <!-- example: from_bot --> block"


def test_every_marker_is_followed_by_a_json_block() -> None:
    """Every example marker is directly followed by a closed ```json block."""
    assert not STRAY_MARKERS, f"example markers without a ```json block at lines {STRAY_MARKERS}"


def test_every_json_block_is_a_marked_example() -> None:
    """Every ```json block of docs/protocol.md is marked as an example, so every one is tested."""
    lines = _doc_lines()
    unmarked = [
        number + 1
        for number, line in enumerate(lines)
        if line.strip() == "```json" and (number == 0 or not MARKER.match(lines[number - 1]))
    ]
    assert not unmarked, f"```json blocks without an example marker at lines {unmarked}"


@pytest.mark.parametrize("example", TO_BOT, ids=_id)
def test_to_bot_example_is_what_the_referee_writes(example: Example) -> None:
    """A to_bot example decodes and is byte for byte what the referee's encoder writes."""
    message = decode_to_bot(example.text.encode())
    assert encode(message).decode() == example.text, (
        f"docs/protocol.md:{example.line} is not what the referee would send for this message "
        "(a field added, removed or reordered?): regenerate the example"
    )


@pytest.mark.parametrize("example", FROM_BOT, ids=_id)
def test_from_bot_example_decodes(example: Example) -> None:
    """A from_bot example is accepted by the referee's strict decoder."""
    decode_from_bot(example.text.encode())


def test_every_message_type_has_an_example() -> None:
    """Every member of the ToBot and FromBot unions has at least one example in the doc."""
    shown_to_bot = {_tag(decode_to_bot(e.text.encode())) for e in TO_BOT}
    shown_from_bot = {_tag(decode_from_bot(e.text.encode())) for e in FROM_BOT}
    assert _tags(messages.ToBot) - shown_to_bot == set()
    assert _tags(messages.FromBot) - shown_from_bot == set()


def test_schema_file_is_up_to_date() -> None:
    """The committed docs/protocol.schema.json is exactly what the message types generate."""
    assert SCHEMA_FILE.exists(), f"docs/protocol.schema.json is missing: run `{REGENERATE}`"
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_json(), (
        f"docs/protocol.schema.json is out of date: run `{REGENERATE}`"
    )


def _validators() -> dict[str, Any]:
    """A jsonschema validator per direction, built from the committed schema file."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return {
        direction: jsonschema.Draft202012Validator(
            {"$schema": schema["$schema"], "$defs": schema["$defs"], **schema[direction]}
        )
        for direction in ("to_bot", "from_bot")
    }


def test_schema_validates_every_example() -> None:
    """Each example validates against its direction's part of the schema (needs jsonschema)."""
    validators = _validators()
    for example in EXAMPLES:
        errors = list(validators[example.direction].iter_errors(json.loads(example.text)))
        assert not errors, f"docs/protocol.md:{example.line}: {errors[0].message}"


def test_schema_is_not_vacuous() -> None:
    """The from_bot schema rejects a ready without a name and a move with an unknown field."""
    validator = _validators()["from_bot"]
    assert not validator.is_valid({"type": "ready"})
    assert not validator.is_valid({"type": "move", "id": 1, "move": {"action": "draw", "x": 1}})


def test_outcome_table_lists_every_status() -> None:
    """Every arena.replay.Status value has a row in the outcome table of docs/protocol.md."""
    lines = _doc_lines()
    assert OUTCOME_MARKER in lines, f"docs/protocol.md has no {OUTCOME_MARKER} marker"
    rows = []
    for line in lines[lines.index(OUTCOME_MARKER) + 1 :]:
        if not line.startswith("|"):
            break
        rows.append(line.split("|")[1].strip())
    listed = {cell.strip("`") for cell in rows}
    missing = [status.value for status in Status if status.value not in listed]
    assert not missing, f"statuses missing from the outcome table: {missing}"
