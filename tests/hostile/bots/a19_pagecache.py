"""Audit 19: a live channel between a bot's two --duplicate instances through the page
cache of a file both sandboxes mount read-only (its own folder), read by *timing* a page
fault (mincore, fadvise, RWF_NOWAIT are denied; madvise(MADV_RANDOM) + a clock are not).

argv: TOKEN FILE [ARENA_ROOT]. FILE is a large cold file (a "model" shipped with the bot). Instance k
(its table) writes a 64-bit record per finished hand into region k: page i touched = 1.
The other instance reads the record two hands later by timing one byte of each page
(cached: a minor fault, ~1-5 us; not: a disk read, >= 50 us). A record is its dealt 5
cards, the 5 it drew (it always draws five) and a checksum. After its own draw it finds
the partner's finished deck that shares the most drawn cards (same stack positions) and
guesses that the opponent's dealt hand is the partner's dealt hand. Uses no showdown.
Reports: VERDICT GUESS <table hand> <cards>, VERDICT READ <slot> ok|bad, timings.
"""

import mmap
import os
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if (
    len(sys.argv) > 3
):  # where the arena package is mounted (a checkout that is not the installed one)
    sys.path.insert(0, sys.argv[3])
from _base import mark, report

from arena.sdk import Bot, run

mark(sys.argv[1])
PATH = sys.argv[2]
RANKS, SUITS = "23456789TJQKA", "cdhs"
CARDS = [r + s for r in RANKS for s in SUITS]
PAGE, BITS = 4096, 72
fd = os.open(PATH, os.O_RDONLY)
SIZE = os.fstat(fd).st_size
REGION = SIZE // 2


def mapping():
    m = mmap.mmap(fd, SIZE, prot=mmap.PROT_READ)
    m.madvise(mmap.MADV_RANDOM)  # no readahead: one page per fault
    return m


def encode(dealt, drawn, button, their_draw):
    v = 0
    for c in sorted(dealt) + list(drawn):  # drawn in the order dealt from the stack
        v = (v << 6) | CARDS.index(c)
    v = (v << 3 | their_draw) << 1 | button
    return (v << 8) | (zlib.crc32(v.to_bytes(8, "big")) & 255)  # 8-bit check


def decode(v):
    data, check = v >> 8, v & 255
    if zlib.crc32(data.to_bytes(8, "big")) & 255 != check:
        return None
    button, their_draw, data = data & 1, data >> 1 & 7, data >> 4
    idx = [(data >> (6 * (9 - i))) & 63 for i in range(10)]
    if max(idx) > 51 or len(set(idx)) != 10 or their_draw > 5:
        return None
    cards = [CARDS[i] for i in idx]
    return frozenset(cards[:5]), tuple(cards[5:]), button, their_draw


class PageCacheColluder(Bot):
    name = "pagecache"

    def __init__(self):
        self.me = None
        self.hand = 0
        self.dealt = frozenset()
        self.drawn = frozenset()
        self.partner = {}
        self.next_slot = 0
        self.fast = []
        self.slow = []

    def on_match_start(self, m):
        self.me = int(m.table_id.rsplit(".", 1)[1]) - 1  # table-1.1 -> 0, table-1.2 -> 1
        report(f"instance {self.me} region {self.me}")

    def base(self, region, slot):
        return region * REGION + slot * BITS * PAGE

    def write(self, slot, value):
        m = mapping()
        b = self.base(self.me, slot)
        for i in range(BITS):
            if value >> (BITS - 1 - i) & 1:
                m[b + i * PAGE]
        m.close()

    def read(self, slot):
        m = mapping()
        b = self.base(1 - self.me, slot)
        v = 0
        for i in range(BITS):
            t = time.perf_counter_ns()
            m[b + i * PAGE]
            dt = time.perf_counter_ns() - t
            bit = dt < 25_000
            (self.fast if bit else self.slow).append(dt)
            v = (v << 1) | bit
        m.close()
        return v

    def on_hand_start(self, m):
        self.hand, self.dealt, self.drawn = m.hand_number, frozenset(m.hole_cards), frozenset()
        while self.next_slot <= self.hand - 3:  # the partner finished that hand long ago
            got = decode(self.read(self.next_slot))
            report(f"READ {self.next_slot} {'ok' if got else 'bad'}")
            if got:
                self.partner[self.next_slot] = got
            self.next_slot += 1

    def decide(self, d):
        r = d.request
        if d.is_draw:
            return d.discard(list(r.hole_cards))
        if r.phase == 3 and not self.drawn:
            self.drawn = tuple(r.hole_cards)  # all five replaced, in stack order
            self.button = int(r.button == r.seat)
            self.their_draw = max(0, r.seats[1 - r.seat].draw_count)
            for dealt, drawn, button, their_draw in self.partner.values():
                if button == self.button or (dealt | set(drawn)) & self.dealt:
                    continue  # the same deck puts the partner on the other chair
                if self.button:  # I drew after the opponent; the partner drew first
                    k = self.their_draw
                    same = k < 5 and drawn[k:] == self.drawn[: 5 - k]
                else:  # I drew first; the partner drew after its opponent's `their_draw`
                    k = their_draw
                    same = k < 5 and self.drawn[k:] == drawn[: 5 - k]
                if same:
                    report(f"GUESS {self.hand} {' '.join(sorted(dealt))}")
                    break
        return d.check_or_call()

    def on_hand_end(self, m):
        if len(self.drawn) == 5:
            self.write(self.hand - 1, encode(self.dealt, self.drawn, self.button, self.their_draw))

    def on_match_end(self, m):
        f, s = sorted(self.fast), sorted(self.slow)
        report(
            f"timing fast n={len(f)} max={f[-1] if f else 0} slow n={len(s)} min={s[0] if s else 0}"
        )


run(PageCacheColluder(), argv=[])
