"""Issue 21 item 2 (the replayer, "a marked step") and the Why's replayer bullet: every
timeout, illegal move, crash and sit-out shows in the public view of its hand, at the
step where it happened, instead of passing for the bot's own "checks / stands pat";
rotations show by their bots' names; a fault's detail never carries a hidden card."""

from __future__ import annotations

import json

import pytest
import trio
import trio.testing

from arena.dealer import (
    LocalBot,
    MatchRecorder,
    MatchSettings,
    SeatBrokenError,
    policy_driver,
    run_duplicate_match,
    run_match,
)
from arena.engine import GameConfig, Structure
from arena.policies import CallingStation
from arena.policies import PolicyBot as SeatedPolicy
from arena.protocol import pb
from arena.sdk import Bot
from arena.web import public_hand, public_match, write_replay
from arena.web._faults import public_fault, rotation_names


class _Silent:
    """A seat that says hello, then never answers: every decision times out."""

    name = "silent"

    async def connect(self):
        return self

    async def send(self, message) -> None:
        return None

    async def receive(self):
        if not getattr(self, "greeted", False):
            self.greeted = True
            return pb.BotMessage(hello=pb.Hello(name="silent", protocol_version=1))
        await trio.sleep_forever()

    async def aclose(self) -> None:
        return None


class _Crashes(_Silent):
    """A seat whose stream breaks at its first decision (a process that died)."""

    name = "crashy"

    async def receive(self):
        if not getattr(self, "greeted", False):
            return await super().receive()
        raise SeatBrokenError("the process exited with status -11")


class _Greedy(Bot):
    """Raises far past the maximum: every bet is illegal, the default is played."""

    name = "greedy"

    def decide(self, decision):
        r = decision.request
        if r.phase == pb.PHASE_DRAW:
            return pb.Action(decision_id=r.decision_id, kind=pb.ACTION_KIND_DISCARD)
        return pb.Action(decision_id=r.decision_id, kind=pb.ACTION_KIND_BET_RAISE, amount=10**9)


def _played(drivers, settings):
    """Play a match; its hands (number, hand, seats, names) and its faults."""
    hands, faults = [], []

    async def main():
        return await run_match(
            drivers,
            settings,
            on_hand=lambda *hand: hands.append(hand),
            on_fault=faults.append,
        )

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return result, hands, faults


def _views(hands, faults, **options):
    return [
        public_hand(
            hand,
            seats,
            names,
            number=number,
            faults=[f for f in faults if f.hand_number == number],
            **options,
        )
        for number, hand, seats, names in hands
    ]


def test_each_timeout_marks_the_action_played_for_it() -> None:
    """A bot that never answers: each of its timeouts is the step of its default, marked
    "timed out → checks (default)" (it used to read "silent checks")."""
    settings = MatchSettings(config=GameConfig(), hands=4, seed=8, action_timeout=1.0)
    result, hands, faults = _played([_Silent(), LocalBot(_policy())], settings)
    timeouts = [f for f in result.faults if f.reason == "TIMEOUT"]
    assert timeouts and all(f.event_index >= 0 for f in timeouts)
    steps = [step for view in _views(hands, faults) for step in view["steps"]]
    marked = [step for step in steps if step.get("fault", {}).get("reason") == "TIMEOUT"]
    assert len(marked) == len(timeouts)
    assert all(step["seat"] == 0 and step["kind"] in ("check", "fold", "draw") for step in marked)
    assert all(" timed out → " in step["text"] and "(default)" in step["text"] for step in marked)
    unmarked = [s for s in steps if s["seat"] == 0 and s["kind"] == "check" and "fault" not in s]
    assert not unmarked, "a default passed for the bot's own check"


def test_an_illegal_move_is_marked_with_its_reason() -> None:
    """An illegal raise: the default played for it is marked with the engine's reason."""
    settings = MatchSettings(config=GameConfig(structure=Structure.NO_LIMIT), hands=6, seed=5)
    _, hands, faults = _played([LocalBot(_Greedy()), LocalBot(_policy())], settings)
    assert faults
    marked = [s for v in _views(hands, faults) for s in v["steps"] if "fault" in s]
    assert len(marked) == len(faults)
    assert all(s["fault"]["reason"] == "ILLEGAL_ACTION" for s in marked)
    assert all("made an illegal move → " in s["text"] for s in marked)
    assert all("amount_too_large" in s["fault"]["detail"] for s in marked)


def test_a_crash_marks_its_step_and_the_sit_out() -> None:
    """A bot whose process dies mid-hand: its DISCONNECTED fault marks the default played
    for it, and says it sits out."""
    settings = MatchSettings(config=GameConfig(), hands=3, seed=4, reconnect=False)
    _, hands, faults = _played([_Crashes(), LocalBot(_policy())], settings)
    assert faults
    steps = [s for v in _views(hands, faults) for s in v["steps"] if "fault" in s]
    assert len(steps) == len(faults)
    assert {s["fault"]["reason"] for s in steps} == {"DISCONNECTED"}
    assert all(s["text"].startswith("crashy crashed or lost its connection") for s in steps)
    assert all(s["text"].endswith("(default); it sits out") for s in steps)


def test_a_spectators_fault_detail_holds_no_card() -> None:
    """A bot may print its own cards into an exception: the spectator sees them blotted,
    the director as written (escaped)."""
    fault = {"seat": 0, "reason": "DISCONNECTED", "detail": "held ['Ah', 'Td'] Jk, 10c\n\x1b[2J"}
    spectator = public_fault(fault, reveal=False)["detail"]
    assert not any(card in spectator for card in ("Ah", "Td", "Jk", "10c"))
    assert "\n" not in spectator and "\x1b" not in spectator
    assert "Ah" in public_fault(fault, reveal=True)["detail"]


def test_rotation_names_are_the_bots_names() -> None:
    """``bob.2`` at a duplicate rotation is bob, with the rotation noted; a bot whose own
    name ends in a number stands."""
    assert rotation_names(["bob.2", "amy.2"], {"bob", "amy"}) == (["bob", "amy"], 2)
    assert rotation_names(["bob.2", "amy.3"], {"bob", "amy"}) == (["bob.2", "amy.3"], None)
    assert rotation_names(["v1.2", "amy"], {"v1", "amy"}) == (["v1.2", "amy"], None)
    assert rotation_names(["bob.2", "amy.2"], {"amy"}) == (["bob.2", "amy.2"], None)


def test_a_recorded_match_replays_with_its_faults_and_bot_names(tmp_path) -> None:
    """The replayer of a match folder reads the faults of its log.jsonl, and a duplicate
    match's rotations show the bots' names (no ``.2``) with the rotation noted."""
    settings = MatchSettings(
        config=GameConfig(structure=Structure.NO_LIMIT), hands=4, seed=5, duplicate=True
    )
    recorder = MatchRecorder(tmp_path, settings)
    recorder.match_started(["greedy", "station"], 5)

    async def main():  # as arena match seats a rotation: each bot's instance k is NAME.k
        tables = [
            [LocalBot(_Greedy(), f"greedy{k}"), policy_driver(f"station{k}", "calling-station")]
            for k in ("", ".2")
        ]
        return await run_duplicate_match(
            tables, settings, on_hand=recorder.on_hand, on_fault=recorder.on_fault
        )

    result = trio.run(main)
    recorder.match_finished(result)
    hands = public_match(tmp_path / "hands.phhs")
    assert {s["name"] for h in hands for s in h["seats"]} == {"greedy", "station"}
    assert {h["rotation"] for h in hands} == {None, 2}
    marked = [s for h in hands for s in h["steps"] if "fault" in s]
    assert len(marked) == len(result.faults) > 0
    page = write_replay(tmp_path).read_text()
    assert "made an illegal move" in page and "greedy.2" not in page


def _policy() -> SeatedPolicy:
    return SeatedPolicy("station", CallingStation())


@pytest.mark.parametrize("reveal", [False, True])
def test_fault_records_are_json(reveal: bool) -> None:
    """What a page carries of a fault is plain JSON (no dataclass, no bytes)."""
    fault = public_fault({"seat": 1, "reason": "TIMEOUT", "event_index": 4}, reveal=reveal)
    assert json.loads(json.dumps(fault)) == fault
