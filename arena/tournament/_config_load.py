"""Reading tournament files: TOML in, a validated :class:`TournamentConfig` out.

Every error names the file, the key path (``bots[2].command``, ``game.max_draw``) and
what is wrong, in one line a user can act on.
"""

from __future__ import annotations

import dataclasses
import difflib
import secrets
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.dealer import SANDBOX_CHOICES, OnFaultLimit
from arena.engine import MAX_CHIPS, ConfigError, GameConfig
from arena.ratings import check_k_factor, check_rating_setting
from arena.store._db import is_url
from arena.tournament import _bounds
from arena.tournament._bots import NAME, BotSpec, BotSpecError, bot_from_fields
from arena.tournament._bounds import BoundError
from arena.tournament._config import (
    Format,
    Ratings,
    Timeouts,
    TournamentConfig,
    TournamentConfigError,
    _check_field,
)
from arena.tournament._config_scale import parse_scale
from arena.tournament._limits import parse_limits

DATABASE = "arena-data/arena.db"
"""``tournament.database`` when a file has none (relative to the file): the default of
``arena tournament init`` and of ``--db`` (``arena ratings``, ``arena report``) too."""


def load_tournament(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament file; raises :class:`TournamentConfigError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise TournamentConfigError(str(path), None, f"cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise TournamentConfigError(str(path), None, f"not UTF-8 text: {error}") from None
    return parse_tournament(text, str(path), base_dir=path.resolve().parent)


def parse_tournament(
    text: str, source: str = "<string>", *, base_dir: str | Path | None = None
) -> TournamentConfig:
    """Validate tournament TOML; relative paths resolve against ``base_dir`` (default: the
    current folder). ``source`` names the text in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TournamentConfigError(source, None, f"invalid TOML: {error}") from None
    return tournament_from_data(data, source, base_dir=base_dir)


def tournament_from_data(
    data: dict[str, Any], source: str, *, base_dir: str | Path | None = None
) -> TournamentConfig:
    """Validate a tournament file already read (the ladder's file carries one)."""
    base = Path(base_dir).resolve() if base_dir is not None else Path.cwd().resolve()
    return _Parser(source, base).parse(data)


_TOP = ("tournament", "game", "timeouts", "ratings", "bots")
_TOURNAMENT_KEYS = (
    "name",
    "format",
    "hands_per_match",
    "duplicate",
    "rounds",
    "table_size",
    "challengers",
    "concurrency",
    "max_tables_per_bot",
    "workers",
    "max_live_bots",
    "executor",
    "ray_address",
    "seed",
    "output",
    "database",
    "early_stop",
    "sandbox",
)
_GAME_INT: tuple[str, ...] = ("small_blind", "big_blind", "small_bet", "big_bet", "ante")
_GAME_INT += ("max_draw", "max_bets_per_round")
_GAME_STR = ("structure", "forced_bets", "opening", "joker", "showdown_reveal")
_GAME_BOOL = ("uncapped_heads_up",)
_BOT_STRINGS: tuple[str, ...] = ("builtin", "command", "address", "plugin", "target")
_BOT_STRINGS += ("requires", "workdir", "folder")  # folder: a bot.toml's (issue 13 item 4)
_BOT_KEYS = ("name", *_BOT_STRINGS, "remote", "limits", "ray_resources")


def bot_from_dict(data: Mapping[str, Any], source: str = "<match spec>") -> BotSpec:
    """The bot :meth:`BotSpec.to_dict` wrote (a worker rebuilds a match's bots from it);
    raises :class:`TournamentConfigError` naming the key, like a tournament file's bot."""
    entry = dict(data)
    for stored, key in (("plugin_target", "target"), ("remote_target", None)):
        if stored in entry:
            value = entry.pop(stored)
            if key is not None:
                entry[key] = value
    workdir = entry.get("workdir")
    parser = _Parser(source, Path(workdir) if isinstance(workdir, str) else Path("/"))
    return parser.bot(entry, "bot")


def _type_name(value: object) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


class _Parser:
    def __init__(self, source: str, base: Path) -> None:
        self.source = source
        self.base = base

    def fail(self, key: str | None, problem: str) -> TournamentConfigError:
        return TournamentConfigError(self.source, key, problem)

    # --- typed getters; each names the key path -----------------------------------

    def known(self, table: Mapping[str, Any], prefix: str, allowed: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                hint = difflib.get_close_matches(key, allowed, n=1)
                more = (
                    f"; did you mean {hint[0]!r}?"
                    if hint
                    else f"; expected one of {', '.join(allowed)}"
                )
                raise self.fail(f"{prefix}{key}", f"unknown key{more}")

    def table(self, data: Mapping[str, Any], key: str, *, required: bool = False) -> dict:
        value = data.get(key)
        if value is None:
            if required:
                raise self.fail(key, f"missing: the file needs a [{key}] table")
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a table ([{key}]), got {_type_name(value)}")
        return value

    def integer(
        self,
        table: Mapping,
        path: str,
        key: str,
        default: int | None,
        *,
        minimum: int,
        maximum: int = MAX_CHIPS,
    ) -> int:
        value = table.get(key, default)
        full = f"{path}.{key}"
        if value is None:
            raise self.fail(full, "missing: a whole number is required")
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(full, f"must be a whole number, got {_type_name(value)} {value!r}")
        try:
            return _bounds.check_whole(value, minimum=minimum, maximum=maximum)
        except BoundError as error:
            raise self.fail(full, str(error)) from None

    def seconds(
        self, table: Mapping, path: str, key: str, default: float, *, allow_zero: bool
    ) -> float:
        """A clock in seconds, bounded by :func:`arena.tournament._bounds.check_seconds`."""
        value = table.get(key, default)
        full = f"{path}.{key}"
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.fail(full, f"must be a number, got {_type_name(value)} {value!r}")
        try:
            return _bounds.check_seconds(value, allow_zero=allow_zero)
        except (BoundError, OverflowError) as error:
            raise self.fail(full, str(error)) from None

    def number(
        self, table: Mapping, path: str, key: str, default: float, *, positive: bool
    ) -> float:
        value = table.get(key, default)
        full = f"{path}.{key}"
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.fail(full, f"must be a number, got {_type_name(value)} {value!r}")
        if value != value or value in (float("inf"), float("-inf")):
            raise self.fail(full, f"must be a finite number, got {value}")
        if positive and value <= 0:
            raise self.fail(full, f"must be above 0, got {value}")
        if not positive and value < 0:
            raise self.fail(full, f"must be 0 or more, got {value}")
        return float(value)

    def boolean(self, table: Mapping, path: str, key: str, default: bool) -> bool:
        value = table.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(
                f"{path}.{key}", f"must be true or false, got {_type_name(value)} {value!r}"
            )
        return value

    def string(self, table: Mapping, path: str, key: str, default: str | None = None) -> str | None:
        value = table.get(key, default)
        if value is not None and not isinstance(value, str):
            raise self.fail(f"{path}.{key}", f"must be a string, got {_type_name(value)} {value!r}")
        if isinstance(value, str) and not value.strip():
            raise self.fail(f"{path}.{key}", "must not be empty")
        return value

    def choice(self, table: Mapping, path: str, key: str, enum: type[StrEnum], default: StrEnum):
        value = table.get(key, default.value)
        allowed = ", ".join(repr(member.value) for member in enum)
        if not isinstance(value, str):
            raise self.fail(
                f"{path}.{key}", f"must be one of {allowed}, got {_type_name(value)} {value!r}"
            )
        try:
            return enum(value)
        except ValueError:
            raise self.fail(f"{path}.{key}", f"{value!r} is not one of {allowed}") from None

    def path(self, value: str) -> Path:
        return (self.base / Path(value).expanduser()).resolve()

    def where(self, value: str) -> Path | str:
        """``tournament.database``: a file (relative to this one) or a ``postgresql://`` URL."""
        return value if is_url(value) else self.path(value)

    def bot_name(self, value: object, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(
                key, f"must be a bot name (a string), got {_type_name(value)} {value!r}"
            )
        if not NAME.match(value):
            raise self.fail(
                key, f"{value!r} is not a valid bot name: 1-64 characters from A-Z a-z 0-9 _ . -"
            )
        return value

    # --- the file ----------------------------------------------------------------

    def parse(self, data: dict[str, Any]) -> TournamentConfig:
        self.known(data, "", _TOP)
        tour = self.table(data, "tournament", required=True)
        self.known(tour, "tournament.", _TOURNAMENT_KEYS)
        t = "tournament"
        name = self.tournament_name(tour)
        fmt = self.choice(tour, t, "format", Format, Format.ROUND_ROBIN)
        hands = self.integer(
            tour,
            t,
            "hands_per_match",
            TournamentConfig.hands_per_match,
            minimum=1,
            maximum=_bounds.MAX_HANDS,
        )
        duplicate = self.boolean(tour, t, "duplicate", True)
        rounds = self.integer(tour, t, "rounds", 1, minimum=1, maximum=10_000)
        table_size = self.table_size(tour, fmt)
        challengers = self.challengers(tour, fmt)
        seed_drawn = "seed" not in tour  # drawn now and stored, so the run can be replayed
        seed = (
            secrets.randbits(63)
            if seed_drawn
            else self.integer(tour, t, "seed", None, minimum=0, maximum=_bounds.MAX_SEED)
        )
        output = self.path(self.string(tour, t, "output", "runs") or "runs")
        database = self.where(self.string(tour, t, "database", DATABASE) or DATABASE)
        early_stop = self.early_stop(tour, fmt)
        game, stack = self.game(self.table(data, "game"))
        timeouts = self.timeouts(self.table(data, "timeouts"))
        ratings = self.ratings(self.table(data, "ratings"))
        bots = self.bots(data.get("bots"))
        config = TournamentConfig(
            name=name,
            format=fmt,
            hands_per_match=hands,
            duplicate=duplicate,
            rounds=rounds,
            table_size=table_size,
            challengers=challengers,
            concurrency=self.integer(tour, t, "concurrency", 1, minimum=1),
            max_tables_per_bot=self.integer(tour, t, "max_tables_per_bot", 1, minimum=1),
            **parse_scale(self, tour, data.get("bots"), table_size=table_size, duplicate=duplicate),
            seed=seed,
            seed_drawn=seed_drawn,
            output=output,
            database=database,
            early_stop=early_stop,
            sandbox=self.sandbox(tour),
            game=game,
            stack=stack,
            timeouts=timeouts,
            ratings=ratings,
            bots=bots,
            workdir=self.base,
            source=self.source,
        )
        _check_field(config, "bots")
        return config

    def tournament_name(self, tour: Mapping[str, Any]) -> str:
        """``tournament.name``: required, and a folder name under ``output``, never a path."""
        if "name" not in tour:
            raise self.fail(
                "tournament.name",
                "missing: give the tournament a name (it identifies it in the database)",
            )
        name = self.string(tour, "tournament", "name")
        assert name is not None
        try:  # the name is a folder under `output`: never a path of its own
            _bounds.check_tournament_name(name)
        except BoundError as error:
            raise self.fail("tournament.name", str(error)) from None
        return name

    def sandbox(self, tour: Mapping[str, Any]) -> str:
        """``tournament.sandbox``: a layer or ``auto`` (checked against this machine when
        the bots start, so a file stays valid on a machine without bubblewrap)."""
        value = self.string(tour, "tournament", "sandbox", "auto") or "auto"
        if value not in SANDBOX_CHOICES:
            raise self.fail(
                "tournament.sandbox", f"{value!r} is not one of {', '.join(SANDBOX_CHOICES)}"
            )
        return value

    def table_size(self, tour: Mapping[str, Any], fmt: Format) -> int:
        """``tournament.table_size``: 3 to 7 for a ring (default 6); other formats are heads-up."""
        if fmt is Format.RING:
            table_size = self.integer(tour, "tournament", "table_size", 6, minimum=3)
            if table_size > 7:
                raise self.fail(
                    "tournament.table_size",
                    f"a ring table seats 3 to 7 bots (R1), got {table_size}",
                )
            return table_size
        if "table_size" in tour:
            raise self.fail(
                "tournament.table_size",
                f"only used by format = 'ring'; format {fmt.value!r} plays heads-up (remove it)",
            )
        return 2

    def early_stop(self, tour: Mapping[str, Any], fmt: Format) -> bool:
        """``tournament.early_stop``: the SPRT is a heads-up test, so not for rings."""
        early_stop = self.boolean(tour, "tournament", "early_stop", False)
        if early_stop and fmt is Format.RING:
            raise self.fail(
                "tournament.early_stop",
                "SPRT early stopping is heads-up only; not for format = 'ring'",
            )
        return early_stop

    def challengers(self, tour: Mapping, fmt: Format) -> tuple[str, ...]:
        key = "tournament.challengers"
        value = tour.get("challengers", [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise self.fail(key, f"must be an array of bot names, got {_type_name(value)}")
        names = tuple(self.bot_name(item, f"{key}[{i}]") for i, item in enumerate(value))
        if fmt in (Format.GAUNTLET, Format.LADDER):
            if not names:
                what = (
                    "the bot(s) that play the field"
                    if fmt is Format.GAUNTLET
                    else "the new bot(s) that play the standing pool"
                )
                raise self.fail(key, f"format = {fmt.value!r} needs challengers: {what}")
        elif names:
            raise self.fail(
                key, f"only used by format = 'gauntlet' or 'ladder', not {fmt.value!r} (remove it)"
            )
        for i, name in enumerate(names):
            if name in names[:i]:
                raise self.fail(f"{key}[{i}]", f"{name!r} is listed twice")
        return names

    def game(self, table: Mapping[str, Any]) -> tuple[GameConfig, int]:
        fields = [f.name for f in dataclasses.fields(GameConfig)]
        self.known(table, "game.", (*fields, "stack"))
        kwargs: dict[str, Any] = {}
        for key, value in table.items():
            if key == "stack":
                continue
            if key in _GAME_INT and (not isinstance(value, int) or isinstance(value, bool)):
                raise self.fail(
                    f"game.{key}", f"must be a whole number, got {_type_name(value)} {value!r}"
                )
            if key in _GAME_STR and not isinstance(value, str):
                raise self.fail(
                    f"game.{key}", f"must be a string, got {_type_name(value)} {value!r}"
                )
            if key in _GAME_BOOL and not isinstance(value, bool):
                raise self.fail(
                    f"game.{key}", f"must be true or false, got {_type_name(value)} {value!r}"
                )
            kwargs[key] = value
        try:
            game = GameConfig(**kwargs)
        except ConfigError as error:
            problem = str(error).removeprefix(f"{error.key}: ")
            raise self.fail(f"game.{error.key}", problem) from None
        stack = self.integer(table, "game", "stack", TournamentConfig.stack, minimum=1)
        try:
            _bounds.check_stack(stack, game)
        except BoundError as error:
            raise self.fail("game.stack", str(error)) from None
        return game, stack

    def timeouts(self, table: Mapping[str, Any]) -> Timeouts:
        keys = tuple(f.name for f in dataclasses.fields(Timeouts))
        self.known(table, "timeouts.", keys)
        p = "timeouts"
        return Timeouts(
            action=self.seconds(table, p, "action", Timeouts.action, allow_zero=False),
            time_bank=self.seconds(table, p, "time_bank", Timeouts.time_bank, allow_zero=True),
            wall_budget=self.seconds(
                table, p, "wall_budget", Timeouts.wall_budget, allow_zero=True
            ),
            startup=self.seconds(table, p, "startup", Timeouts.startup, allow_zero=False),
            hello=self.seconds(table, p, "hello", Timeouts.hello, allow_zero=False),
            fault_limit=self.integer(
                table,
                p,
                "fault_limit",
                Timeouts.fault_limit,
                minimum=0,
                maximum=_bounds.MAX_FAULT_LIMIT,
            ),
            on_fault_limit=self.choice(
                table, p, "on_fault_limit", OnFaultLimit, Timeouts.on_fault_limit
            ),
            bench_after=self.integer(
                table, p, "bench_after", Timeouts.bench_after, minimum=0, maximum=1_000_000
            ),
        )

    def ratings(self, table: Mapping[str, Any]) -> Ratings:
        keys = tuple(f.name for f in dataclasses.fields(Ratings))
        self.known(table, "ratings.", keys)
        p = "ratings"
        anchor = table.get("anchor")
        if anchor is not None:
            anchor = self.bot_name(anchor, "ratings.anchor")
        values = {}
        for key, default, check in (
            ("k", Ratings.k, check_k_factor),
            ("start", Ratings.start, check_rating_setting),
            ("anchor_rating", Ratings.anchor_rating, check_rating_setting),
        ):
            value = self.number(table, p, key, default, positive=key == "k")
            try:  # the bounds live with the ratings (arena.ratings): Elo overflows past them
                values[key] = check(value)
            except ValueError as error:
                raise self.fail(f"{p}.{key}", str(error)) from None
        return Ratings(anchor=anchor, **values)

    def bots(self, value: object) -> tuple[BotSpec, ...]:
        if value is None:
            raise self.fail("bots", "missing: add at least two [[bots]] entries")
        if not isinstance(value, list):
            raise self.fail(
                "bots", f"must be an array of tables ([[bots]]), got {_type_name(value)}"
            )
        bots: list[BotSpec] = []
        seen: dict[str, int] = {}
        for i, entry in enumerate(value):
            bot = self.bot(entry, f"bots[{i}]")
            if bot.name in seen:
                raise self.fail(
                    f"bots[{i}].name",
                    f"{bot.name!r} is already the name of bots[{seen[bot.name]}]; names must be unique",
                )
            seen[bot.name] = i
            bots.append(bot)
        return tuple(bots)

    def bot(self, entry: object, p: str) -> BotSpec:
        """One ``[[bots]]`` table: its keys read as strings here, the bot checked by
        :func:`arena.tournament._bots.bot_from_fields` (as the command line's are)."""
        if not isinstance(entry, dict):
            raise self.fail(p, f"must be a table ([[bots]]), got {_type_name(entry)}")
        self.known(entry, f"{p}.", _BOT_KEYS)
        if "name" not in entry:
            raise self.fail(f"{p}.name", "missing: every bot needs a name")
        name = self.bot_name(entry["name"], f"{p}.name")
        fields = {key: self.string(entry, p, key) for key in _BOT_STRINGS if key in entry}
        remote = self.boolean(entry, p, "remote", False)  # a bot that dials in (issue 11)
        limits = parse_limits(self, entry["limits"], f"{p}.limits") if "limits" in entry else None
        try:
            return bot_from_fields(name, fields, base=self.base, limits=limits, remote=remote)
        except BotSpecError as error:
            raise self.fail(f"{p}.{error.field}" if error.field else p, error.problem) from None
