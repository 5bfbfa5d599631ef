"""Export a hand to PHH, the TOML hand-history format of ``uoftcprg/phh-std``.

PHH 0.0.2 has no code for Five Card Draw high, so the arena uses the local codes
``F5D`` (fixed limit), ``P5D`` (pot limit) and ``N5D`` (no limit); everything else
follows PHH as PokerKit 0.7 reads and writes it (see ``docs/phh.md``):

* players are listed from the button's left: ``p1`` is the small blind and ``pN``
  the button; heads-up ``p1`` is the big blind and ``p2`` the button, which posts
  the small blind (PHH reverse-assigns ``blinds_or_straddles = [1, 2]`` heads-up);
* ``d dh pN CARDS`` deals; at the draw every ``pN sd [CARDS]`` comes first, then one
  ``d dh pN CARDS`` with each drawer's replacements; ``cbr X`` raises *to* X;
  ``cc`` checks or calls; ``f`` folds; ``pN sm CARDS`` shows and a bare ``pN sm``
  mucks at showdown. Blinds, antes, burns, uncalled bets and pots have no line.

Arena options that PHH cannot say are written as underscore fields (PHH's
user-defined fields), and only when they differ from the defaults.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import tomli_w

from arena.engine import (
    BetOrRaised,
    BlindKind,
    BlindPosted,
    Called,
    CardsDrawn,
    Checked,
    Folded,
    ForcedBets,
    GameConfig,
    Hand,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    Structure,
    StubReshuffled,
    format_cards,
)

VARIANT_CODES: dict[Structure, str] = {
    Structure.FIXED_LIMIT: "F5D",
    Structure.POT_LIMIT: "P5D",
    Structure.NO_LIMIT: "N5D",
}
"""The local PHH variant code of each betting structure (R12)."""
STRUCTURES: dict[str, Structure] = {code: structure for structure, code in VARIANT_CODES.items()}

# Arena settings with no PHH field: written as user-defined fields when not default.
_OPTION_FIELDS = (
    ("_max_draw", "max_draw"),
    ("_opening", "opening"),
    ("_joker", "joker"),
    ("_showdown_reveal", "showdown_reveal"),
    ("_uncapped_heads_up", "uncapped_heads_up"),
    ("_max_bets_per_round", "max_bets_per_round"),
)
_DEFAULTS = GameConfig()


def player_order(n: int, button: int) -> list[int]:
    """Engine seats in PHH order: ``p1`` is the seat left of the button, ``pN`` the button."""
    return [(button + 1 + k) % n for k in range(n)]


def hand_to_phh(
    hand: Hand,
    *,
    players: Sequence[str] | None = None,
    seats: Sequence[int] | None = None,
    hand_number: int | str | None = None,
    table: int | str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The PHH fields of ``hand`` (finished or not), ready for :func:`dumps_phh`.

    ``players`` (names) and ``seats`` (table chair numbers) are indexed by the
    hand's seats 0..n-1 and are reordered into PHH order. ``finishing_stacks`` is
    written when the hand is over. ``extra`` fields are added last as given.
    """
    n = hand.n
    order = player_order(n, hand.button)
    label = {seat: f"p{k + 1}" for k, seat in enumerate(order)}
    config = hand.config
    phh: dict[str, Any] = {"variant": VARIANT_CODES[config.structure]}
    if config.ante:
        phh["ante_trimming_status"] = True
    phh["antes"] = [config.ante] * n
    blinds, plan = _blinds(hand, order)
    phh["blinds_or_straddles"] = blinds
    if config.structure is Structure.FIXED_LIMIT:
        phh["small_bet"] = config.small_bet
        phh["big_bet"] = config.big_bet
    else:
        phh["min_bet"] = config.min_bet
    phh["starting_stacks"] = [hand.starting_stacks[seat] for seat in order]
    phh["actions"] = _actions(hand, label)
    if hand_number is not None:
        phh["hand"] = hand_number
    if table is not None:
        phh["table"] = table
    if seats is not None:
        phh["seats"] = [seats[seat] for seat in order]
    if players is not None:
        phh["players"] = [players[seat] for seat in order]
    if hand.is_over:
        phh["finishing_stacks"] = [hand.stacks[seat] for seat in order]
    for key, name in _OPTION_FIELDS:
        value = getattr(config, name)
        if value != getattr(_DEFAULTS, name):
            phh[key] = value.value if hasattr(value, "value") else value
    carried_in = _carried_in(hand)
    if carried_in:
        phh["_carried_pot"] = carried_in
    if plan is not None:
        phh["_blind_plan"] = plan
    if extra:
        phh.update(extra)
    return phh


def dumps_phh(phh: Mapping[str, Any]) -> str:
    """One hand's PHH fields as TOML text (a ``.phh`` file)."""
    return _compact(tomli_w.dumps(dict(phh)))


def dumps_phhs(phhs: Iterable[Mapping[str, Any]]) -> str:
    """Several hands as one ``.phhs`` file: tables ``[1]``, ``[2]``, ... as PokerKit writes."""
    return _compact(tomli_w.dumps({str(k + 1): dict(phh) for k, phh in enumerate(phhs)}))


# tomli-w puts every array item on its own line; arrays of numbers read better on one.
_NUMBER_ARRAY = re.compile(r"\[\n((?:[ ]+-?\d+,\n)+)[ ]*\]")


def _compact(text: str) -> str:
    return _NUMBER_ARRAY.sub(
        lambda m: "[" + ", ".join(m.group(1).replace(",", " ").split()) + "]", text
    )


def _carried_in(hand: Hand) -> int:
    """Dead-hand chips carried into this hand (R28), from chip conservation (R26)."""
    if not hand.is_over:
        return hand.carried_pot
    return sum(hand.stacks) + hand.carried_out - sum(hand.starting_stacks)


def _blinds(hand: Hand, order: list[int]) -> tuple[list[int], dict[str, Any] | None]:
    """``blinds_or_straddles`` and, when the table overrode R6/R7, the ``_blind_plan``."""
    config = hand.config
    n = hand.n
    if config.forced_bets is ForcedBets.ANTES:
        return [0] * n, None
    small_blind, big_blind = config.small_blind, config.big_blind
    assert small_blind is not None and big_blind is not None  # GameConfig fills both
    small_seat: int | None = None
    big_seat: int | None = None
    posts: list[list[int]] = []
    for event in hand.events:
        if type(event) is not BlindPosted:
            continue
        if event.kind is BlindKind.SMALL:
            small_seat = event.seat
        elif event.kind is BlindKind.BIG and big_seat is None:
            big_seat = event.seat
        elif event.dead:  # a post of 0 means all-in already: any nominal replays it
            posts.append([event.seat, 0, event.amount or small_blind])
        else:
            posts.append([event.seat, event.amount or big_blind, 0])
    left = (hand.button + 1) % n
    if n == 2:
        default = (hand.button, left)
    else:
        default = (left, (left + 1) % n)
    nominal = [small_blind, big_blind, *[0] * (n - 2)]
    if (small_seat, big_seat) == default and not posts:
        return nominal, None
    assert big_seat is not None  # a blinds hand always posts its big blind (R6)
    position = {seat: k for k, seat in enumerate(order)}
    blinds = [0] * n
    plan: dict[str, Any] = {
        "small_blind": small_blind,
        "big_blind": big_blind,
        "big_blind_player": position[big_seat] + 1,
    }
    blinds[position[big_seat]] += big_blind
    if small_seat is not None:
        plan["small_blind_player"] = position[small_seat] + 1
        blinds[position[small_seat]] += small_blind
    for seat, live, _dead in posts:
        blinds[position[seat]] += live
    plan["posts"] = [[position[seat] + 1, live, dead] for seat, live, dead in posts]
    return blinds, plan


def _actions(hand: Hand, label: dict[int, str]) -> list[str]:
    actions: list[str] = []
    drawn: list[tuple[int, tuple]] = []
    for event in hand.events:
        if drawn and type(event) is not CardsDrawn and type(event) is not StubReshuffled:
            _flush_draw(actions, drawn, label)
        if type(event) is HoleCardsDealt:
            actions.append(f"d dh {label[event.seat]} {format_cards(event.cards)}")
        elif type(event) is Folded:
            actions.append(f"{label[event.seat]} f")
        elif type(event) is Checked or type(event) is Called:
            actions.append(f"{label[event.seat]} cc")
        elif type(event) is BetOrRaised:
            actions.append(f"{label[event.seat]} cbr {event.to}")
        elif type(event) is CardsDrawn:
            if event.discarded:
                actions.append(f"{label[event.seat]} sd {format_cards(event.discarded)}")
                drawn.append((event.seat, event.drawn))
            else:
                actions.append(f"{label[event.seat]} sd")
        elif type(event) is HandShown and not event.openers:
            actions.append(f"{label[event.seat]} sm {format_cards(event.cards)}")
        elif type(event) is HandMucked:
            actions.append(f"{label[event.seat]} sm")
    _flush_draw(actions, drawn, label)
    return actions


def _flush_draw(actions: list[str], drawn: list[tuple[int, tuple]], label: dict[int, str]) -> None:
    """After every ``sd`` line, the replacements, one ``d dh`` line per drawer in draw order."""
    for seat, cards in drawn:
        actions.append(f"d dh {label[seat]} {format_cards(cards)}")
    drawn.clear()
