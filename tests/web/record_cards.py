"""Every card string in a JSON-ready record: what the redaction tests compare."""

from __future__ import annotations

from typing import Any

from arena.engine import CardParseError, parse_card


def card_strings(value: Any) -> set[str]:
    """Every string value of a record that is a card (names excluded: they are bots')."""
    if isinstance(value, dict):
        return {c for k, v in value.items() if k != "name" for c in card_strings(v)}
    if isinstance(value, list):
        return {c for v in value for c in card_strings(v)}
    if isinstance(value, str):
        try:
            parse_card(value)
        except (CardParseError, ValueError):
            return set()
        return {value}
    return set()
