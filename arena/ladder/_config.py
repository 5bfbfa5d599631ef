"""The ladder file (``ladder.toml``): a tournament file with a ``[ladder]`` section.

The tournament part (``[tournament]``, ``[game]``, ``[timeouts]``, ``[[bots]]``) is read
by the tournament loader, so a ladder's matches are played exactly as a tournament's
are: its game, clocks, sandbox, executor and store. Its ``[[bots]]`` are the house bots
(the gate's opponents, the copy check's reference). ``[ladder]`` adds what only a
ladder has: intake limits, the gate, the schedule and the bench. Every key is checked;
a wrong one is one line naming the file and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament import TournamentConfig, TournamentConfigError
from arena.tournament._config_load import tournament_from_data

LADDER_FILE = "ladder.toml"

_INTS = {  # key: (default, minimum, maximum)
    "submissions_per_day": (10, 1, 10_000),
    "batch_tables": (4, 1, 256),
    "gate_hands": (100, 2, 10_000),
    "fingerprint_hands": (60, 2, 10_000),
    "bench_min_hands": (200, 1, 10**9),
    "max_upload_mb": (20, 1, 1024),
}
_FLOATS = {"bench_fault_rate": (0.1, 0.0, 1.0), "build_seconds": (900.0, 10.0, 86_400.0)}
_KEYS = (*_INTS, *_FLOATS, "table_sizes", "database", "listen", "build_network", "house")


class LadderConfigError(ValueError):
    """A ladder file that cannot be used: ``str()`` is one line naming the file and key."""


@dataclass(frozen=True, kw_only=True)
class LadderConfig:
    """A checked ladder file. ``tournament`` is the template of every batch's tournament."""

    root: Path
    source: str
    tournament: TournamentConfig
    database: Path | str
    """The ladder's own rows (teams, versions, jobs): a SQLite file or a PostgreSQL URL."""
    listen: str = "127.0.0.1:8080"
    submissions_per_day: int = 10
    table_sizes: tuple[int, ...] = (2,)
    batch_tables: int = 4
    gate_hands: int = 100
    fingerprint_hands: int = 60
    bench_fault_rate: float = 0.1
    bench_min_hands: int = 200
    build_network: bool = False
    build_seconds: float = 900.0
    max_upload_mb: int = 20
    house: tuple[str, ...] = ()
    """The house bots the gate plays (names of ``[[bots]]``); all of them by default."""

    @property
    def name(self) -> str:
        return self.tournament.name

    @property
    def storage(self) -> Path:
        """Where uploads, version folders, builds' logs and gate records live."""
        return self.root / "ladder-data"

    @property
    def gate_database(self) -> Path:
        """The gate's own store: a gate plays while a batch holds the ladder's store."""
        return self.storage / "gate.db"

    def house_bots(self) -> tuple[Any, ...]:
        """The house bots' entries, in the file's order."""
        return tuple(bot for bot in self.tournament.bots if bot.name in self.house)


def load_ladder(root: str | Path) -> LadderConfig:
    """Read ``ROOT/ladder.toml``; raises :class:`LadderConfigError`."""
    root = Path(root).expanduser().resolve()
    path = root / LADDER_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LadderConfigError(
            f"{path}: no ladder here (make one: arena ladder init {root})"
        ) from None
    except OSError as error:
        raise LadderConfigError(f"{path}: cannot read: {error.strerror}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise LadderConfigError(f"{path}: invalid TOML: {error}") from None
    return parse_ladder(data, str(path), root)


def parse_ladder(data: dict[str, Any], source: str, root: Path) -> LadderConfig:
    """Check a ladder file's data (``source`` names it in messages)."""
    section = data.pop("ladder", {})
    if not isinstance(section, dict):
        raise LadderConfigError(f"{source}: ladder: expected a table, got {type(section).__name__}")
    try:
        tournament = tournament_from_data(data, source, base_dir=root)
    except TournamentConfigError as error:
        raise LadderConfigError(str(error)) from None
    for key in section:
        if key not in _KEYS:
            raise LadderConfigError(
                f"{source}: ladder.{key}: unknown key; known: {', '.join(_KEYS)}"
            )
    values: dict[str, Any] = {}
    for key, (default, low, high) in _INTS.items():
        values[key] = _number(section, key, default, low, high, source, int)
    for key, (fdefault, flow, fhigh) in _FLOATS.items():
        values[key] = _number(section, key, fdefault, flow, fhigh, source, float)
    values["table_sizes"] = _table_sizes(section.get("table_sizes", [2]), source)
    values["build_network"] = _boolean(section, "build_network", False, source)
    values["listen"] = _text(section, "listen", "127.0.0.1:8080", source)
    database = _text(section, "database", "ladder-data/ladder.db", source)
    values["house"] = _house(section.get("house"), tournament, source)
    return LadderConfig(
        root=root,
        source=source,
        tournament=tournament,
        database=database
        if database.startswith(("postgresql://", "postgres://"))
        else root / database,
        **values,
    )


def _number(section: dict, key: str, default, low, high, source: str, kind: type) -> Any:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
        raise LadderConfigError(f"{source}: ladder.{key}: expected {kind.__name__}, got {value!r}")
    if not low <= value <= high:
        raise LadderConfigError(f"{source}: ladder.{key}: {value} is not in {low}..{high}")
    return kind(value)


def _boolean(section: dict, key: str, default: bool, source: str) -> bool:
    value = section.get(key, default)
    if not isinstance(value, bool):
        raise LadderConfigError(f"{source}: ladder.{key}: expected true or false, got {value!r}")
    return value


def _text(section: dict, key: str, default: str, source: str) -> str:
    value = section.get(key, default)
    if not isinstance(value, str) or not value:
        raise LadderConfigError(f"{source}: ladder.{key}: expected a non-empty string")
    return value


def _table_sizes(value: object, source: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise LadderConfigError(f"{source}: ladder.table_sizes: expected a list like [2] or [2, 6]")
    for size in value:
        if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= 6:
            raise LadderConfigError(
                f"{source}: ladder.table_sizes: {size!r}: heads-up (2) or ring tables of 3-6"
            )
    return tuple(sorted(set(value)))


def _house(value: object, tournament: TournamentConfig, source: str) -> tuple[str, ...]:
    names = tournament.bot_names
    if value is None:
        return names
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or not value:
        raise LadderConfigError(f"{source}: ladder.house: expected a list of [[bots]] names")
    for name in value:
        if name not in names:
            raise LadderConfigError(
                f"{source}: ladder.house: no [[bots]] entry is named {name!r}; "
                f"bots are {', '.join(names)}"
            )
    return tuple(value)
