"""A flag file a test bot watches, reachable inside the sandbox (issue 9).

A launched bot gets a clean environment and sees only its own folders: a test that
steers a bot with ``$VAR`` naming a file passes both on as the bot's ``[bots.limits]``
(``env`` and a read-only ``binds`` folder, world-readable for the L2 uid).
"""

from __future__ import annotations

from pathlib import Path


def flag_limits(variable: str, flag: Path) -> str:
    """The ``[bots.limits]`` table (TOML text) giving a bot ``$variable`` = ``flag``."""
    flag.parent.mkdir(parents=True, exist_ok=True)
    flag.parent.chmod(0o755)
    return f'[bots.limits]\nenv = {{ {variable} = "{flag}" }}\nbinds = ["{flag.parent}"]\n'
