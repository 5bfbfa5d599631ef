"""arena/protocol owns the wire: no other code builds a DealerMessage or any of its parts."""

from __future__ import annotations

import ast
from pathlib import Path

from google.protobuf.descriptor import Descriptor

from arena.protocol import pb

ROOT = Path(__file__).resolve().parents[2]
_GENERATED_NAMES = {"pb", "arena_pb2"}


def _message_types(descriptor: Descriptor, seen: set[str] | None = None) -> set[str]:
    """Every message type reachable from ``descriptor`` through its fields."""
    seen = set() if seen is None else seen
    if descriptor.name not in seen:
        seen.add(descriptor.name)
        for field in descriptor.fields:
            if field.message_type is not None:
                _message_types(field.message_type, seen)
    return seen


# A bot builds Actions (a Fault's `applied` is one too); everything else the dealer sends
# is the protocol's to build.
DEALER_PARTS = _message_types(pb.DealerMessage.DESCRIPTOR) - _message_types(
    pb.BotMessage.DESCRIPTOR
)


def _builders_outside_protocol() -> list[str]:
    found = []
    files = [*(ROOT / "arena").rglob("*.py"), *(ROOT / "scripts").glob("*.py")]
    files += (ROOT / "examples_bots").glob("*.py")
    for path in files:
        relative = path.relative_to(ROOT)
        if relative.parts[:2] == ("arena", "protocol"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in _GENERATED_NAMES
                and node.func.attr in DEALER_PARTS
            ):
                found.append(f"{relative}:{node.lineno}: {node.func.value.id}.{node.func.attr}(")
            if (
                isinstance(node, ast.ImportFrom)
                and (node.module or "").endswith("arena_pb2")
                and any(alias.name in DEALER_PARTS for alias in node.names)
            ):
                found.append(f"{relative}:{node.lineno}: imports a DealerMessage part")
    return found


def test_the_parts_of_a_dealer_message_are_known() -> None:
    """The check covers every message the dealer sends (and leaves the bot's Action alone)."""
    assert {"DealerMessage", "MatchStart", "HandStart", "DecisionRequest", "Fault"} <= DEALER_PARTS
    assert {"HandEnd", "MatchEnd", "PublicEvent", "SeatState", "LegalActions"} <= DEALER_PARTS
    assert "Action" not in DEALER_PARTS


def test_no_dealer_message_is_built_outside_arena_protocol() -> None:
    """Every DealerMessage (and MatchStart, Fault, PublicEvent, ...) comes from arena.protocol."""
    assert _builders_outside_protocol() == []
