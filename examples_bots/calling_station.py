"""A complete arena bot in 25 lines: it never folds, never raises and draws sensibly.

python examples_bots/calling_station.py --address 127.0.0.1:50051
"""

from arena.policies import sensible_discards
from arena.sdk import Bot, run


class CallingStation(Bot):
    name = "calling-station"
    version = "1.0"

    def decide(self, decision):
        if decision.is_draw:
            # keep pairs, trips, four to a flush, made hands; throw the rest
            cards = sensible_discards(decision.hole_cards, decision.legal.max_discard)
            return decision.discard(cards)
        # nothing to call: check; facing a bet: call, whatever we hold
        return decision.check_or_call()


if __name__ == "__main__":
    run(CallingStation())
