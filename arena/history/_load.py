"""Read PHH text (one ``.phh`` hand or a ``.phhs`` file of ``[1]``, ``[2]``, ... tables)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.engine import (
    BlindPlan,
    ConfigError,
    ForcedBets,
    ForcedPost,
    GameConfig,
    JokerMode,
    Opening,
    ShowdownReveal,
    Structure,
)
from arena.history._errors import PhhFormatError
from arena.history._phh import STRUCTURES

_REQUIRED = {
    Structure.FIXED_LIMIT: ("variant", "antes", "blinds_or_straddles", "small_bet", "big_bet"),
    Structure.POT_LIMIT: ("variant", "antes", "blinds_or_straddles", "min_bet"),
    Structure.NO_LIMIT: ("variant", "antes", "blinds_or_straddles", "min_bet"),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class PhhHand:
    """One hand read from a PHH file: the game, the players and the action lines.

    Player lists (``starting_stacks``, ``finishing_stacks``, ``players``) are in PHH
    order; :func:`arena.history.replay` seats ``p1`` at seat 0 and the button at n-1.
    """

    source: str
    name: str
    config: GameConfig
    starting_stacks: tuple[int, ...]
    actions: tuple[str, ...]
    finishing_stacks: tuple[int, ...] | None = None
    players: tuple[str, ...] | None = None
    blind_plan: BlindPlan | None = None
    carried_pot: int = 0
    fields: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def variant(self) -> str:
        return self.fields.get("variant", "")


def load_phh(text: str, *, source: str = "<string>") -> list[PhhHand]:
    """Parse PHH text: one hand (top-level fields) or several (a table per hand).

    Raises :class:`PhhFormatError` naming the source and hand on bad TOML, a missing
    or malformed field, or an unknown variant code.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PhhFormatError(f"not valid TOML ({error})", source=source) from None
    if "variant" in data or "actions" in data:
        return [_hand(data, source, _name(data, "1"))]
    if not data:
        raise PhhFormatError("no hand in the file", source=source)
    hands = []
    for key, table in data.items():
        if not isinstance(table, dict):
            raise PhhFormatError(
                f"{key!r} is neither a PHH field nor a table holding one hand", source=source
            )
        hands.append(_hand(table, source, _name(table, key)))
    return hands


def _name(data: Mapping[str, Any], fallback: str) -> str:
    hand = data.get("hand")
    return str(hand) if isinstance(hand, int | str) and not isinstance(hand, bool) else fallback


def _hand(data: Mapping[str, Any], source: str, name: str) -> PhhHand:
    """One hand's fields, checked in reading order: the variant, the players, the game."""

    def fail(problem: str) -> PhhFormatError:
        return PhhFormatError(problem, source=source, hand=name)

    structure = _structure(data, fail)
    stacks = _int_list(data, "starting_stacks", fail, positive=True)
    n = len(stacks)
    if not 2 <= n <= 7:
        raise fail(f"{n} players; a hand needs 2 to 7 (R1)")
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise fail("'actions' must be an array of strings")
    finishing = None
    if "finishing_stacks" in data:
        finishing = _int_list(data, "finishing_stacks", fail)
        if len(finishing) != n:
            raise fail(f"'finishing_stacks' has {len(finishing)} entries for {n} players")
    players = data.get("players")
    if players is not None:
        if not isinstance(players, list) or len(players) != n:
            raise fail(f"'players' must be an array of {n} names")
        players = tuple(str(p) for p in players)
    config, plan = _game(data, structure, n, fail)
    carried = data.get("_carried_pot", 0)
    if not isinstance(carried, int) or isinstance(carried, bool) or carried < 0:
        raise fail(f"'_carried_pot' must be a whole number >= 0, got {carried!r}")
    return PhhHand(
        source=source,
        name=name,
        config=config,
        starting_stacks=tuple(stacks),
        actions=tuple(actions),
        finishing_stacks=None if finishing is None else tuple(finishing),
        players=players,
        blind_plan=plan,
        carried_pot=carried,
        fields=dict(data),
    )


_Fail = Callable[[str], PhhFormatError]

#: The arena's own fields (PHH allows ``_``-prefixed extensions): key, setting, type.
_EXTENSIONS: tuple[tuple[str, str, type], ...] = (
    ("_max_draw", "max_draw", int),
    ("_opening", "opening", Opening),
    ("_joker", "joker", JokerMode),
    ("_showdown_reveal", "showdown_reveal", ShowdownReveal),
    ("_uncapped_heads_up", "uncapped_heads_up", bool),
    ("_max_bets_per_round", "max_bets_per_round", int),
)


def _structure(data: Mapping[str, Any], fail: _Fail) -> Structure:
    """The betting structure the variant code names; every field it requires is present."""
    variant = data.get("variant")
    if variant is None:
        raise fail("missing field 'variant'")
    if not isinstance(variant, str):
        raise fail(f"'variant' must be a string such as \"F5D\", got {variant!r}")
    structure = STRUCTURES.get(variant)
    if structure is None:
        known = ", ".join(STRUCTURES)
        raise fail(f"unknown variant {variant!r}: the arena plays Five Card Draw ({known})")
    for key in (*_REQUIRED[structure], "starting_stacks", "actions"):
        if key not in data:
            raise fail(f"missing field {key!r} (required for {variant})")
    return structure


def _game(
    data: Mapping[str, Any], structure: Structure, n: int, fail: _Fail
) -> tuple[GameConfig, BlindPlan | None]:
    """The game: forced bets (and the table's blind plan), bet sizes, the arena's fields."""
    settings, plan = _forced_bets(data, structure, n, fail)
    if structure is Structure.FIXED_LIMIT:
        settings["small_bet"] = _positive(data, "small_bet", fail)
        settings["big_bet"] = _positive(data, "big_bet", fail)
    else:
        min_bet = _positive(data, "min_bet", fail)
        given = settings.get("big_blind")
        if given is not None and given != min_bet:
            raise fail(
                f"min_bet {min_bet} differs from the big blind {given}: in the arena's pot "
                "and no limit the minimum bet is the big blind (R12)"
            )
        settings["big_blind"] = min_bet
    for key, setting, kind in _EXTENSIONS:
        if key in data:
            value = data[key]
            if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
                raise fail(f"{key!r} must be a whole number, got {value!r}")
            if kind is bool and not isinstance(value, bool):
                raise fail(f"{key!r} must be true or false, got {value!r}")
            settings[setting] = value
    try:
        return GameConfig(**settings), plan
    except ConfigError as error:
        raise fail(f"not a game the arena can play: {error}") from None


def _forced_bets(
    data: Mapping[str, Any], structure: Structure, n: int, fail: _Fail
) -> tuple[dict[str, Any], BlindPlan | None]:
    """GameConfig settings for the antes and blinds, and the arena's ``_blind_plan`` if given:
    a small and a big blind, or antes only; no straddles."""
    ante = _ante(data, n, fail)
    blinds = _int_list(data, "blinds_or_straddles", fail)
    if len(blinds) != n:
        raise fail(f"'blinds_or_straddles' has {len(blinds)} entries for {n} players")
    settings: dict[str, Any] = {"structure": structure, "ante": ante}
    plan = None
    raw_plan = data.get("_blind_plan")
    if raw_plan is not None:
        plan, small_blind, big_blind = _blind_plan(raw_plan, n, fail)
        settings.update(small_blind=small_blind, big_blind=big_blind)
    elif not any(blinds):
        settings["forced_bets"] = ForcedBets.ANTES
    elif blinds[2:] == [0] * (n - 2) and 0 < blinds[0] <= blinds[1]:
        settings.update(small_blind=blinds[0], big_blind=blinds[1])
    else:
        raise fail(
            f"blinds_or_straddles {blinds} is not supported: the arena plays a small and a "
            "big blind ([SB, BB, 0, ...]) or antes only (all zero), no straddles"
        )
    return settings, plan


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_list(data: Mapping[str, Any], key: str, fail, *, positive: bool = False) -> list[int]:
    value = data[key]
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        raise fail(f"{key!r} must be an array of whole numbers of chips, got {value!r}")
    if positive and any(v <= 0 for v in value):
        raise fail(f"{key!r} must be positive, got {value!r}")
    if any(v < 0 for v in value):
        raise fail(f"{key!r} must not be negative, got {value!r}")
    return value


def _positive(data: Mapping[str, Any], key: str, fail) -> int:
    value = data[key]
    if not _is_int(value) or value <= 0:
        raise fail(f"{key!r} must be a positive whole number, got {value!r}")
    return value


def _ante(data: Mapping[str, Any], n: int, fail) -> int:
    antes = data["antes"]
    if _is_int(antes):
        antes = [antes] * n
    antes = _int_list({"antes": antes}, "antes", fail)
    if len(antes) != n:
        raise fail(f"'antes' has {len(antes)} entries for {n} players")
    if len(set(antes)) != 1:
        raise fail(f"antes {antes} are not uniform: the arena's ante is the same for all (R8)")
    return antes[0]


def _blind_plan(raw: Any, n: int, fail) -> tuple[BlindPlan, int, int]:
    """The arena's ``_blind_plan`` table (dead button, missed blinds: R20-R22)."""

    def player(value: Any) -> int:
        if not _is_int(value) or not 1 <= value <= n:
            raise fail(f"'_blind_plan' names player {value!r}, not one of 1..{n}")
        return value - 1

    try:
        big_seat = player(raw["big_blind_player"])
        small = raw.get("small_blind_player")
        small_seat = None if small is None else player(small)
        small_blind, big_blind = raw["small_blind"], raw["big_blind"]
        posts = tuple(
            ForcedPost(player(seat), live, dead) for seat, live, dead in raw.get("posts", [])
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise fail(f"malformed '_blind_plan': {raw!r}") from None
    for value in (small_blind, big_blind, *(x for p in posts for x in p[1:])):
        if not _is_int(value) or value < 0:
            raise fail(f"malformed '_blind_plan': {raw!r}")
    return BlindPlan(big_seat, small_seat, posts), small_blind, big_blind
