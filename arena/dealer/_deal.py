"""What is dealt, from the match's seed and a secret no bot sees: decks, orders, seat seeds.

A seed alone is public information: an organiser writes ``seed = 1`` for
reproducibility, and the formulas are public source, so a bot that guesses the seed
(from ``MatchStart.seat_seed``, in a few tries) could compute every deck (issue 19 item
2). Every value here is therefore an HMAC-SHA256 under the match's *deal key* (32
random bytes, kept with the referee's records and the tournament database, never sent
to a bot): with the key, the seed gives the same deals again (``resume``, a rerun);
without it, nothing about a card or the order follows from anything a bot is shown.

Duplicate dealing also plays the decks in a secret order per rotation (issue 19 item
1): table ``k`` deals its full decks in its own order, shuffled within each class of
deck index mod ``n`` (so every deck is still dealt once with the button on every seat)
and never the deck another table deals at the same hand. Stacks are reset every hand,
so the order changes no result.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import random
import secrets

from arena.engine import Deck

DEAL_KEY_ENV = "ARENA_DEAL_KEY"
"""An environment variable holding a deal key (64 hex digits) to use instead of a fresh
one: two runs with the same seed and key deal the same cards (a rerun, a research
comparison of two bot versions on the same decks). Never passed to a launched bot."""

KEY_BYTES = 32


class DealKeyError(ValueError):
    """A deal key that is not 64 hex digits (names where it came from)."""


def check_deal_key(key: str, where: str = "deal key") -> str:
    """``key`` as 64 lower-case hex digits, or :class:`DealKeyError` naming ``where``."""
    text = key.strip().lower()
    if len(text) != 2 * KEY_BYTES or any(c not in "0123456789abcdef" for c in text):
        raise DealKeyError(f"{where}: a deal key is {2 * KEY_BYTES} hex digits")
    return text


def new_deal_key() -> str:
    """``$ARENA_DEAL_KEY`` when set (checked), else 32 bytes from the CSPRNG, as hex."""
    given = os.environ.get(DEAL_KEY_ENV)
    if given:
        return check_deal_key(given, f"${DEAL_KEY_ENV}")
    return secrets.token_hex(KEY_BYTES)


def _mac(key: str, label: str) -> bytes:
    return hmac.new(bytes.fromhex(key), label.encode(), hashlib.sha256).digest()


def deck_for(
    seed: int, deck_index: int, joker: bool, key: str, *, seat_stacks: bool = False
) -> Deck:
    """Deck ``deck_index`` of the match seeded ``seed`` under ``key``: every rotation
    of a duplicate match deals the same one, with ``seat_stacks`` (duplicate dealing):
    each place at the table draws from a stack of its own (``arena.engine.Deck``), so
    the same place draws the same cards at every rotation, and no instance of a bot ever
    draws a card its partner drew at another place (the draw names no deck)."""
    rng = random.Random(int.from_bytes(_mac(key, f"arena-deck/2:{seed}:{deck_index}"), "big"))
    return Deck.shuffled(rng, joker=joker, seat_stacks=seat_stacks)


def seat_seed(deck_seed: int, key: str, table_id: str, seat: int) -> int:
    """The seat's own seed (``MatchStart.seat_seed``): the same for the same match
    wherever it is played, and, keyed, no way back to the decks or to another seat's
    seed. Never 0 (0 says "no seed")."""
    digest = _mac(key, f"arena-seat-seed/2:{deck_seed}:{table_id}:{seat}")
    return int.from_bytes(digest[:8], "big") or 1


WINDOW = 16
"""Decks per class of index mod ``n`` that a table deals in a secret order before the
next ones: a window of ``16 n`` decks. Large enough that an instance cannot tell which
of its partner's hands was its deck (a guess among about 8); small enough that whole
duplicate blocks, which sequential tests and intervals need, keep coming as a match
goes on (issue 19 item 1)."""


def rotation_orders(
    seed: int, key: str, hands: list[int], full: int, window: int = WINDOW
) -> list[list[int]]:
    """The deck each table of a duplicate match deals at each of its hands.

    ``hands[k]``: how many hands table ``k`` plays; ``full``: the decks every table was
    meant to deal. Every table starts with the button on seat 0, and table ``k`` deals
    deck ``d`` at a hand ``h`` with ``h = d + k (mod n)``, so the button is on seat
    ``(d + k) mod n``: every deck is dealt with the button on every seat across the
    tables, and at any one hand the tables deal decks of ``n`` different classes of
    index mod ``n``: **never the same deck at the same hand**, however short the match
    (before audit 19e this held only from ``n**3`` hands). Within its class each table
    deals the decks in its own secret order, shuffled within windows of ``window`` decks
    (so whole duplicate blocks keep coming, for intervals and ``early_stop``): what a
    channel between a bot's instances can carry is only what a partner saw of hands it
    finished. The decks past the last whole block of ``n`` (fewer than ``n``) are dealt
    at only some tables, still never one deck at two tables at one hand.
    """
    n = len(hands)
    if n < 2:
        return [list(range(count)) for count in hands]
    whole = full // n * n
    orders = [[-1] * count for count in hands]
    rng = random.Random(int.from_bytes(_mac(key, f"arena-order/3:{seed}"), "big"))
    for residue in range(n):
        members = list(range(residue, whole, n))
        if not members:
            continue
        columns: list[list[int]] = [[] for _ in range(n)]
        starts = list(range(0, len(members), window))
        if len(starts) > 1 and len(members) - starts[-1] < n:
            starts.pop()  # a short last window joins the one before
        for start, end in zip(starts, [*starts[1:], len(members)], strict=True):
            for k in range(n):
                columns[k] += rng.sample(members[start:end], end - start)
        for k in range(n):
            orders[k][(residue + k) % n : whole : n] = columns[k]
    for k in range(n):  # the short tail: deck whole + (j - k) mod n at its j-th hand
        for j in range(hands[k] - whole):
            orders[k][whole + j] = whole + (j - k) % n
    return orders
