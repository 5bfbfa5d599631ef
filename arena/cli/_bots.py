"""Bot specs on the command line: ``[NAME=]builtin:POLICY``, ``[NAME=]HOST:PORT``,
``[NAME=]plugin:KIND:TARGET`` (a kind a driver plugin provides) or ``[NAME=]COMMAND``."""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass

import click

from arena.policies import BUILT_IN

_ADDRESS = re.compile(r"^(unix:\S+|[A-Za-z0-9_.\-\[\]:]+:\d{1,5})$")
_NAME = re.compile(r"^([A-Za-z0-9_.\-]{1,64})=(.+)$")


@dataclass(frozen=True)
class BotSpec:
    """One bot as the user named it."""

    name: str
    kind: str  # "builtin", "address" or "command"
    target: str

    @property
    def argv(self) -> list[str]:
        """The command's arguments; ``{python}`` becomes the interpreter running arena."""
        return [sys.executable if arg == "{python}" else arg for arg in shlex.split(self.target)]


def parse_bot_spec(text: str, index: int) -> BotSpec:
    """Parse one spec; raises ``click.BadParameter`` naming the spec and what is wrong."""
    raw = text.strip()
    if not raw:
        raise click.BadParameter(f"bot #{index + 1} is empty")
    name = None
    match = _NAME.match(raw)
    if match and not _ADDRESS.match(raw):
        name, raw = match.group(1), match.group(2).strip()
    if raw.startswith("builtin:"):
        policy = raw.removeprefix("builtin:")
        if policy not in BUILT_IN:
            raise click.BadParameter(
                f"bot #{index + 1} {text!r}: unknown built-in {policy!r}; choose from {', '.join(BUILT_IN)}"
            )
        return BotSpec(name or policy, "builtin", policy)
    if raw.startswith("plugin:"):
        kind, _, target = raw.removeprefix("plugin:").partition(":")
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.\-]*", kind):
            raise click.BadParameter(
                f"bot #{index + 1} {text!r}: expected plugin:KIND:TARGET, e.g. plugin:example:"
            )
        return BotSpec(name or f"{kind}-bot", kind, target)
    if _ADDRESS.match(raw):
        return BotSpec(name or raw, "address", raw)
    try:
        argv = shlex.split(raw)
    except ValueError as error:
        raise click.BadParameter(
            f"bot #{index + 1} {text!r}: cannot parse command: {error}"
        ) from None
    if not argv:
        raise click.BadParameter(f"bot #{index + 1} {text!r}: empty command")
    default_name = argv[-1].rsplit("/", 1)[-1].removesuffix(".py").removesuffix(".js")
    return BotSpec(name or default_name, "command", raw)


def unique_names(specs: list[BotSpec]) -> list[BotSpec]:
    """Suffix repeated names (``rule-based``, ``rule-based-2``) so records stay unambiguous."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        out.append(spec if count == 1 else BotSpec(f"{spec.name}-{count}", spec.kind, spec.target))
    return out
