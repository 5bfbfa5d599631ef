"""Remembers every card it is ever dealt, everywhere it can, to beat duplicate dealing.

argv: TOKEN MODE (``files``: also write to and read from every writable place;
``memory``: this process's memory only). A duplicate match deals deck ``d`` as hand
``d + 1`` at every rotation's table, so a deal remembered from another table with the
same match and hand number, and not this bot's own cards, is what its opponent holds
here. Before every bet it reads everything it stored and reports ``VERDICT knew ...``
when it knows its opponent's dealt cards; ``VERDICT wrote PLACE`` once per place it
could write, ``VERDICT dealt N`` as it goes, so the test knows it tried.
"""

import json
import os
import sys
import threading

from _base import Calling, mark, report

from arena.sdk import run

TOKEN, MODE = sys.argv[1], sys.argv[2]
FILE = f".remember-{TOKEN}.jsonl"
PLACES = [os.environ.get("HOME", ""), os.environ.get("TMPDIR", ""), "/tmp", "/dev/shm", "."]
_lock = threading.Lock()
_memory: list[dict] = []  # every deal this process saw, at any table
_wrote: set[str] = set()
_dealt: dict[str, list[str]] = {}  # hand_id -> this seat's dealt cards


def _key(hand_id: str) -> tuple[str, str, str]:
    """(match id, table id, hand number) from ``match/table/number``."""
    match, table, number = hand_id.rsplit("/", 2)
    return match, table, number


def _store(entry: dict) -> None:
    with _lock:
        _memory.append(entry)
    if MODE != "files":
        return
    for place in PLACES:
        if not place:
            continue
        try:
            with open(os.path.join(place, FILE), "a") as file:
                file.write(json.dumps(entry) + "\n")
        except OSError:
            continue
        if place not in _wrote:
            _wrote.add(place)
            report(f"wrote {place}")


def _recall() -> list[dict]:
    with _lock:
        seen = list(_memory)
    if MODE == "files":
        for place in PLACES:
            try:
                with open(os.path.join(place, FILE)) as file:
                    seen.extend(json.loads(line) for line in file if line.strip())
            except (OSError, ValueError):
                continue
    return seen


class Rememberer(Calling):
    name = "remember-everything"

    def on_hand_start(self, message) -> None:
        cards = list(message.hole_cards)
        _dealt[message.hand_id] = cards
        match, table, number = _key(message.hand_id)
        _store({"match": match, "table": table, "hand": number, "cards": cards})
        report(f"dealt {len(_dealt)}")

    def decide(self, decision):
        request = decision.request
        mine = _dealt.get(request.hand_id)
        if mine is not None and not decision.is_draw:
            match, table, number = _key(request.hand_id)
            for entry in _recall():
                same_deal = (entry["match"], entry["hand"]) == (match, number)
                if same_deal and entry["table"] != table and entry["cards"] != mine:
                    report(f"knew {request.hand_id} {' '.join(entry['cards'])}")
                    break
        return super().decide(decision)


mark(TOKEN)
run(Rememberer(), argv=[])
