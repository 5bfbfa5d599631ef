"""``arena.play(bots, hands=...)``: one match from Python, a notebook's cell (issue 13 item 6).

The bots play in this process where they can (built-in policies, policy objects, SDK
``Bot`` instances: no network); commands and bot folders are launched as ``arena
match`` launches them. The match is duplicate by default (each deck dealt once per
seat rotation), so the interval is mostly the bots' doing, not the cards'. The result
holds chips per bot and mbb/hand with its 95% interval, and prints as a small table.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import trio

from arena.dealer import (
    BotDriver,
    LocalBot,
    MatchResult,
    MatchSettings,
    policy_driver,
    run_duplicate_match,
    run_match,
    seat_summaries,
    with_seed,
)
from arena.engine import GameConfig
from arena.policies import BUILT_IN, PolicyBot
from arena.tournament import (
    BotSpec,
    DriverContext,
    build_folder,
    load_manifest,
    open_builtin_bot,
    parse_bot_text,
)

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
    """What :func:`play` returns: per-bot results in seat order, and how the match ran."""

    bots: tuple[BotResult, ...]
    hands: int
    seed: int
    duplicate: bool
    reason: str

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
        width = max(len(bot.name) for bot in self.bots)
        for bot in sorted(self.bots, key=lambda b: -b.chips):
            ci = "inf" if bot.ci95 is None else f"{bot.ci95:.0f}"
            faults = f", {bot.faults} faults" if bot.faults else ""
            lines.append(
                f"  {bot.name:<{width}}  {bot.chips:+7d} chips  "
                f"{bot.mbb_per_hand:+6.0f} ± {ci} mbb/hand{faults}"
            )
        return "\n".join(lines)


def play(
    bots: Sequence[object] | Mapping[str, object],
    *,
    hands: int = 200,
    seed: int | None = None,
    duplicate: bool = True,
    stack: int = 200,
    action_timeout: float = 5.0,
    **game: Any,
) -> PlayResult:
    """Play one match and return its :class:`PlayResult`.

    ``bots``: a list (names derived) or a ``{name: bot}`` dict of 2-7 bots, each a
    built-in policy name (``"rule-based"``, ``"builtin:random"``), a policy object
    (``decide(view)``), an SDK :class:`arena.sdk.Bot`, a command (``"python bot.py"``)
    or a bot folder (``bot.toml``; built first if needed). ``game``: any
    :class:`~arena.engine.GameConfig` field (``structure="no_limit"``, ``big_blind=4``).
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
        )
    )
    result = trio.run(_play, named, settings)
    block = len(named) if duplicate else 1
    seats = seat_summaries(result, settings.config.big_blind or 2, duplicate_block=block)
    return PlayResult(
        tuple(BotResult(s.name, s.chips_won, s.mbb_per_hand, s.ci95, s.faults) for s in seats),
        result.hands_played,
        result.seed,
        duplicate,
        result.reason,
    )


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
    return str(getattr(bot, "name", None) or type(bot).__name__)


async def _play(named: list[tuple[str, object]], settings: MatchSettings) -> MatchResult:
    with tempfile.TemporaryDirectory(prefix="arena-play-") as logs:
        async with contextlib.AsyncExitStack() as stack:
            tables = []
            for k in range(len(named) if settings.duplicate else 1):
                seed = (settings.seed or 0) + k
                tables.append(
                    [
                        await _driver(name if k == 0 else f"{name}.{k + 1}", bot, stack, logs, seed)
                        for name, bot in named
                    ]
                )
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
        return LocalBot(cast(Any, bot), name)  # duck-typed: handle(message)
    if callable(getattr(bot, "decide", None)):  # an in-process policy: decide(view)
        return LocalBot(PolicyBot(name, cast(Any, bot)), name)
    raise TypeError(
        f"bot {name!r}: expected a built-in policy name, a command, a bot folder, "
        f"a policy (decide(view)) or an SDK Bot, got {type(bot).__name__}"
    )
