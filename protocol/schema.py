"""The JSON Schema of protocol v1, generated from the message Structs."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from protocol.messages import PROTOCOL_VERSION, FromBot, ToBot


def protocol_schema() -> dict[str, Any]:
    """One JSON Schema document describing both directions of the protocol.

    ``$defs`` holds every message; ``to_bot`` and ``from_bot`` are the two unions.
    """
    (to_bot, from_bot), components = msgspec.json.schema_components(
        [ToBot, FromBot], ref_template="#/$defs/{name}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Matador Arena protocol v{PROTOCOL_VERSION}",
        "description": (
            "JSON Lines over stdin/stdout. 'to_bot' lists what the referee sends (ignore unknown "
            "fields); 'from_bot' lists what a bot may send (unknown fields are an error). "
            "See docs/protocol.md."
        ),
        "protocol_version": PROTOCOL_VERSION,
        "to_bot": to_bot,
        "from_bot": from_bot,
        "$defs": components,
    }


def schema_json() -> str:
    """The schema as stable, pretty-printed JSON text ending with a newline."""
    return json.dumps(protocol_schema(), indent=2, sort_keys=True) + "\n"
