"""The end of a hand (R18, R19, R26, R28, R29): showdown, pots, openers, settlement.

Part of :class:`~arena.engine.Hand`; the state lives on the hand (see ``Hand.__slots__``).
"""

from __future__ import annotations

from arena.engine._errors import EngineInvariantError
from arena.engine._eval import evaluate
from arena.engine._openers import openers_proof
from arena.engine._phase import Phase
from arena.engine._pots import Pot, build_pots, split_pot
from arena.engine._records import (
    HandDead,
    HandMucked,
    HandShown,
    PotAwarded,
)


class _Showdown:
    """Showdown and settlement."""

    __slots__ = ()

    def _finish_uncontested(self) -> None:
        """R18: the last player wins every pot and shows nothing."""
        self._return_uncalled()
        winner = self.folded.index(False)
        contributions, dead_money = self.contributions()
        self.pots = build_pots(contributions, self.folded, dead_money)
        total = sum(pot.amount for pot in self.pots)
        self.events.append(PotAwarded(winner, total, 0))
        self._prove_openers()
        self._settle({winner: total})

    def _finish_dead(self) -> None:
        """R28: nobody opened; the antes stay in the pot for the next deal."""
        self.dead = True
        self.events.append(HandDead(self.pot_total))
        self._settle({})

    def _showdown_order(self) -> list[int]:
        """R19: the last aggressor of the second round first, else the button's left; clockwise."""
        n = self.n
        folded = self.folded
        start = self._aggressor if self._aggressor is not None else self._clockwise[0]
        return [(start + k) % n for k in range(n) if not folded[(start + k) % n]]

    def _showdown(self) -> None:
        """R19: show in order, cards speak, split ties, odd chips clockwise from the button's left."""
        mode = self._joker
        holes = self.holes
        folded = self.folded
        live = [seat for seat in self._clockwise if not folded[seat]]
        if mode is None:
            ranks = {seat: evaluate(holes[seat]) for seat in live}
        else:
            ranks = {seat: evaluate(holes[seat], mode) for seat in live}
        committed, dead_money = self.contributions()
        level = committed[live[0]]
        if max(committed) == level and all(committed[seat] == level for seat in live):
            pots = [Pot(self.pot_total, tuple(live))]  # no side pots: the common case
        else:
            pots = build_pots(committed, folded, dead_money)
        self.pots = pots
        pot_winners: list[list[int]] = []
        for pot in pots:
            eligible = pot.eligible
            best = max(ranks[seat] for seat in eligible)
            # eligible seats come in table order; winners must be in clockwise order
            pot_winners.append([seat for seat in live if seat in eligible and ranks[seat] == best])
        events = self.events
        shown = self.shown
        if self._reveal_all:
            for seat in self._showdown_order():
                cards = tuple(holes[seat])
                shown[seat] = cards
                events.append(HandShown(seat, cards, ranks[seat]))
        else:
            must_show = {seat for winners in pot_winners for seat in winners}
            best_shown = -1
            for k, seat in enumerate(self._showdown_order()):
                rank = ranks[seat]
                if k == 0 or rank >= best_shown or seat in must_show:
                    cards = tuple(holes[seat])
                    shown[seat] = cards
                    events.append(HandShown(seat, cards, rank))
                    if rank > best_shown:
                        best_shown = rank
                else:
                    events.append(HandMucked(seat))
        awards: dict[int, int] = {}
        for index, pot in enumerate(pots):
            winners = pot_winners[index]
            if len(winners) == 1:
                shares = [(winners[0], pot.amount)]
            else:
                shares = split_pot(pot.amount, winners)
            for seat, amount in shares:
                if amount:
                    events.append(PotAwarded(seat, amount, index))
                    awards[seat] = awards.get(seat, 0) + amount
        self._prove_openers()
        self._settle(awards)

    def _prove_openers(self) -> None:
        """R29: the opener's openers are shown at the end, even after a fold.

        Only the cards that prove jacks or better (see :mod:`._openers`): the rest of
        the opener's original hand stays hidden (R18).
        """
        if self._jacks and self.opener is not None:
            cards, rank = openers_proof(self._opener_hand, self._joker)
            self.events.append(HandShown(self.opener, cards, rank, openers=True))

    def _settle(self, awards: dict[int, int]) -> None:
        stacks = self.stacks
        total_awarded = sum(awards.values())
        expected = self.pot_total if not self.dead else 0
        if total_awarded != expected:
            raise EngineInvariantError(f"awarded {total_awarded} of a pot of {expected} (R26)")
        for seat, amount in awards.items():
            stacks[seat] += amount
        self.payoffs = [
            after - before for after, before in zip(stacks, self.starting_stacks, strict=True)
        ]
        if not self.dead:
            self.committed = [0] * self.n
            self.carried_pot = 0
            self._dead_posted = None
        self.bets = [0] * self.n
        self.actor = None
        self.phase = Phase.OVER

    @property
    def carried_out(self) -> int:
        """Chips a dead hand leaves in the middle for the next deal (R28); else 0."""
        return self.pot_total if self.dead else 0
