"""Audit 19 (item 1): a channel between a bot's instances recognises a deck the partner
finished from the *draw*, not only from a showdown.

The README says a channel "only helps via hands the partner finished at showdown" (the
opponent's shown cards). But every table deals the same deck order, so the replacement
cards of the draw come from the same stack positions at every rotation: an instance that
draws sees cards its partner already drew at that deck, recognises the deck, and then
knows the opponent's *dealt* hand (the partner's own dealt hand) before the last betting
round. Here the opponent never reaches a showdown (it folds to every post-draw bet), so
the documented attack gets nothing, and the draw attack still knows the opponent's dealt
cards in most hands. Instances share one Python object (the channel); the test asserts
what issue 19 item 1 asks: no more often than chance. FAILED on d63a72e and e9bb93a (96
of 200 hands); each rotation now draws its own order of the stub once the hole cards are
out (the same hole cards per seat, other replacement cards): 3 of 200.
"""

from __future__ import annotations

import pytest

from arena.dealer import LocalBot, MatchSettings, run_duplicate_match
from arena.engine import GameConfig
from arena.sdk import Bot


class Channel:
    def __init__(self) -> None:
        self.finished: list[tuple[int, frozenset, frozenset]] = []  # table, dealt, drawn
        self.guesses: dict[tuple[int, int], frozenset] = {}
        self.showdowns = 0


class DrawColluder(Bot):
    """Draws five every hand, bets after the draw; tells its partners what it was dealt
    and what it drew (never what an opponent showed)."""

    name = "draw-colluder"

    def __init__(self, channel: Channel, table: int) -> None:
        self.channel, self.table = channel, table
        self.hand, self.dealt, self.drawn = 0, frozenset(), frozenset()

    def on_hand_start(self, message) -> None:
        self.hand, self.dealt, self.drawn = (
            message.hand_number,
            frozenset(message.hole_cards),
            frozenset(),
        )

    def decide(self, decision):
        if decision.is_draw:
            return decision.discard(decision.request.hole_cards)
        if decision.request.phase == 3:  # after the draw
            mine = frozenset(decision.request.hole_cards)
            self.drawn = mine - self.dealt
            where = (self.table, self.hand)
            if self.drawn and where not in self.channel.guesses:
                best, most = None, 1  # the finished deck sharing the most drawn cards
                for table, dealt, drawn in self.channel.finished:
                    seen = dealt | drawn
                    if table == self.table or seen & self.dealt or dealt & self.drawn:
                        continue  # not the same deck: it would share no position
                    if len(drawn & self.drawn) > most:
                        best, most = dealt, len(drawn & self.drawn)
                if best is not None:
                    self.channel.guesses[where] = best
            if decision.legal.can_raise:
                return decision.raise_to(decision.legal.min_raise_to)
        return decision.check_or_call()

    def on_hand_end(self, message) -> None:
        self.channel.showdowns += len(message.shown) > 1
        if self.drawn:
            self.channel.finished.append((self.table, self.dealt, self.drawn))


class Folder(Bot):
    """Calls before the draw, draws two, folds to any bet after it: never a showdown."""

    name = "folder"

    def __init__(self, table: int, truth: dict) -> None:
        self.table, self.truth = table, truth

    def on_hand_start(self, message) -> None:
        self.truth[(self.table, message.hand_number)] = frozenset(message.hole_cards)

    def decide(self, decision):
        if decision.is_draw:
            return decision.discard(list(decision.request.hole_cards)[:2])
        if decision.request.phase == 3 and decision.legal.call_amount > 0:
            return decision.fold()
        return decision.check_or_call()


@pytest.mark.trio
async def test_a_channel_does_not_recognise_decks_from_the_draw() -> None:
    channel, truth = Channel(), {}
    tables = [
        [LocalBot(DrawColluder(channel, k), name="colluder"), LocalBot(Folder(k, truth), name="f")]
        for k in range(2)
    ]
    settings = MatchSettings(config=GameConfig(), hands=200, seed=7, duplicate=True)
    await run_duplicate_match(tables, settings)
    hits = sum(truth.get(where) == dealt for where, dealt in channel.guesses.items())
    print(f"draw attack: {hits} of {len(truth)} hands, showdowns {channel.showdowns}")
    assert channel.showdowns == 0  # the documented (showdown) attack has nothing to use
    assert hits <= 5, f"knew the opponent's dealt hand in {hits} of {len(truth)} hands"
