"""``[bots.limits]``: a command bot's sandbox settings, read from a tournament file.

The keys are :class:`arena.dealer.BotLimits`' fields; paths in ``binds`` resolve
against the file's folder; ``address_space_mb = 0`` means no address-space cap (a JVM).
Every error names the key path, like the rest of the loader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from arena.dealer import BotLimits

_INTS: tuple[str, ...] = ("address_space_mb", "memory_mb", "max_processes", "open_files")
_INTS += ("file_size_mb", "tmp_mb", "cpu_backstop_seconds")
KEYS = (*_INTS, "binds", "share_network", "env")
"""The keys ``[bots.limits]`` accepts (a test checks they are BotLimits' fields)."""


class _Loader(Protocol):
    base: Path

    def known(self, table: Any, prefix: str, allowed: tuple[str, ...]) -> None: ...
    def fail(self, key: str | None, problem: str) -> Exception: ...


def parse_limits(loader: _Loader, value: object, path: str) -> BotLimits:
    """The :class:`BotLimits` of one ``[bots.limits]`` table; raises the loader's error."""
    if not isinstance(value, dict):
        raise loader.fail(path, "must be a table ([bots.limits])")
    loader.known(value, f"{path}.", KEYS)
    given: dict[str, Any] = {}
    for key in _INTS:
        if key in value:
            number = value[key]
            if isinstance(number, bool) or not isinstance(number, int) or number < 0:
                raise loader.fail(f"{path}.{key}", "must be a whole number, 0 or more")
            given[key] = None if (key == "address_space_mb" and number == 0) else number
    if "binds" in value:
        binds = value["binds"]
        if not isinstance(binds, list) or not all(isinstance(b, str) and b for b in binds):
            raise loader.fail(f"{path}.binds", "must be an array of paths")
        given["binds"] = tuple(str((loader.base / Path(b).expanduser()).resolve()) for b in binds)
    if "share_network" in value:
        if not isinstance(value["share_network"], bool):
            raise loader.fail(f"{path}.share_network", "must be true or false")
        given["share_network"] = value["share_network"]
    if "env" in value:
        env = value["env"]
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise loader.fail(f"{path}.env", "must be a table of strings")
        given["env"] = dict(env)
    try:
        return BotLimits(**given)
    except ValueError as error:
        raise loader.fail(path, str(error)) from None
