"""The rules engine: Five Card Draw as a pure, synchronous state machine.

No I/O, no clocks, no global randomness, no imports from the layers above. Actions
go in, events come out; see :class:`Hand` for one deal and :class:`Table` for the
seats, the button and the blinds across deals.

It imports no other arena package.
"""

from arena.engine._cards import FULL_DECK as FULL_DECK
from arena.engine._cards import JOKER as JOKER
from arena.engine._cards import STANDARD_DECK as STANDARD_DECK
from arena.engine._cards import Card as Card
from arena.engine._cards import CardParseError as CardParseError
from arena.engine._cards import format_cards as format_cards
from arena.engine._cards import parse_card as parse_card
from arena.engine._cards import parse_cards as parse_cards
from arena.engine._config import MAX_CHIPS as MAX_CHIPS
from arena.engine._config import ForcedBets as ForcedBets
from arena.engine._config import GameConfig as GameConfig
from arena.engine._config import JokerMode as JokerMode
from arena.engine._config import Opening as Opening
from arena.engine._config import ShowdownReveal as ShowdownReveal
from arena.engine._config import Structure as Structure
from arena.engine._deck import Deck as Deck
from arena.engine._errors import ConfigError as ConfigError
from arena.engine._errors import EngineInvariantError as EngineInvariantError
from arena.engine._errors import IllegalActionError as IllegalActionError
from arena.engine._errors import Reason as Reason
from arena.engine._eval import HandCategory as HandCategory
from arena.engine._eval import category as category
from arena.engine._eval import describe as describe
from arena.engine._eval import evaluate as evaluate
from arena.engine._eval import evaluate5 as evaluate5
from arena.engine._eval import qualifies_jacks_or_better as qualifies_jacks_or_better
from arena.engine._hand import Hand as Hand
from arena.engine._phase import LegalActions as LegalActions
from arena.engine._phase import Phase as Phase
from arena.engine._pots import Pot as Pot
from arena.engine._records import CALL as CALL
from arena.engine._records import CHECK as CHECK
from arena.engine._records import DRAW_STARTED as DRAW_STARTED
from arena.engine._records import FOLD as FOLD
from arena.engine._records import POSTDRAW_STARTED as POSTDRAW_STARTED
from arena.engine._records import PREDRAW_STARTED as PREDRAW_STARTED
from arena.engine._records import PRIVATE_EVENTS as PRIVATE_EVENTS
from arena.engine._records import STAND_PAT as STAND_PAT
from arena.engine._records import Action as Action
from arena.engine._records import AntePosted as AntePosted
from arena.engine._records import BetOrRaised as BetOrRaised
from arena.engine._records import BetRaise as BetRaise
from arena.engine._records import BlindKind as BlindKind
from arena.engine._records import BlindPosted as BlindPosted
from arena.engine._records import Call as Call
from arena.engine._records import Called as Called
from arena.engine._records import CardsDealtCount as CardsDealtCount
from arena.engine._records import CardsDrawn as CardsDrawn
from arena.engine._records import Check as Check
from arena.engine._records import Checked as Checked
from arena.engine._records import Discard as Discard
from arena.engine._records import DrawCount as DrawCount
from arena.engine._records import Event as Event
from arena.engine._records import Fold as Fold
from arena.engine._records import Folded as Folded
from arena.engine._records import HandDead as HandDead
from arena.engine._records import HandMucked as HandMucked
from arena.engine._records import HandShown as HandShown
from arena.engine._records import HoleCardsDealt as HoleCardsDealt
from arena.engine._records import PotAwarded as PotAwarded
from arena.engine._records import RoundStarted as RoundStarted
from arena.engine._records import StubReshuffled as StubReshuffled
from arena.engine._records import UncalledReturned as UncalledReturned
from arena.engine._seating import BustPolicy as BustPolicy
from arena.engine._seating import HandSettlement as HandSettlement
from arena.engine._seating import Positions as Positions
from arena.engine._seating import SeatInfo as SeatInfo
from arena.engine._seating import SeatState as SeatState
from arena.engine._seating import TableError as TableError
from arena.engine._seating import TableStatistics as TableStatistics
from arena.engine._start import BlindPlan as BlindPlan
from arena.engine._start import ForcedPost as ForcedPost
from arena.engine._table import Table as Table
from arena.engine._view import SeatView as SeatView

__all__ = [
    "CALL",
    "CHECK",
    "DRAW_STARTED",
    "FOLD",
    "FULL_DECK",
    "JOKER",
    "MAX_CHIPS",
    "POSTDRAW_STARTED",
    "PREDRAW_STARTED",
    "PRIVATE_EVENTS",
    "STANDARD_DECK",
    "STAND_PAT",
    "Action",
    "AntePosted",
    "BetOrRaised",
    "BetRaise",
    "BlindKind",
    "BlindPlan",
    "BlindPosted",
    "BustPolicy",
    "Call",
    "Called",
    "Card",
    "CardParseError",
    "CardsDealtCount",
    "CardsDrawn",
    "Check",
    "Checked",
    "ConfigError",
    "Deck",
    "Discard",
    "DrawCount",
    "EngineInvariantError",
    "Event",
    "Fold",
    "Folded",
    "ForcedBets",
    "ForcedPost",
    "GameConfig",
    "Hand",
    "HandCategory",
    "HandDead",
    "HandMucked",
    "HandSettlement",
    "HandShown",
    "HoleCardsDealt",
    "IllegalActionError",
    "JokerMode",
    "LegalActions",
    "Opening",
    "Phase",
    "Positions",
    "Pot",
    "PotAwarded",
    "Reason",
    "RoundStarted",
    "SeatInfo",
    "SeatState",
    "SeatView",
    "ShowdownReveal",
    "Structure",
    "StubReshuffled",
    "Table",
    "TableError",
    "TableStatistics",
    "UncalledReturned",
    "category",
    "describe",
    "evaluate",
    "evaluate5",
    "format_cards",
    "parse_card",
    "parse_cards",
    "qualifies_jacks_or_better",
]
