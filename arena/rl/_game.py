"""A session of hands for learning: the engine's :class:`~arena.engine.Hand`, one per episode.

No gym here: the PettingZoo and Gymnasium environments both drive a :class:`DrawGame`.
The engine deals, judges and pays every hand; this module only picks the deck from the
seed, rotates the button, carries a dead Jackpots pot to the next deal (R28), encodes
observations and maps discrete actions to engine actions (:mod:`arena.rl._spaces`).

The session seed is the trainer's, never an agent's: it fixes every future deck, so an
agent that read it could deal itself the next hands. It lives on :attr:`DrawGame.seed`
only; what an agent sees (:meth:`DrawGame.info`, the PHH ``table``, the ``match_id`` and
hand ids an opponent bot is sent) names the session by :func:`session_name`, a digest of
the seed: the same seed gives the same names, so a recorded hand id still finds its run,
and the name does not give the seed back. A seed is only as secret as it is hard to
guess, though: the cards an agent is dealt are themselves a function of the seed, so an
agent that knew how decks are drawn could search small seeds (``seed=7``) from them.
Leave the seed unset (62 bits from the CSPRNG, kept on ``seed``) or draw a large one when
the agent must not predict the cards.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import operator
import random
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from arena.engine import Action, Deck, GameConfig, Hand, LegalActions, Phase, SeatView
from arena.history import dumps_phh, hand_to_phh
from arena.rl._spaces import (
    History,
    action_index,
    action_mask,
    action_of,
    encode,
    raise_amounts,
)

DEFAULT_STACK_BLINDS = 100
"""Starting stack, in big blinds, when ``stack`` is not given (every hand starts afresh)."""

GAME_KEYS: tuple[str, ...] = ("stack", *(f.name for f in dataclasses.fields(GameConfig)))
"""The keywords :class:`DrawGame` takes: ``stack`` and every :class:`GameConfig` key."""


def check_keywords(
    function: str, settings: Mapping[str, Any], own: Iterable[str], hint: str = ""
) -> None:
    """``TypeError`` for a keyword in ``settings`` that no game takes, as Python words it
    but naming the public ``function`` (never an internal class) and every keyword it
    takes (``own``, then :data:`GAME_KEYS`), with the closest one if it looks misspelt."""
    unknown = [key for key in settings if key not in GAME_KEYS]
    if not unknown:
        return
    key = unknown[0]
    own = tuple(own)
    close = difflib.get_close_matches(key, own + GAME_KEYS, n=1)
    guess = f" (did you mean {close[0]!r}?)" if close else ""
    raise TypeError(
        f"{function}() got an unexpected keyword argument {key!r}{guess}{hint}; it takes "
        f"{', '.join(own)}, {GAME_KEYS[0]} and the GameConfig keys: {', '.join(GAME_KEYS[1:])}"
    )


class DrawGame:
    """Hands of Five Card Draw among ``players`` seats, each starting with ``stack`` chips.

    ``settings`` are :class:`~arena.engine.GameConfig` keys (``structure``, ``big_blind``,
    ``joker``, ...; a bad one raises :class:`~arena.engine.ConfigError` naming it). Hand
    ``k`` after :meth:`reset` with seed ``s`` deals deck ``Random(f"{s}:{k}")`` with the
    button on seat ``(k - 1) % players``, so a seed replays the same session. ``seed``
    is the trainer's to read; no agent is shown it (see the module docstring).
    """

    def __init__(self, players: int = 2, *, stack: int | None = None, **settings: Any) -> None:
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 7:
            raise ValueError(f"players must be 2 to 7 (R1), got {players!r}")
        self.config = GameConfig(**settings)
        self.players = players
        big_blind = self.config.big_blind or 2
        self.stack = DEFAULT_STACK_BLINDS * big_blind if stack is None else stack
        if isinstance(self.stack, bool) or not isinstance(self.stack, int) or self.stack <= 0:
            raise ValueError(f"stack must be a positive whole number of chips, got {stack!r}")
        self.seed: int = random.SystemRandom().randrange(1 << 62)
        self._named: tuple[int, str] = (-1, "")  # (seed, session_name(seed)), computed once
        self.hand_number = 0
        self.carried = 0
        self.hand: Hand = self._deal()
        self.history = History(players)
        self._observed: dict[int, np.ndarray] = {}  # this state's observations by seat
        self._legal: tuple[LegalActions, list[int | None]] | None = None  # and its choices

    # --- the session ------------------------------------------------------------

    def reset(self, seed: int | None = None) -> Hand:
        """Deal the next hand; a ``seed`` starts the session again from hand 1."""
        if seed is not None:
            if isinstance(seed, bool):
                raise TypeError(f"seed must be an integer, got {seed!r}")
            self.seed = operator.index(seed)  # a float is refused, not truncated
            self.hand_number = 0
            self.carried = 0
        elif self.hand_number and self.hand.is_over:
            self.carried = self.hand.carried_out
        self.hand = self._deal()
        self.history = History(self.players)
        self.history.update(self.hand.events)
        self._observed = {}
        self._legal = None
        return self.hand

    def _deal(self) -> Hand:
        self.hand_number += 1
        k = self.hand_number
        deck = Deck.shuffled(random.Random(f"{self.seed}:{k}"), joker=self.config.uses_joker)
        button = (k - 1) % self.players
        return Hand(
            self.config, [self.stack] * self.players, button, deck, carried_pot=self.carried
        )

    def step(self, index: int) -> Action:
        """Play discrete action ``index`` for the seat to act; returns the engine action.

        A value that is no index 0..37 raises ``TypeError`` / ``ValueError`` and one the
        mask rules out ``ValueError``, both before anything is played.
        """
        index = action_index(index)
        hand = self.hand
        seat = self.actor_seat()
        legal, amounts = self._choices()
        action = action_of(
            index, legal, hand.holes[seat], hand.pot_total, hand.current_bet, amounts
        )
        self.apply(action)
        return action

    def apply(self, action: Action) -> None:
        """Play an engine action for the seat to act (the engine refuses an illegal one)."""
        self.history.update(self.hand.apply(action))
        self._observed = {}
        self._legal = None

    def apply_default(self) -> None:
        """R23/R24's fallback (check if free, else fold; stand pat) for the seat to act."""
        self.history.update(self.hand.apply_default())
        self._observed = {}
        self._legal = None

    def _choices(self) -> tuple[LegalActions, list[int | None]]:
        """The actor's legal actions and raise amounts, computed once per state."""
        choices = self._legal
        if choices is None:
            hand = self.hand
            legal = hand.legal_actions()
            amounts: list[int | None] = [None] * 4
            if legal.phase is not Phase.DRAW:
                amounts = raise_amounts(legal, hand.pot_total, hand.current_bet)
            choices = self._legal = legal, amounts
        return choices

    def actor_seat(self) -> int:
        seat = self.hand.actor
        if seat is None:
            raise ValueError("the hand is over; nobody is to act")
        return seat

    # --- what a seat sees ---------------------------------------------------------

    def view(self, seat: int, *, history: bool = False) -> SeatView:
        """The engine's view of ``seat`` (``history=True``: with the redacted events)."""
        return self.hand.view(seat, history=history)

    def observe(self, seat: int) -> np.ndarray:
        """The fixed-size observation of ``seat`` (:data:`~arena.rl.OBS_SIZE` floats).

        Kept until the next action (wrappers and ``last()`` ask for the same one twice);
        a copy, so a caller that changes it changes nothing here.
        """
        cached = self._observed.get(seat)
        if cached is not None:
            return cached.copy()
        total = self.stack * self.players + self.hand.carried_pot
        legal = self._choices()[0] if self.hand.actor == seat else None
        obs = encode(self.hand, seat, self.history, total, legal)
        self._observed[seat] = obs.copy()
        return obs

    def mask(self, seat: int) -> np.ndarray:
        """The action mask of ``seat`` (all 0 unless it is to act)."""
        hand = self.hand
        if hand.actor != seat:
            return action_mask(None, 0, 0)
        legal, amounts = self._choices()
        return action_mask(legal, hand.pot_total, hand.current_bet, amounts)

    def rewards(self) -> list[float]:
        """Each seat's result of the finished hand in big blinds (0 while it is playing)."""
        payoffs = self.hand.payoffs
        if payoffs is None:
            return [0.0] * self.players
        big_blind = self.config.big_blind or 1
        return [chips / big_blind for chips in payoffs]

    def info(self) -> dict[str, Any]:
        """What an agent may know of the hand's name: ``hand_id`` (``TABLE/NUMBER``),
        ``hand`` (the number in the session, from 1) and ``table`` (:func:`session_name`
        of the seed), as PHH ``hand`` and ``table``. Never the seed itself."""
        table = self.table_name
        number = self.hand_number
        return {"hand_id": f"{table}/{number}", "hand": number, "table": table}

    @property
    def table_name(self) -> str:
        """The session's public name, ``rl-`` and 12 hex digits (:func:`session_name`)."""
        seed, name = self._named
        if seed != self.seed or not name:
            name = session_name(self.seed)
            self._named = (self.seed, name)
        return name

    def phh(self) -> str:
        """The current hand as PHH text (``arena replay`` checks a finished one)."""
        fields = hand_to_phh(self.hand, hand_number=self.hand_number, table=self.table_name)
        return dumps_phh(fields)


def session_name(seed: int) -> str:
    """The public name of the session of ``seed``: ``rl-`` and a 48-bit BLAKE2b digest of it.

    Reproducible (same seed, same name) and one way: a name is the digest of some 2**14 of
    the 2**62 seeds an unset seed is drawn from, so it cannot name the seed.
    """
    digest = hashlib.blake2b(str(seed).encode(), digest_size=6, person=b"arena.rl.session")
    return f"rl-{digest.hexdigest()}"
