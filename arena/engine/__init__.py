"""The rules engine: Five Card Draw as a pure, synchronous state machine (layer 1).

No I/O, no clocks, no global randomness, no imports from the layers above. Actions
go in, events come out; see :class:`Hand` for one deal and :class:`Table` for the
seats, the button and the blinds across deals.
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
from arena.engine._hand import BlindPlan as BlindPlan
from arena.engine._hand import ForcedPost as ForcedPost
from arena.engine._hand import Hand as Hand
from arena.engine._phase import LegalActions as LegalActions
from arena.engine._phase import Phase as Phase
from arena.engine._pots import Pot as Pot
from arena.engine._records import *  # noqa: F403 - the records are all public
from arena.engine._seating import BustPolicy as BustPolicy
from arena.engine._seating import HandSettlement as HandSettlement
from arena.engine._seating import Positions as Positions
from arena.engine._seating import SeatInfo as SeatInfo
from arena.engine._seating import SeatState as SeatState
from arena.engine._seating import TableError as TableError
from arena.engine._seating import TableStatistics as TableStatistics
from arena.engine._table import Table as Table
from arena.engine._view import SeatView as SeatView

__all__ = [name for name in dir() if not name.startswith("_")]
