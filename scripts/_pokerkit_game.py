"""PokerKit 0.7 configured as the arena's Five Card Draw (high), for cross-checks and benchmarks.

PokerKit has no Five Card Draw class (its draw games are lowball or badugi, and
``SingleDraw`` uses one bet size for both rounds), so :func:`create_state` builds a
``pokerkit.State`` directly: one street dealing five down cards, then one draw street
(``draw_status=True``), ``StandardHighHand``, a 52-card deck, no burn cards, the first
to act decided by position, and automations for everything except player actions and,
unless asked, card dealing.

Mapping to the arena's rules (RULES.md):

* Player order. PokerKit's player 0 is left of the button (the small blind; heads-up,
  the big blind) and its last player is the button. Arena seat ``s`` is PokerKit player
  ``(s - button - 1) % n``; see :func:`to_pokerkit` and :func:`to_arena`.
* The fixed-limit cap (R12: at most four bets per round, the big blind being the first
  bet before the draw). PokerKit counts only completions, bets and raises, not the
  blind, so the first street allows ``max_bets_per_round - 1`` of them and the second
  ``max_bets_per_round``.
* Tournament mode, so PokerKit refuses a fold when checking is free, as R24 does.

This module needs PokerKit (the ``bench`` and ``dev`` extras); the arena never imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pokerkit

from arena.engine import STANDARD_DECK, Card, GameConfig, Structure

AUTOMATIONS_EXCEPT_DEALING: tuple[pokerkit.Automation, ...] = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.CARD_BURNING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)
"""Every non-player step runs itself except dealing: the caller deals the arena's cards."""
AUTOMATIONS_ALL: tuple[pokerkit.Automation, ...] = (
    *AUTOMATIONS_EXCEPT_DEALING,
    pokerkit.Automation.HOLE_DEALING,
)
"""Every non-player step runs itself, dealing included (PokerKit shuffles its own deck)."""

_STRUCTURES = {
    Structure.FIXED_LIMIT: pokerkit.BettingStructure.FIXED_LIMIT,
    Structure.POT_LIMIT: pokerkit.BettingStructure.POT_LIMIT,
    Structure.NO_LIMIT: pokerkit.BettingStructure.NO_LIMIT,
}

TO_POKERKIT_CARD: dict[int, pokerkit.Card] = {
    card: next(iter(pokerkit.Card.parse(str(card)))) for card in STANDARD_DECK
}
"""Arena card -> PokerKit card (the 52 standard cards; PokerKit has no joker here)."""
TO_ARENA_CARD: dict[pokerkit.Card, Card] = {pk: Card(card) for card, pk in TO_POKERKIT_CARD.items()}
"""PokerKit card -> arena card."""


def to_pokerkit(seat: int, button: int, n: int) -> int:
    """PokerKit's player index for arena ``seat`` (player 0 sits left of the button)."""
    return (seat - button - 1) % n


def to_arena(player: int, button: int, n: int) -> int:
    """Arena seat of PokerKit ``player``."""
    return (player + button + 1) % n


def streets(config: GameConfig) -> tuple[pokerkit.Street, ...]:
    """The two betting rounds of Five Card Draw: deal five, bet; draw, bet (R9, R12, R15)."""
    if config.structure is Structure.FIXED_LIMIT:
        sizes = (config.small_bet, config.big_bet)
        caps: tuple[int | None, int | None] = (
            config.max_bets_per_round - 1,  # the big blind is the first bet (R12)
            config.max_bets_per_round,
        )
    else:
        sizes = (config.big_blind, config.big_blind)
        caps = (None, None)
    return (
        pokerkit.Street(
            False, (False,) * 5, 0, False, pokerkit.Opening.POSITION, sizes[0], caps[0]
        ),
        pokerkit.Street(False, (), 0, True, pokerkit.Opening.POSITION, sizes[1], caps[1]),
    )


def create_state(
    config: GameConfig,
    stacks: Sequence[int],
    *,
    automations: tuple[pokerkit.Automation, ...] = AUTOMATIONS_EXCEPT_DEALING,
    game_streets: tuple[pokerkit.Street, ...] | None = None,
) -> pokerkit.State:
    """A PokerKit hand of the arena's game; ``stacks`` are in PokerKit's player order.

    Only blinds games with the standard deck map over: no joker, no antes-only or
    Jackpots deals. Pass ``game_streets`` (from :func:`streets`) to skip rebuilding them.
    """
    if config.uses_joker or config.forced_bets.value != "blinds":
        raise ValueError("PokerKit plays only the standard-deck blinds game here")
    return pokerkit.State(
        automations,
        pokerkit.Deck.STANDARD,
        (pokerkit.StandardHighHand,),
        game_streets if game_streets is not None else streets(config),
        _STRUCTURES[config.structure],
        True,
        config.ante,
        (config.small_blind, config.big_blind),
        0,
        tuple(stacks),
        len(stacks),
        mode=pokerkit.Mode.TOURNAMENT,
    )


def pokerkit_cards(cards: Iterable[int]) -> tuple[pokerkit.Card, ...]:
    """Arena cards as PokerKit cards."""
    return tuple(TO_POKERKIT_CARD[card] for card in cards)
