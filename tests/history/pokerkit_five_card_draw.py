"""Five Card Draw high in PokerKit 0.7, registered under the arena's PHH codes.

PokerKit has no Five Card Draw high game and its :class:`HandHistory` knows only PHH
0.0.2's codes, so this module builds the game from PokerKit's parts (a two-street
single draw with :class:`StandardHighHand`) and a ``HandHistory`` subclass that maps
``F5D``, ``P5D`` and ``N5D`` to it: that is all PokerKit needs to read and write them.
"""

from __future__ import annotations

from typing import ClassVar

from pokerkit import Automation, Deck, Mode, StandardHighHand
from pokerkit.games import Draw, FixedLimitPokerMixin, NoLimitPokerMixin, PotLimitPokerMixin
from pokerkit.notation import HandHistory
from pokerkit.state import Opening, Street
from pokerkit.utilities import divmod, rake

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


class _FiveCardDraw(Draw):
    deck = Deck.STANDARD
    hand_types = (StandardHighHand,)
    hole_dealing_count = 5

    def _setup(
        self, automations, ante_trimming_status, raw_antes, raw_blinds, first, second, **kwargs
    ):
        cap = self.max_completion_betting_or_raising_count
        Draw.__init__(
            self,
            automations,
            (
                Street(False, (False,) * 5, 0, False, Opening.POSITION, first, cap),
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
    def __init__(
        self,
        automations,
        ante_trimming_status,
        raw_antes,
        raw_blinds_or_straddles,
        small_bet,
        big_bet,
        **kwargs,
    ):
        self._setup(
            automations,
            ante_trimming_status,
            raw_antes,
            raw_blinds_or_straddles,
            small_bet,
            big_bet,
            **kwargs,
        )


class NoLimitFiveCardDraw(NoLimitPokerMixin, _FiveCardDraw):
    def __init__(
        self,
        automations,
        ante_trimming_status,
        raw_antes,
        raw_blinds_or_straddles,
        min_bet,
        **kwargs,
    ):
        self._setup(
            automations,
            ante_trimming_status,
            raw_antes,
            raw_blinds_or_straddles,
            min_bet,
            min_bet,
            **kwargs,
        )


class PotLimitFiveCardDraw(PotLimitPokerMixin, _FiveCardDraw):
    def __init__(
        self,
        automations,
        ante_trimming_status,
        raw_antes,
        raw_blinds_or_straddles,
        min_bet,
        **kwargs,
    ):
        self._setup(
            automations,
            ante_trimming_status,
            raw_antes,
            raw_blinds_or_straddles,
            min_bet,
            min_bet,
            **kwargs,
        )


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
