"""Audit 19e: at 6 or 7 seats a duplicate match of the default 200 hands deals the *same
deck at the same moment* at two tables, so any live channel between a bot's instances
(sysinfo, /proc/net/sockstat, timing: all documented as open) carries the hole cards of
a hand in play. rotation_orders only keeps tables apart when a window holds >= n decks
per residue class (hands >= n**3: 216 at 6 seats, 343 at 7); nothing warns or refuses.
Measured: 6 seats x 200 hands: 15 of 33 hands shared; 7 x 200: 28 of 28; 6 x 215: 5 of 35.
"""

import secrets

import pytest

from arena.dealer._deal import rotation_orders
from arena.dealer._duplicate import _hands_at


@pytest.mark.parametrize("n, hands", [(6, 200), (7, 200), (3, 26), (2, 7)])
def test_a19e_no_two_tables_deal_one_deck_at_once(n, hands):
    scheduled = [_hands_at(k, hands, n) for k in range(n)]
    orders = rotation_orders(7, secrets.token_hex(32), scheduled, hands // n)
    shared = sum(1 for i in range(min(scheduled)) if len({o[i] for o in orders}) < n)
    assert shared == 0, f"{n} seats, {hands} hands: {shared} of {min(scheduled)} hands dealt one deck at two tables"
