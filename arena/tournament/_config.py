"""Tournament files: TOML read with :mod:`tomllib`, checked key by key on load.

A tournament file names the bots, the game, the clocks, the rating settings and the
format (round robin, gauntlet, ring or ladder). :func:`load_tournament` turns it into
a frozen :class:`TournamentConfig` or raises :class:`TournamentConfigError` with one
line that names the file, the key path (``bots[2].command``, ``game.max_draw``) and
what is wrong. Bot indexes in key paths count from 0, in file order.

The validation is written by hand rather than with pydantic: every message is ours,
unknown keys get a "did you mean" hint, and the engine's own :class:`ConfigError`
comes back naming ``game.<key>``. Relative paths (``output``, ``database``, a bot's
``workdir``) are resolved against the TOML file's folder, and bot commands run in
that folder unless the bot says otherwise, so ``{python} ../examples_bots/x.py``
means the same thing wherever ``arena`` is started.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import secrets
import shlex
import shutil
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.dealer import MatchSettings, OnFaultLimit
from arena.engine import ConfigError, ForcedBets, GameConfig
from arena.policies import BUILT_IN

if TYPE_CHECKING:
    from arena.tournament._formats import ScheduledMatch

_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_ADDRESS = re.compile(r"^(unix:\S+|[A-Za-z0-9_.\-\[\]:]+:\d{1,5})$")


class TournamentConfigError(ValueError):
    """A tournament file that cannot be used: the user's fault, the message says why.

    ``source`` is the file (or ``"<string>"``), ``key`` the dotted key path (``None``
    for a file that is not valid TOML) and ``problem`` what is wrong with it.
    """

    def __init__(self, source: str, key: str | None, problem: str) -> None:
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem


class Format(StrEnum):
    """How the bots are paired (see :func:`arena.tournament.build_schedule`)."""

    ROUND_ROBIN = "round_robin"
    GAUNTLET = "gauntlet"
    RING = "ring"
    LADDER = "ladder"


HEADS_UP_FORMATS = frozenset({Format.ROUND_ROBIN, Format.GAUNTLET, Format.LADDER})


@dataclass(frozen=True, kw_only=True)
class BotEntry:
    """One ``[[bots]]`` entry: exactly one of ``builtin``, ``command`` or ``address``.

    ``requires``: an executable (``"node"``) without which the bot is skipped with a
    note (:meth:`TournamentConfig.without_unavailable`). ``workdir``: where the
    command runs, absolute; the TOML file's folder unless the entry names another.
    """

    name: str
    builtin: str | None = None
    command: str | None = None
    address: str | None = None
    requires: str | None = None
    workdir: Path | None = None

    @property
    def kind(self) -> str:
        """``"builtin"``, ``"command"`` or ``"address"``, as :class:`arena.cli` spells it."""
        if self.builtin is not None:
            return "builtin"
        return "command" if self.command is not None else "address"

    @property
    def target(self) -> str:
        """The policy name, the command line or the address."""
        return self.builtin or self.command or self.address or ""

    @property
    def argv(self) -> list[str]:
        """The command's arguments; ``{python}`` becomes the interpreter running arena."""
        if self.command is None:
            raise ValueError(f"bot {self.name!r} is not a command bot")
        return [sys.executable if arg == "{python}" else arg for arg in shlex.split(self.command)]

    def available(self) -> bool:
        """Whether the executable named by ``requires`` (if any) is on ``PATH``."""
        return self.requires is None or shutil.which(self.requires) is not None


@dataclass(frozen=True, kw_only=True)
class Timeouts:
    """``[timeouts]``, in seconds: the action clock, the time bank, bot start-up, R25."""

    action: float = 1.0
    time_bank: float = 0.0
    startup: float = 15.0
    hello: float = 10.0
    fault_limit: int = 0
    on_fault_limit: OnFaultLimit = OnFaultLimit.SIT_OUT


@dataclass(frozen=True, kw_only=True)
class Ratings:
    """``[ratings]``: Elo's K factor and starting rating; an optional anchored bot."""

    k: float = 16.0
    start: float = 1500.0
    anchor: str | None = None
    anchor_rating: float = 1000.0


@dataclass(frozen=True, kw_only=True)
class TournamentConfig:
    """A validated tournament file. Paths are absolute; ``seed`` is always set.

    ``seed_drawn`` says the file gave no seed and one was drawn from the CSPRNG: record
    it, and on resume put the stored one back with :meth:`with_seed` before comparing
    :meth:`to_json` with the stored copy.
    """

    name: str
    format: Format = Format.ROUND_ROBIN
    hands_per_match: int = 200
    duplicate: bool = True
    rounds: int = 1
    table_size: int = 2
    challengers: tuple[str, ...] = ()
    concurrency: int = 1
    max_tables_per_bot: int = 1
    seed: int
    seed_drawn: bool = False
    output: Path
    database: Path
    early_stop: bool = False
    game: GameConfig = field(default_factory=GameConfig)
    stack: int = 200
    timeouts: Timeouts = field(default_factory=Timeouts)
    ratings: Ratings = field(default_factory=Ratings)
    bots: tuple[BotEntry, ...] = ()
    workdir: Path
    source: str = "<string>"

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(bot.name for bot in self.bots)

    def bot(self, name: str) -> BotEntry:
        """The entry called ``name``; ``KeyError`` if there is none."""
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    @property
    def seats_per_table(self) -> int:
        """2 for the heads-up formats, ``table_size`` for ring."""
        return self.table_size if self.format is Format.RING else 2

    def game_config(self) -> GameConfig:
        return self.game

    def hands_for(self, seats: int) -> int:
        """Hands per match at a table of ``seats``: with ``duplicate``, rounded up to a
        multiple of ``seats``, so each deck is dealt once with the button at every seat."""
        hands = self.hands_per_match
        if self.duplicate:
            hands = -(-hands // seats) * seats
        return hands

    def match_settings(self, match: ScheduledMatch) -> MatchSettings:
        """The dealer's settings for one scheduled match."""
        t = self.timeouts
        return MatchSettings(
            config=self.game,
            hands=match.hands,
            starting_stack=self.stack,
            seed=match.seed,
            duplicate=match.duplicate,
            action_timeout=t.action,
            time_bank=t.time_bank,
            hello_timeout=t.hello,
            fault_limit=t.fault_limit,
            on_fault_limit=t.on_fault_limit,
            match_id=f"{self.name}/{match.key}",
            table_id=match.key,
        )

    def with_seed(self, seed: int) -> TournamentConfig:
        """The same tournament with ``seed`` (a stored one, on resume)."""
        return dataclasses.replace(self, seed=seed, seed_drawn=False)

    def without_unavailable(self) -> tuple[TournamentConfig, list[str]]:
        """Drop bots whose ``requires`` executable is missing; return the notes to print.

        Raises :class:`TournamentConfigError` if what is left cannot be played (fewer
        than two bots, a challenger dropped, a ring table larger than the field).
        """
        missing = [bot for bot in self.bots if not bot.available()]
        if not missing:
            return self, []
        notes = [
            f"skipping bot {bot.name!r}: {bot.requires!r} is not installed (not found on PATH)"
            for bot in missing
        ]
        dropped = {bot.name for bot in missing}
        kept = tuple(bot for bot in self.bots if bot.name not in dropped)
        for challenger in self.challengers:
            if challenger in dropped:
                raise TournamentConfigError(
                    self.source,
                    "tournament.challengers",
                    f"challenger {challenger!r} needs {self.bot(challenger).requires!r}, "
                    "which is not installed",
                )
        config = dataclasses.replace(self, bots=kept)
        try:
            _check_field(config, "bots")
        except TournamentConfigError as error:
            skipped = ", ".join(repr(bot.name) for bot in missing)
            raise TournamentConfigError(
                self.source, error.key, f"{error.problem} after skipping {skipped}"
            ) from None
        return config, notes

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: every setting that shapes the schedule and the games."""
        game = {f.name: _plain(getattr(self.game, f.name)) for f in dataclasses.fields(GameConfig)}
        return {
            "tournament": {
                "name": self.name,
                "format": self.format.value,
                "hands_per_match": self.hands_per_match,
                "duplicate": self.duplicate,
                "rounds": self.rounds,
                "table_size": self.table_size,
                "challengers": list(self.challengers),
                "concurrency": self.concurrency,
                "max_tables_per_bot": self.max_tables_per_bot,
                "seed": self.seed,
                "output": str(self.output),
                "database": str(self.database),
                "early_stop": self.early_stop,
            },
            "game": {**game, "stack": self.stack},
            "timeouts": {k: _plain(v) for k, v in dataclasses.asdict(self.timeouts).items()},
            "ratings": dataclasses.asdict(self.ratings),
            "bots": [
                {k: _plain(v) for k, v in dataclasses.asdict(bot).items() if v is not None}
                for bot in self.bots
            ],
        }

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, no spaces): store it, compare it on resume."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))


def _plain(value: object) -> object:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    return value


# --- loading ---------------------------------------------------------------------


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
    "seed",
    "output",
    "database",
    "early_stop",
)
_GAME_INT = ("small_blind", "big_blind", "small_bet", "big_bet", "ante", "max_draw")
_GAME_INT += ("max_bets_per_round",)
_GAME_STR = ("structure", "forced_bets", "opening", "joker", "showdown_reveal")
_GAME_BOOL = ("uncapped_heads_up",)
_BOT_KEYS = ("name", "builtin", "command", "address", "requires", "workdir")


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
        self, table: Mapping, path: str, key: str, default: int | None, *, minimum: int
    ) -> int:
        value = table.get(key, default)
        full = f"{path}.{key}"
        if value is None:
            raise self.fail(full, "missing: a whole number is required")
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(full, f"must be a whole number, got {_type_name(value)} {value!r}")
        if value < minimum:
            raise self.fail(full, f"must be at least {minimum}, got {value}")
        return value

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

    def bot_name(self, value: object, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(
                key, f"must be a bot name (a string), got {_type_name(value)} {value!r}"
            )
        if not _NAME.match(value):
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
        if "name" not in tour:
            raise self.fail(
                "tournament.name",
                "missing: give the tournament a name (it identifies it in the database)",
            )
        name = self.string(tour, t, "name")
        assert name is not None
        if len(name) > 200:
            raise self.fail("tournament.name", "must be at most 200 characters")
        fmt = self.choice(tour, t, "format", Format, Format.ROUND_ROBIN)
        hands = self.integer(tour, t, "hands_per_match", 200, minimum=1)
        duplicate = self.boolean(tour, t, "duplicate", True)
        rounds = self.integer(tour, t, "rounds", 1, minimum=1)
        if fmt is Format.RING:
            table_size = self.integer(tour, t, "table_size", 6, minimum=3)
            if table_size > 7:
                raise self.fail(
                    "tournament.table_size",
                    f"a ring table seats 3 to 7 bots (R1), got {table_size}",
                )
        else:
            if "table_size" in tour:
                raise self.fail(
                    "tournament.table_size",
                    f"only used by format = 'ring'; format {fmt.value!r} plays heads-up (remove it)",
                )
            table_size = 2
        challengers = self.challengers(tour, fmt)
        concurrency = self.integer(tour, t, "concurrency", 1, minimum=1)
        max_tables = self.integer(tour, t, "max_tables_per_bot", 1, minimum=1)
        seed_drawn = "seed" not in tour
        seed = (
            secrets.randbits(63) if seed_drawn else self.integer(tour, t, "seed", None, minimum=0)
        )
        output = self.path(self.string(tour, t, "output", "runs") or "runs")
        database = self.path(self.string(tour, t, "database", "arena.db") or "arena.db")
        early_stop = self.boolean(tour, t, "early_stop", False)
        if early_stop and fmt is Format.RING:
            raise self.fail(
                "tournament.early_stop",
                "SPRT early stopping is heads-up only; not for format = 'ring'",
            )
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
            concurrency=concurrency,
            max_tables_per_bot=max_tables,
            seed=seed,
            seed_drawn=seed_drawn,
            output=output,
            database=database,
            early_stop=early_stop,
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
        stack = self.integer(table, "game", "stack", 200, minimum=1)
        need = game.ante + (game.big_blind if game.forced_bets is ForcedBets.BLINDS else 0)
        if stack < need:  # type: ignore[operator]
            raise self.fail(
                "game.stack", f"must cover the forced bets (at least {need} chips), got {stack}"
            )
        return game, stack

    def timeouts(self, table: Mapping[str, Any]) -> Timeouts:
        keys = tuple(f.name for f in dataclasses.fields(Timeouts))
        self.known(table, "timeouts.", keys)
        p = "timeouts"
        return Timeouts(
            action=self.number(table, p, "action", 1.0, positive=True),
            time_bank=self.number(table, p, "time_bank", 0.0, positive=False),
            startup=self.number(table, p, "startup", 15.0, positive=True),
            hello=self.number(table, p, "hello", 10.0, positive=True),
            fault_limit=self.integer(table, p, "fault_limit", 0, minimum=0),
            on_fault_limit=self.choice(
                table, p, "on_fault_limit", OnFaultLimit, OnFaultLimit.SIT_OUT
            ),
        )

    def ratings(self, table: Mapping[str, Any]) -> Ratings:
        keys = tuple(f.name for f in dataclasses.fields(Ratings))
        self.known(table, "ratings.", keys)
        p = "ratings"
        anchor = table.get("anchor")
        if anchor is not None:
            anchor = self.bot_name(anchor, "ratings.anchor")
        return Ratings(
            k=self.number(table, p, "k", 16.0, positive=True),
            start=self.number(table, p, "start", 1500.0, positive=False),
            anchor=anchor,
            anchor_rating=self.number(table, p, "anchor_rating", 1000.0, positive=False),
        )

    def bots(self, value: object) -> tuple[BotEntry, ...]:
        if value is None:
            raise self.fail("bots", "missing: add at least two [[bots]] entries")
        if not isinstance(value, list):
            raise self.fail(
                "bots", f"must be an array of tables ([[bots]]), got {_type_name(value)}"
            )
        bots: list[BotEntry] = []
        seen: dict[str, int] = {}
        for i, entry in enumerate(value):
            p = f"bots[{i}]"
            if not isinstance(entry, dict):
                raise self.fail(p, f"must be a table ([[bots]]), got {_type_name(entry)}")
            self.known(entry, f"{p}.", _BOT_KEYS)
            if "name" not in entry:
                raise self.fail(f"{p}.name", "missing: every bot needs a name")
            name = self.bot_name(entry["name"], f"{p}.name")
            if name in seen:
                raise self.fail(
                    f"{p}.name",
                    f"{name!r} is already the name of bots[{seen[name]}]; names must be unique",
                )
            seen[name] = i
            kinds = [k for k in ("builtin", "command", "address") if k in entry]
            if len(kinds) != 1:
                given = " and ".join(kinds) if kinds else "none"
                raise self.fail(
                    p if not kinds else f"{p}.{kinds[1]}",
                    f"bot {name!r} needs exactly one of builtin, command or address (got {given})",
                )
            kind = kinds[0]
            target = self.string(entry, p, kind)
            assert target is not None
            if kind == "builtin" and target not in BUILT_IN:
                raise self.fail(
                    f"{p}.builtin",
                    f"unknown built-in {target!r}; choose from {', '.join(BUILT_IN)}",
                )
            if kind == "address" and not _ADDRESS.match(target):
                raise self.fail(f"{p}.address", f"{target!r} is not HOST:PORT or unix:PATH")
            if kind == "command":
                try:
                    argv = shlex.split(target)
                except ValueError as error:
                    raise self.fail(f"{p}.command", f"cannot parse the command: {error}") from None
                if not argv:
                    raise self.fail(f"{p}.command", "is empty")
            requires = self.string(entry, p, "requires")
            workdir_text = self.string(entry, p, "workdir")
            if workdir_text is not None and kind != "command":
                raise self.fail(
                    f"{p}.workdir", f"only used by command bots; bot {name!r} is a {kind} bot"
                )
            workdir = None
            if kind == "command":
                workdir = self.path(workdir_text) if workdir_text is not None else self.base
            bots.append(BotEntry(name=name, requires=requires, workdir=workdir, **{kind: target}))
        return tuple(bots)


def _check_field(config: TournamentConfig, bots_key: str) -> None:
    """Checks across sections: enough bots, challengers and the anchor among them."""
    src = config.source
    names = config.bot_names
    if len(names) < 2:
        raise TournamentConfigError(
            src, bots_key, f"a tournament needs at least 2 bots, got {len(names)}"
        )
    for i, challenger in enumerate(config.challengers):
        if challenger not in names:
            raise TournamentConfigError(
                src,
                f"tournament.challengers[{i}]",
                f"no bot is named {challenger!r}; bots are {', '.join(names)}",
            )
    if config.format in (Format.GAUNTLET, Format.LADDER) and set(names) <= set(config.challengers):
        what = "a field to play" if config.format is Format.GAUNTLET else "a pool to play"
        raise TournamentConfigError(
            src,
            "tournament.challengers",
            f"every bot is a challenger; format = {config.format.value!r} needs {what}",
        )
    if config.format is Format.RING and config.table_size > len(names):
        raise TournamentConfigError(
            src,
            "tournament.table_size",
            f"{config.table_size} seats but only {len(names)} bots; lower table_size or add bots",
        )
    anchor = config.ratings.anchor
    if anchor is not None and config.format is not Format.LADDER and anchor not in names:
        raise TournamentConfigError(
            src, "ratings.anchor", f"no bot is named {anchor!r}; bots are {', '.join(names)}"
        )
