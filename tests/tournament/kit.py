"""The tournament files and process checks the executor, worker and store tests share.

``league`` writes a fixed-limit (big blind 2) tournament file whose ``[tournament]`` keys
are keyword arguments; ``BUILTIN_PAIR`` is the usual two deterministic built-in bots;
``descendants`` and ``cmdline`` read ``/proc`` to find what a process left behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomli_w

BUILTIN_PAIR = """
[[bots]]
name = "calling-station"
builtin = "calling-station"

[[bots]]
name = "rule-based"
builtin = "rule-based"
"""
GATED = Path(__file__).parent / "bots" / "gated.py"
"""A launched bot that waits at its first decision until a gate file exists."""


def gated_bot(gate: Path) -> str:
    """The ``[[bots]]`` entry of a bot named ``gated`` held by ``gate``."""
    return f"""
[[bots]]
name = "gated"
command = "{{python}} {GATED}"
[bots.limits]
env = {{ GATE = "{gate}" }}
"""


def league(
    folder: Path,
    name: str,
    *,
    bots: str = BUILTIN_PAIR,
    timeouts: dict[str, float] | None = None,
    **tournament: Any,
) -> Path:
    """Write ``folder/name.toml`` and return its path; ``output`` is ``runs`` and the
    database ``arena.db`` unless given."""
    keys = {"name": name, "output": "runs", "database": "arena.db", **tournament}
    tables: dict[str, Any] = {"tournament": keys}
    tables["game"] = {"structure": "fixed_limit", "big_blind": 2}
    if timeouts is not None:
        tables["timeouts"] = timeouts
    path = folder / f"{name}.toml"
    path.write_text(tomli_w.dumps(tables) + bots)
    return path


def cmdline(pid: int) -> str:
    """``pid``'s command line with spaces, or "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def descendants(pid: int) -> set[int]:
    """Every process under ``pid`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):  # not Path.glob: a process gone mid-walk raises there
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found
