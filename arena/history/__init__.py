"""Hand histories in PHH, the TOML format of ``uoftcprg/phh-std``.

Export any engine hand (:func:`hand_to_phh`, :func:`dumps_phh`, :func:`dumps_phhs`),
read ``.phh`` / ``.phhs`` text (:func:`load_phh`) and replay a hand through the engine
(:func:`replay`). Five Card Draw has no PHH 0.0.2 code: the arena writes ``F5D``,
``P5D`` and ``N5D`` (see ``docs/phh.md``). Pure: parsing takes strings, no file I/O.

:mod:`arena.history.pokerkit` (imported on its own, never from here) registers those
codes with PokerKit 0.7, for users who read arena histories with PokerKit.

It may import ``engine``, ``text``.
"""

from arena.history._errors import PhhError as PhhError
from arena.history._errors import PhhFormatError as PhhFormatError
from arena.history._errors import ReplayError as ReplayError
from arena.history._load import PhhHand as PhhHand
from arena.history._load import load_phh as load_phh
from arena.history._phh import VARIANT_CODES as VARIANT_CODES
from arena.history._phh import dumps_phh as dumps_phh
from arena.history._phh import dumps_phhs as dumps_phhs
from arena.history._phh import hand_to_phh as hand_to_phh
from arena.history._phh import player_order as player_order
from arena.history._replay import replay as replay

__all__ = [
    "VARIANT_CODES",
    "PhhError",
    "PhhFormatError",
    "PhhHand",
    "ReplayError",
    "dumps_phh",
    "dumps_phhs",
    "hand_to_phh",
    "load_phh",
    "player_order",
    "replay",
]
