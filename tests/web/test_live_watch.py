"""Issue 21 item 5, in process: the spectator delay holds every public event (no card, no
hand) until it is due while the director's channel is not delayed, the hands carry a
running score per match, a duplicate rotation's players are the bots' names, and no
public event holds a hidden card; --watch-delay and --linger are options of every
command that has --watch."""

from __future__ import annotations

import json

import pytest
import trio
from click.testing import CliRunner

from arena.cli._app import cli
from arena.dealer import MatchSettings, policy_driver, run_duplicate_match
from arena.engine import GameConfig
from arena.web import LiveHub

HIDDEN_KEYS = ("discarded",)


def _played(hands: int = 8) -> list[tuple]:
    """A duplicate match of two builtin bots, rotations named as arena match names them."""
    out: list[tuple] = []
    settings = MatchSettings(config=GameConfig(), hands=hands, seed=6, duplicate=True)
    tables = [
        [policy_driver(f"rb{k}", "rule-based", 1), policy_driver(f"cs{k}", "calling-station", 2)]
        for k in ("", ".2")
    ]
    trio.run(lambda: run_duplicate_match(tables, settings, on_hand=lambda *h: out.append(h)))
    return out


def _hidden_cards(hand, view: dict) -> list[str]:
    """Cards of ``hand`` a spectator must not see that ``view`` holds anywhere."""
    shown = {str(c) for e in hand.events if type(e).__name__ == "HandShown" for c in e.cards}
    dealt = {str(c) for e in hand.events for c in getattr(e, "cards", ()) or ()}
    text = json.dumps(view)
    return [card for card in dealt - shown if f'"{card}"' in text]


def test_the_delay_holds_every_public_event_until_it_is_due() -> None:
    now = [0.0]
    hub = LiveHub(delay=30.0, clock=lambda: now[0])
    hub.match_started("m", ["rb", "cs"])
    played = _played()
    for number, hand, seats, names in played:
        hub.hand_finished("m", number, hand, seats, names)
    assert hub.public.seq == 0 and not hub.public.backlog, "a spectator got an event early"
    assert hub.director.seq == 1 + len(played)
    now[0] = 29.9
    assert hub.release_due() == pytest.approx(0.1) and hub.public.seq == 0
    now[0] = 30.0
    assert hub.release_due() is None and hub.public.seq == 1 + len(played)
    for event, (_, hand, _, _) in zip(list(hub.public.backlog)[1:], played, strict=True):
        assert _hidden_cards(hand, json.loads(event.data)) == []


def test_hands_carry_the_running_score_and_the_bots_names() -> None:
    hub = LiveHub()
    hub.match_started("m", ["rb", "cs"])
    played = _played()
    for number, hand, seats, names in played:
        hub.hand_finished("m", number, hand, seats, names)
    events = [json.loads(e.data) for e in hub.public.backlog if e.kind == "hand"]
    assert {s["name"] for e in events for s in e["hand"]["seats"]} == {"rb", "cs"}
    assert {e["hand"]["rotation"] for e in events} == {None, 2}
    last = {row["name"]: row["chips"] for row in events[-1]["score"]}
    nets: dict[str, int] = {"rb": 0, "cs": 0}
    for e in events:
        names = {s["seat"]: s["name"] for s in e["hand"]["seats"]}
        for row in e["hand"]["result"]:
            nets[names[row["seat"]]] += row["net"]
    assert last == nets and sum(last.values()) == 0
    snapshot = json.loads(hub.public.snapshot().data)
    assert snapshot["tables"][0]["score"] == events[-1]["score"]


def test_closing_drops_what_the_delay_still_holds() -> None:
    hub = LiveHub(delay=30.0, clock=lambda: 0.0)
    hub.match_started("m", ["a", "b"])
    hub.close()
    kinds = [e.kind for e in hub.public.backlog]
    assert kinds == ["end"] and hub.held == 0


@pytest.mark.parametrize("command", [["match"], ["tournament", "run"], ["serve"]])
def test_every_watch_command_has_the_delay_and_linger(command: list[str]) -> None:
    result = CliRunner().invoke(cli, [*command, "--help"])
    assert "--watch-delay SECONDS" in result.output and "--linger SECONDS" in result.output
