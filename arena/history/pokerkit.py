"""Read and write arena hand histories with PokerKit 0.7 (``pip install 'pokerkit>=0.7,<0.8'``).

PokerKit has no Five Card Draw high game and its :class:`~pokerkit.notation.HandHistory`
knows only PHH 0.0.2's codes, so this module builds the game from PokerKit's parts (a
two-street single draw with :class:`~pokerkit.StandardHighHand`) and a ``HandHistory``
subclass that maps the arena's local codes ``F5D``, ``P5D`` and ``N5D`` to it::

    from arena.history.pokerkit import ArenaHandHistory, loads

    for history in loads(open("runs/<id>/hands.phhs").read()):
        *_, state = history            # every PokerKit state of the hand, the last one finished
        print(state.stacks, history.finishing_stacks)

``arena.history`` never imports this module and the arena never needs PokerKit: it is
imported here, on first use, and a clear :class:`ImportError` says how to install it.
What PokerKit cannot play (the joker, Jackpots, the arena's blind plans, ...) is listed
in ``docs/phh.md``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from typing import Any, ClassVar, cast

try:
    from pokerkit import Automation, Deck, Mode, StandardHighHand
    from pokerkit.games import Draw, FixedLimitPokerMixin, NoLimitPokerMixin, PotLimitPokerMixin
    from pokerkit.notation import HandHistory
    from pokerkit.state import Opening, Street
    from pokerkit.utilities import divmod, rake
except ImportError as error:  # pragma: no cover - exercised with PokerKit uninstalled
    raise ImportError(
        "arena.history.pokerkit needs PokerKit 0.7, which is not installed: "
        "pip install 'pokerkit>=0.7,<0.8' (it comes with arena's dev and bench extras)"
    ) from error

__all__ = [
    "AUTOMATIONS",
    "ArenaHandHistory",
    "FixedLimitFiveCardDraw",
    "NoLimitFiveCardDraw",
    "PotLimitFiveCardDraw",
    "loads",
]

AUTOMATIONS: tuple[Automation, ...] = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
"""Everything but the players' actions, the deal and the showdown runs by itself."""


class _FiveCardDraw(Draw):
    """Five cards down, one betting round, the draw, one betting round (R9-R15)."""

    deck = Deck.STANDARD
    hand_types = (StandardHighHand,)
    hole_dealing_count = 5

    def _setup(
        self,
        automations: Any,
        ante_trimming_status: Any,
        raw_antes: Any,
        raw_blinds: Any,
        first: int,
        second: int,
        **kwargs: Any,
    ) -> None:
        cap = self.max_completion_betting_or_raising_count
        # R12 counts the big blind as the first of four bets before the draw; PokerKit
        # counts only bets and raises, so the first street allows one fewer.
        first_cap = None if cap is None else cap - 1
        Draw.__init__(
            self,
            automations,
            (
                Street(False, (False,) * 5, 0, False, Opening.POSITION, first, first_cap),
                Street(True, (), 0, True, Opening.POSITION, second, cap),
            ),
            ante_trimming_status,
            raw_antes,
            raw_blinds,
            0,
            mode=kwargs.get("mode", Mode.CASH_GAME),
            starting_board_count=kwargs.get("starting_board_count", 1),
            divmod=kwargs.get("divmod", divmod),
            rake=kwargs.get("rake", rake),
        )


class FixedLimitFiveCardDraw(FixedLimitPokerMixin, _FiveCardDraw):
    """``F5D``: fixed-limit Five Card Draw high (``small_bet``, ``big_bet``)."""

    def __init__(
        self,
        automations: Any,
        ante_trimming_status: Any,
        raw_antes: Any,
        raw_blinds_or_straddles: Any,
        small_bet: int,
        big_bet: int,
        **kwargs: Any,
    ) -> None:
        self._setup(
            automations,
            ante_trimming_status,
            raw_antes,
            raw_blinds_or_straddles,
            small_bet,
            big_bet,
            **kwargs,
        )


class _BigBetFiveCardDraw(_FiveCardDraw):
    """Pot and no limit: one ``min_bet`` (the big blind) for both betting rounds."""

    def __init__(
        self,
        automations: Any,
        ante_trimming_status: Any,
        raw_antes: Any,
        raw_blinds_or_straddles: Any,
        min_bet: int,
        **kwargs: Any,
    ) -> None:
        self._setup(
            automations,
            ante_trimming_status,
            raw_antes,
            raw_blinds_or_straddles,
            min_bet,
            min_bet,
            **kwargs,
        )


class NoLimitFiveCardDraw(NoLimitPokerMixin, _BigBetFiveCardDraw):
    """``N5D``: no-limit Five Card Draw high (``min_bet``, the big blind)."""


class PotLimitFiveCardDraw(PotLimitPokerMixin, _BigBetFiveCardDraw):
    """``P5D``: pot-limit Five Card Draw high (``min_bet``, the big blind)."""


class ArenaHandHistory(HandHistory):
    """PokerKit's ``HandHistory`` told about the arena's local variant codes."""

    game_types: ClassVar[dict] = {
        **HandHistory.game_types,
        "F5D": FixedLimitFiveCardDraw,
        "P5D": PotLimitFiveCardDraw,
        "N5D": NoLimitFiveCardDraw,
    }
    variants: ClassVar[dict] = {game: code for code, game in game_types.items()}
    required_field_names: ClassVar[dict] = {
        **HandHistory.required_field_names,
        "F5D": HandHistory.required_field_names["F2L3D"],
        "P5D": HandHistory.required_field_names["N2L1D"],
        "N5D": HandHistory.required_field_names["N2L1D"],
    }


def loads(text: str) -> list[ArenaHandHistory]:
    """Every hand of PHH ``text``: one ``.phh`` hand or a ``.phhs`` file of ``[1]``, ``[2]``, ...

    PokerKit's own ``loads`` / ``loads_all`` read one form each; this reads either, as
    :func:`arena.history.load_phh` does.
    """
    data = tomllib.loads(text)
    if "variant" in data or "actions" in data:
        return [cast(ArenaHandHistory, ArenaHandHistory.loads(text))]  # cls(...), typed as the base
    return list(cast("Iterator[ArenaHandHistory]", ArenaHandHistory.loads_all(text)))
