"""Matador Arena protocol v1: the wire messages between the referee and bots.

Importable on its own (it depends only on msgspec), so Python bots can use it.
"""

from protocol.codec import ProtocolError, decode_from_bot, decode_to_bot, encode
from protocol.messages import (
    PROTOCOL_VERSION,
    Draw,
    End,
    Error,
    Event,
    FromBot,
    HandEnd,
    HandStart,
    Hello,
    MatadorRules,
    MatchEnd,
    MatchLength,
    MoveReply,
    MoveRequest,
    Pass,
    Play,
    Ready,
    SeatResult,
    TimeControl,
    ToBot,
    WireMove,
)

__all__ = [
    "PROTOCOL_VERSION",
    "Draw",
    "End",
    "Error",
    "Event",
    "FromBot",
    "HandEnd",
    "HandStart",
    "Hello",
    "MatadorRules",
    "MatchEnd",
    "MatchLength",
    "MoveReply",
    "MoveRequest",
    "Pass",
    "Play",
    "ProtocolError",
    "Ready",
    "SeatResult",
    "TimeControl",
    "ToBot",
    "WireMove",
    "decode_from_bot",
    "decode_to_bot",
    "encode",
]
