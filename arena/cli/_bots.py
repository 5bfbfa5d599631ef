"""Bot specs on the command line, as click parameters.

The parsing is :func:`arena.tournament._bots.parse_bot_text` (the same record and
checks as a tournament file's ``[[bots]]``); this module only words its errors for
the command line and keeps repeated names apart.
"""

from __future__ import annotations

import click

from arena.tournament import BotSpec, BotSpecError, parse_bot_text

__all__ = ["BotSpec", "parse_bot_spec", "unique_names"]


def parse_bot_spec(text: str, index: int) -> BotSpec:
    """Parse bot number ``index`` (from 0); raises ``click.BadParameter`` naming it."""
    try:
        return parse_bot_text(text)
    except BotSpecError as error:
        if not text.strip():
            raise click.BadParameter(f"bot #{index + 1} {error.problem}") from None
        raise click.BadParameter(f"bot #{index + 1} {text!r}: {error.problem}") from None


def unique_names(specs: list[BotSpec]) -> list[BotSpec]:
    """Suffix repeated names (``rule-based``, ``rule-based-2``) so records stay unambiguous."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        out.append(spec if count == 1 else spec.renamed(f"{spec.name}-{count}"))
    return out
