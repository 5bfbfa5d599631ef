"""The protocol layer: generated code in step with the .proto, and engine <-> message conversion."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    BetRaise,
    Deck,
    Discard,
    ForcedBets,
    GameConfig,
    JokerMode,
    Opening,
    ShowdownReveal,
    Structure,
    parse_cards,
)
from arena.protocol import (
    MessageFault,
    action_from_message,
    action_to_message,
    config_from_message,
    config_to_message,
    decision_request,
    pb,
)
from arena.sdk import Bot, Decision

ROOT = Path(__file__).resolve().parents[2]


def test_generated_code_matches_the_proto(tmp_path: Path) -> None:
    """scripts/gen_proto run afresh produces exactly the committed arena/protocol/_generated."""
    pytest.importorskip("grpc_tools", reason="grpcio-tools (dev extra) regenerates the code")
    if shutil.which("bash") is None:
        pytest.skip("bash is needed to run scripts/gen_proto")
    out = tmp_path / "generated"
    subprocess.run(["bash", str(ROOT / "scripts" / "gen_proto"), str(out)], check=True, cwd=ROOT)
    for name in ("arena_pb2.py", "arena_pb2.pyi", "arena_pb2_grpc.py"):
        committed = (ROOT / "arena" / "protocol" / "_generated" / name).read_text()
        assert committed == (out / name).read_text(), f"{name} is stale: run scripts/gen_proto"


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(),
        GameConfig(structure=Structure.NO_LIMIT, small_blind=5, big_blind=10, ante=1),
        GameConfig(
            structure=Structure.POT_LIMIT,
            forced_bets=ForcedBets.ANTES,
            ante=2,
            opening=Opening.JACKS_OR_BETTER,
            joker=JokerMode.WILD,
            showdown_reveal=ShowdownReveal.MUCK,
            max_draw=3,
            uncapped_heads_up=True,
        ),
    ],
)
def test_config_round_trips_through_the_wire(config: GameConfig) -> None:
    """Every game setting survives serialisation (R2, R8, R12, R15, R19, R27, R28 options)."""
    wire = pb.GameConfig.FromString(config_to_message(config).SerializeToString())
    assert config == config_from_message(wire)


def test_r16_decision_request_has_everything_a_stateless_bot_needs() -> None:
    """A request carries own cards, stacks, pot, legal amounts and public draw counts, never others' cards."""
    from arena.engine import Hand

    hand = Hand(
        GameConfig(structure=Structure.NO_LIMIT),
        [100, 100, 100],
        0,
        Deck.shuffled(random.Random(4)),
    )
    while hand.phase.name != "POSTDRAW_BETTING":
        if hand.phase.name == "DRAW":
            hand.discard(hand.holes[hand.actor][:2])
        else:
            hand.check_or_call()
    seat = hand.actor
    request = decision_request(
        hand.view(seat),
        decision_id="7",
        hand_id="h",
        hand_number=1,
        names=["a", "b", "c"],
        time_left_ms=900,
        time_bank_ms=0,
    )
    assert [str(c) for c in hand.holes[seat]] == list(request.hole_cards)
    assert [2, 2, 2] == [s.draw_count for s in request.seats]
    assert hand.pot_total == request.pot
    assert request.legal.can_check and request.legal.can_raise
    others = {str(c) for i, h in enumerate(hand.holes) if i != seat for c in h}
    wire_text = str(request)
    assert not any(card in wire_text for card in others)


def test_r24_action_from_message_checks_form_only() -> None:
    """Ids, kinds and card text are checked here; legality is the engine's job."""
    assert FOLD == action_from_message(pb.Action(decision_id="d", kind=pb.ACTION_KIND_FOLD), "d")
    assert CHECK == action_from_message(pb.Action(decision_id="d", kind=pb.ACTION_KIND_CHECK), "d")
    assert CALL == action_from_message(pb.Action(decision_id="d", kind=pb.ACTION_KIND_CALL), "d")
    assert BetRaise(40) == action_from_message(
        pb.Action(decision_id="d", kind=pb.ACTION_KIND_BET_RAISE, amount=40), "d"
    )
    assert Discard(parse_cards("AsKd")) == action_from_message(
        pb.Action(decision_id="d", kind=pb.ACTION_KIND_DISCARD, cards=["As", "Kd"]), "d"
    )
    for message, reason in [
        (pb.Action(decision_id="x", kind=pb.ACTION_KIND_CALL), pb.FAULT_REASON_WRONG_DECISION_ID),
        (pb.Action(decision_id="d", kind=0), pb.FAULT_REASON_MALFORMED),
        (pb.Action(decision_id="d", kind=77), pb.FAULT_REASON_MALFORMED),
        (
            pb.Action(decision_id="d", kind=pb.ACTION_KIND_DISCARD, cards=["Xx"]),
            pb.FAULT_REASON_MALFORMED,
        ),
        (
            pb.Action(decision_id="d", kind=pb.ACTION_KIND_DISCARD, cards=["2c"] * 6),
            pb.FAULT_REASON_MALFORMED,
        ),
    ]:
        with pytest.raises(MessageFault) as caught:
            action_from_message(message, "d")
        assert reason == caught.value.reason


def test_engine_actions_round_trip_through_messages() -> None:
    """What the SDK sends for an engine action is read back as the same action."""
    for action in (FOLD, CHECK, CALL, BetRaise(12), Discard(parse_cards("2c3d"))):
        assert action == action_from_message(action_to_message(action, "id"), "id")


def test_sdk_decision_and_bot_answer() -> None:
    """The SDK wraps a request as a Decision and fills in the decision id of the answer."""

    class Raiser(Bot):
        name = "raiser"

        def decide(self, decision: Decision):
            return (
                decision.raise_to(10**6) if decision.legal.can_raise else decision.check_or_call()
            )

    request = pb.DecisionRequest(
        decision_id="9",
        phase=pb.PHASE_PREDRAW_BETTING,
        hole_cards=["As", "Ad", "7c", "7d", "2s"],
        legal=pb.LegalActions(
            can_fold=True, call_amount=2, can_raise=True, min_raise_to=4, max_raise_to=100
        ),
    )
    reply = Raiser().handle(pb.DealerMessage(decision=request))
    assert "9" == reply.action.decision_id
    assert pb.ACTION_KIND_BET_RAISE == reply.action.kind
    assert 100 == reply.action.amount  # clamped into the legal range
    hello = Raiser().handle(pb.DealerMessage(match_start=pb.MatchStart()))
    assert 1 == hello.hello.protocol_version
    assert "raiser" == hello.hello.name


def test_protocol_layer_imports_no_higher_layer() -> None:
    """arena.protocol loads without the dealer, tournament or CLI (layering)."""
    code = (
        "import sys, arena.protocol; "
        "bad = [m for m in sys.modules if m.split('.')[:2] in (['arena','dealer'], ['arena','tournament'], ['arena','cli'])]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    assert 0 == subprocess.run([sys.executable, "-c", code], check=False).returncode
