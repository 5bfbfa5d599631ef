"""``arena.play(bots, hands=...)``: one match from Python, a notebook's cell (issue 13 item 6).

The bots play in this process where they can (built-in policies, policy objects, SDK
``Bot`` instances: no network); commands and bot folders are launched as ``arena
match`` launches them. The match is duplicate by default (each deck dealt once per
seat rotation), so the interval is mostly the bots' doing, not the cards'. The result
holds chips per bot and mbb/hand with its 95% interval, and prints as a small table.

Each (table, seat) gets its own bot object (issue 13 audit): one object at several
tables would see every rotation's cards, and at two seats both seats' cards. An object
that plays more than once is copied with :func:`copy.deepcopy` before the first hand,
every copy from the same state (the object passed is then never played); a class or a
zero-argument function is called once per (table, seat); an object that cannot be
copied is refused with a ``TypeError`` naming the bot (pass its class, or
``duplicate=False``), never shared. Refusing, not playing it shared, because a shared
object makes the duplicate interval a lie with nothing to show it; copies do not
separate what lives outside the object (globals, class attributes, files): only a
launched bot (a command, a bot folder) has a process of its own per rotation.

Objects given by the caller run in worker threads (:mod:`arena.cli._play_seats`): the
action timeout, the Hello timeout and every fault apply to them as to a launched bot,
and junk from ``handle()`` is a recorded fault, never an exception out of :func:`play`.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import dataclasses
import enum
import inspect
import math
import tempfile
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import trio

from arena.cli._play_seats import ThreadedBot
from arena.dealer import (
    BotDriver,
    FaultRecord,
    MatchResult,
    MatchSettings,
    check_deal_key,
    policy_driver,
    run_duplicate_match,
    run_match,
    seat_summaries,
    with_seed,
)
from arena.engine import GameConfig
from arena.policies import BUILT_IN, PolicyBot
from arena.text import escape_untrusted
from arena.tournament import (
    BotSpec,
    DriverContext,
    build_folder,
    load_manifest,
    open_builtin_bot,
    parse_bot_text,
)
from arena.tournament._standing_notes import figure

_GAME_KEYS = {f.name for f in dataclasses.fields(GameConfig)}


@dataclass(frozen=True)
class BotResult:
    """One bot's figures: chips won, mbb/hand and the 95% half-width (``None``: too few units)."""

    name: str
    chips: int
    mbb_per_hand: float
    ci95: float | None
    faults: int

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95% interval on mbb/hand, or ``None`` when it cannot be computed."""
        if self.ci95 is None:
            return None
        return (self.mbb_per_hand - self.ci95, self.mbb_per_hand + self.ci95)


@dataclass(frozen=True)
class PlayResult:
    """What :func:`play` returns: per-bot results in seat order, and how the match ran.

    ``faults``: the dealer's records (``seat`` indexes ``bots``; ``table`` the rotation;
    ``reason`` ``TIMEOUT``, ``MALFORMED``, ...). ``still_running``: in-process bots one
    of whose calls had not returned when the match ended: Python cannot stop a thread,
    so it goes on in this process (launch such a bot as a command to have it killed).
    """

    bots: tuple[BotResult, ...]
    hands: int
    seed: int
    duplicate: bool
    reason: str
    faults: tuple[FaultRecord, ...] = ()
    still_running: tuple[str, ...] = ()
    deal_key: str = dataclasses.field(default="", repr=False)
    """With ``seed``, what deals the same cards again: ``play(..., seed=r.seed,
    deal_key=r.deal_key)`` (issue 19 item 2: the seed alone gives no card)."""

    @property
    def chips(self) -> dict[str, int]:
        return {bot.name: bot.chips for bot in self.bots}

    def __getitem__(self, name: str) -> BotResult:
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    def __repr__(self) -> str:
        kind = "duplicate " if self.duplicate else ""
        lines = [f"{self.hands} hands, {kind}seed {self.seed} ({self.reason})"]
        names = {bot.name: escape_untrusted(bot.name, one_line=True) for bot in self.bots}
        width = max(len(name) for name in names.values())
        for bot in sorted(self.bots, key=lambda b: -b.chips):
            half = math.inf if bot.ci95 is None else bot.ci95
            shown = figure(bot.mbb_per_hand, half, signed=True)  # "too few hands", not ± inf
            faults = f", {bot.faults} faults" if bot.faults else ""
            lines.append(
                f"  {names[bot.name]:<{width}}  {bot.chips:+7d} chips  {shown} mbb/hand{faults}"
            )
        if self.still_running:
            running = ", ".join(names.get(n, escape_untrusted(n)) for n in self.still_running)
            lines.append(f"  still running a call that timed out: {running}")
        return "\n".join(lines)


def play(
    bots: Sequence[object] | Mapping[str, object],
    *,
    hands: int = 200,
    seed: int | None = None,
    duplicate: bool = True,
    stack: int = 200,
    action_timeout: float = 5.0,
    deal_key: str | None = None,
    **game: Any,
) -> PlayResult:
    """Play one match and return its :class:`PlayResult`.

    ``bots``: a list (names derived) or a ``{name: bot}`` dict of 2-7 bots, each a
    built-in policy name (``"rule-based"``, ``"builtin:random"``), a policy object
    (``decide(view)``), an SDK :class:`arena.sdk.Bot`, a class or zero-argument
    function making one of those, a command (``"python bot.py"``) or a bot folder
    (``bot.toml``; built first if needed). ``game``: any
    :class:`~arena.engine.GameConfig` field (``structure="no_limit"``, ``big_blind=4``).

    Every (table, seat) plays its own object: one used more than once is deep-copied
    (``TypeError`` naming the bot if it cannot be), a class or function is called per
    (table, seat). Objects run in worker threads under ``action_timeout`` seconds per
    decision, as launched bots do: a late answer is a TIMEOUT fault and the default
    action, junk from ``handle()`` a fault, a raise a crash (the seat sits out). A call
    that never returns goes on in its thread (``still_running``, and a RuntimeWarning).
    ``seed`` deals the same cards again only with the same ``deal_key`` (on the result).
    """
    named = _named(bots)
    if not 2 <= len(named) <= 7:
        raise ValueError(f"a match needs 2 to 7 bots, got {len(named)}")
    settings = with_seed(
        MatchSettings(
            config=_config(game),
            hands=hands,
            starting_stack=stack,
            seed=seed,
            duplicate=duplicate,
            action_timeout=action_timeout,
            reconnect=False,
            match_id="play",
            deal_key=None if deal_key is None else check_deal_key(deal_key, "deal_key"),
        )
    )
    seated = _seat_objects(named, len(named) if duplicate else 1)
    threaded: list[tuple[str, ThreadedBot]] = []
    result = trio.run(_play, named, seated, settings, threaded)
    running = _still_running(threaded, action_timeout)
    block = len(named) if duplicate else 1
    seats = seat_summaries(result, settings.config.big_blind or 2, duplicate_block=block)
    return PlayResult(
        tuple(BotResult(s.name, s.chips_won, s.mbb_per_hand, s.ci95, s.faults) for s in seats),
        result.hands_played,
        result.seed,
        duplicate,
        result.reason,
        tuple(result.faults),
        running,
        settings.deal_key or "",
    )


def _still_running(threaded: Sequence[tuple[str, ThreadedBot]], grace: float) -> tuple[str, ...]:
    """The bots a worker of which is still in a call ``grace`` seconds after the match
    (each had that long for its last messages), with a RuntimeWarning naming them."""
    deadline = time.monotonic() + grace
    names = tuple(dict.fromkeys(name for name, bot in threaded if bot.still_running(deadline)))
    if names:
        warnings.warn(
            f"arena.play: {', '.join(escape_untrusted(n) for n in names)} still running a "
            "call that timed out; Python cannot stop a thread, so it goes on in this process "
            "(launch the bot as a command to have it killed)",
            RuntimeWarning,
            stacklevel=3,
        )
    return names


def _is_bot(value: object) -> bool:
    """An object that plays: ``handle(message)`` (an SDK Bot) or ``decide(view)`` (a policy)."""
    if isinstance(value, type):
        return False
    return callable(getattr(value, "handle", None)) or callable(getattr(value, "decide", None))


def _seat_objects(named: Sequence[tuple[str, object]], tables: int) -> list[list[object]]:
    """What plays each (table, seat): the text of a command or built-in as given, else
    the object that plays there, its own (see the module docstring): made or copied here,
    before anything plays, so every copy starts from the same state."""
    uses = collections.Counter(id(bot) for _, bot in named if not isinstance(bot, str))
    return [
        [
            bot if isinstance(bot, str) else _own(name, bot, uses[id(bot)] * tables)
            for name, bot in named
        ]
        for _ in range(tables)
    ]


def _own(name: str, bot: object, uses: int) -> object:
    """The object seat ``name`` plays at one table: ``bot`` itself when it plays only
    there, a deep copy of it otherwise, or what ``bot`` makes when it is a class or a
    zero-argument function."""
    if not _is_bot(bot) and callable(bot):
        maker = getattr(bot, "__name__", "its factory")
        with contextlib.suppress(ValueError):  # no signature to read (a builtin): just call it
            try:
                inspect.signature(bot).bind()
            except TypeError:
                raise TypeError(
                    f"bot {name!r}: {maker}() needs arguments, and a class or function given "
                    "as a bot is called with none (a policy is an object with decide(view))"
                ) from None
        made = bot()
        if not _is_bot(made):
            raise TypeError(
                f"bot {name!r}: {maker}() returned {type(made).__name__}, not a bot "
                "(an object with handle(message) or decide(view))"
            )
        return made
    if not _is_bot(bot):
        raise TypeError(
            f"bot {name!r}: expected a built-in policy name, a command, a bot folder, "
            f"a policy (decide(view)), an SDK Bot or a class making one, got {type(bot).__name__}"
        )
    if uses == 1:
        return bot
    try:
        return copy.deepcopy(bot)
    except Exception as error:
        raise TypeError(
            f"bot {name!r}: it plays at {uses} tables or seats, each with its own copy so "
            f"that none sees another's cards, but this {type(bot).__name__} cannot be copied "
            f"({type(error).__name__}: {error}); pass its class or a zero-argument function "
            "that makes one, or play it at one seat with duplicate=False"
        ) from error


def _config(game: Mapping[str, Any]) -> GameConfig:
    """A :class:`GameConfig` from keywords; enum fields take their text (``"no_limit"``)."""
    unknown = sorted(set(game) - _GAME_KEYS)
    if unknown:
        raise TypeError(f"unknown game setting {unknown[0]!r}; choose from {sorted(_GAME_KEYS)}")
    values = dict(game)
    defaults = GameConfig()
    for key, value in values.items():
        default = getattr(defaults, key)
        if isinstance(default, enum.Enum) and isinstance(value, str):
            values[key] = type(default)(value)
    return GameConfig(**values)


def _named(bots: Sequence[object] | Mapping[str, object]) -> list[tuple[str, object]]:
    """``(name, bot)`` pairs, names unique (``rule-based``, ``rule-based-2``)."""
    pairs = list(bots.items()) if isinstance(bots, Mapping) else [(None, b) for b in bots]
    out: list[tuple[str, object]] = []
    seen: dict[str, int] = {}
    for name, bot in pairs:
        base = str(name) if name is not None else _default_name(bot)
        count = seen.get(base, 0) + 1
        seen[base] = count
        out.append((base if count == 1 else f"{base}-{count}", bot))
    return out


def _default_name(bot: object) -> str:
    if isinstance(bot, str):
        text = bot.removeprefix("builtin:")
        return text if text in BUILT_IN else parse_bot_text(bot).name
    name = getattr(bot, "name", None)
    if isinstance(name, str) and name:
        return name
    if isinstance(bot, type) or not _is_bot(bot):  # a class or a factory: its own name
        return str(getattr(bot, "__name__", None) or type(bot).__name__)
    return type(bot).__name__


async def _play(
    named: list[tuple[str, object]],
    seated: list[list[object]],
    settings: MatchSettings,
    threaded: list[tuple[str, ThreadedBot]],
) -> MatchResult:
    with tempfile.TemporaryDirectory(prefix="arena-play-") as logs:
        async with contextlib.AsyncExitStack() as stack:
            tables = []
            for k, row in enumerate(seated):
                seed = (settings.seed or 0) + k
                drivers: list[BotDriver] = []
                for (name, _), bot in zip(named, row, strict=True):
                    driver = await _driver(
                        name if k == 0 else f"{name}.{k + 1}", bot, stack, logs, seed
                    )
                    if isinstance(driver, ThreadedBot):
                        threaded.append((name, driver))
                    drivers.append(driver)
                tables.append(drivers)
            if settings.duplicate:
                return await run_duplicate_match(tables, settings)
            return await run_match(tables[0], settings)
    raise AssertionError("unreachable")  # pragma: no cover


async def _driver(
    name: str, bot: object, stack: contextlib.AsyncExitStack, logs: str, seed: int
) -> BotDriver:
    """The driver of one bot at one table (each table its own, as duplicate play needs)."""
    if isinstance(bot, str):
        policy = bot.removeprefix("builtin:")
        if policy in BUILT_IN:
            return policy_driver(name, policy, seed)
        spec: BotSpec = parse_bot_text(bot).renamed(name)
        if spec.folder is not None:
            build_folder(load_manifest(spec.folder))
        context = DriverContext(seed=seed, log_dir=Path(logs), startup_timeout=15.0)
        return await stack.enter_async_context(open_builtin_bot(spec, context))
    if callable(getattr(bot, "handle", None)):  # an SDK Bot (or anything speaking messages)
        return ThreadedBot(bot, name)  # duck-typed: handle(message), in a worker thread
    return ThreadedBot(PolicyBot(name, cast(Any, bot)), name)  # a policy: decide(view)
