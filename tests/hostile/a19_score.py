"""Score a colluding bot's GUESS lines against the referee's records (events.jsonl)."""

import json
import sys
from pathlib import Path


def truth(match: Path, bot_seat: int = 0, tables: int = 2):
    dealt = {}
    for line in (match / "events.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e["event"] == "HoleCardsDealt" and e["seat"] != bot_seat:
            dealt[e["hand"]] = frozenset(e["cards"])
    return dealt


def score(match: Path, name: str, tables: int = 2):
    dealt = truth(match)
    hits = guesses = 0
    for k in range(tables):
        log = match / "bots" / (f"{name}.stderr.log" if k == 0 else f"{name}.{k + 1}.stderr.log")
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("VERDICT GUESS "):
                _, _, hand, *cards = line.split()
                guesses += 1
                hits += dealt.get((int(hand) - 1) * tables + k + 1) == frozenset(cards)
    return hits, guesses, len(dealt)


if __name__ == "__main__":
    hits, guesses, hands = score(Path(sys.argv[1]), sys.argv[2])
    print(f"hits {hits} of {guesses} guesses, {hands} hands")
