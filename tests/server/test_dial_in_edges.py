"""The dial-in edges an audit found (issue 19 item 9, parts a-d): a revoked bot's held
seat, what a resumed bot missed, an Action with an id never asked, and the end of a
tournament for a stream still waiting.

Every bot here is a thread of synchronous grpc (``dial_kit``) on 127.0.0.1.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import grpc
import pytest
import trio
from dial_kit import DialStream, answer, make_tokens, play_stream, settings

from arena.dealer import MatchSettings, OnFaultLimit, policy_driver, run_match
from arena.engine import GameConfig, Structure
from arena.protocol import pb
from arena.server._arena import open_arena_server
from arena.server._tokens import TokenStore

PROTO = Path(__file__).resolve().parents[2] / "proto" / "arena" / "v1" / "arena.proto"


async def _in_thread(fn, *args):
    return await trio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


async def _until(predicate, what: str, limit: float = 20.0) -> None:
    with trio.move_on_after(limit) as scope:  # a hang guard, not a timing assertion
        while not predicate():
            await trio.sleep(0.02)
    assert not scope.cancelled_caught, f"never happened: {what}"


def _match(hands: int = 30, **overrides) -> MatchSettings:
    values = {
        "config": GameConfig(structure=Structure.FIXED_LIMIT),
        "hands": hands,
        "seed": 5,
        "action_timeout": 0.3,
    }
    values.update(overrides)
    return MatchSettings(**values)


def _proto_comments() -> str:
    """The .proto's comments as one text, whitespace and comment markers folded."""
    lines = [line.split("//", 1)[1] for line in PROTO.read_text().splitlines() if "//" in line]
    return re.sub(r"\s+", " ", " ".join(lines))


# --- a: revoking a bot whose seat is held ----------------------------------------


@pytest.mark.parametrize("on_limit", [OnFaultLimit.SIT_OUT, OnFaultLimit.FORFEIT])
@pytest.mark.trio
async def test_item9a_revoking_a_bot_whose_seat_is_held_ends_the_seat_at_once(
    tmp_path, on_limit
) -> None:
    """Item 9a: the seat is not held for the window: it breaks (DISCONNECTED, as the
    match's rules say: sat out, or forfeited), and its ticket resumes nothing after."""
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []
    ticket: list[str] = []

    def bot() -> None:
        first = DialStream(address[0], issued["alice"])
        ticket.append(play_stream(first, stop_after=6)[0].match_start.resume_ticket)
        first.close()  # the connection dies mid-match: the seat is held

    window = 20.0  # longer than the match would last once the seat is gone
    async with open_arena_server(settings(tokens, reconnect_window=window), ["alice"]) as server:
        address.append(server.address)
        alice = server.bot("alice")
        threading.Thread(target=bot, daemon=True).start()
        await _until(lambda: alice.free_tables() >= 1, "alice on offer")
        results: list = []

        async def play() -> None:
            drivers = [alice, policy_driver("cs", "calling-station")]
            results.append(await run_match(drivers, _match(200, on_fault_limit=on_limit)))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            await _until(lambda: ticket and not alice.connected, "alice's seat held")
            TokenStore(tokens).revoke("alice")
        result = results[0]
        gone = [f for f in result.faults if f.seat == 0 and f.reason == "DISCONNECTED"]
        assert any("revoked" in f.detail for f in gone), result.faults[-3:]
        assert not any("reconnect window" in f.detail for f in gone)
        assert result.sat_out[0] and result.hands_played < 200
        assert result.forfeited[0] is (on_limit is OnFaultLimit.FORFEIT)
        # the old ticket with the revoked token: refused before any message
        stale = DialStream(server.address, issued["alice"], resume=ticket[0])
        assert await _in_thread(stale.receive) is None
        assert stale.status() is grpc.StatusCode.UNAUTHENTICATED
        # re-admitted with a new token, the old ticket still takes back nothing
        fresh = TokenStore(tokens).add("alice")
        await trio.sleep(1.2)  # past the store's refresh interval: the new token is known
        again = DialStream(server.address, fresh, resume=ticket[0])
        assert await _in_thread(again.receive) is None
        assert again.status() is grpc.StatusCode.PERMISSION_DENIED
        for stream in (stale, again):
            stream.close()


# --- b: what a resumed bot missed ------------------------------------------------


@pytest.mark.trio
async def test_item9b_a_resumed_bot_gets_what_it_missed_and_its_sums_agree_with_matchend(
    tmp_path,
) -> None:
    """Item 9b: HandEnds and Faults sent while the seat was held (and those the broken
    stream may have lost) are sent again after the resume's Hello, so a bot summing
    HandEnd payoffs (each hand_id once) agrees with MatchEnd, and sees every fault."""
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []
    seen: list[pb.DealerMessage] = []
    away = threading.Event()  # set once the seat has missed several faults and hands

    def bot() -> None:
        first = DialStream(address[0], issued["alice"])
        seen.extend(play_stream(first, stop_after=6))
        first.close()
        assert away.wait(60)
        second = DialStream(address[0], issued["alice"], resume=seen[0].match_start.resume_ticket)
        seen.extend(play_stream(second))
        second.close()

    faults: list = []

    def on_fault(record) -> None:
        faults.append(record)
        if sum(f.seat == 0 and f.reason == "TIMEOUT" for f in faults) >= 4:
            away.set()

    async with open_arena_server(settings(tokens, reconnect_window=30.0), ["alice"]) as server:
        address.append(server.address)
        thread = threading.Thread(target=bot, daemon=True)
        thread.start()
        await _until(lambda: server.bot("alice").free_tables() >= 1, "alice on offer")
        result = await run_match(
            [server.bot("alice"), policy_driver("cs", "calling-station")],
            _match(40),
            on_fault=on_fault,
        )
        await _in_thread(thread.join, 30)
    assert not result.sat_out[0] and result.hands_played == 40
    ends = {m.hand_end.hand_id: m.hand_end for m in seen if m.WhichOneof("kind") == "hand_end"}
    assert len(ends) == result.hands_played  # every hand's end, missed ones included
    totals = [sum(end.payoffs[seat] for end in ends.values()) for seat in range(2)]
    match_end = [m.match_end for m in seen if m.WhichOneof("kind") == "match_end"]
    assert match_end and totals == list(match_end[0].chips_won) == result.chips_won
    told = {m.fault.decision_id for m in seen if m.WhichOneof("kind") == "fault"}
    recorded = {f.decision_id for f in result.faults if f.seat == 0}
    assert len(recorded) >= 4 and told == recorded
    # in order: a decision already decided is never sent again after its Fault
    decided: set[str] = set()
    for message in seen:
        kind = message.WhichOneof("kind")
        if kind == "fault":
            decided.add(message.fault.decision_id)
        elif kind == "decision":
            assert message.decision.decision_id not in decided


# --- c: an Action with an id never asked ----------------------------------------


@pytest.mark.trio
async def test_item9c_an_id_never_asked_is_a_wrong_id_fault_as_for_a_launched_bot(
    tmp_path,
) -> None:
    """Item 9c: one rule for both ways round (README, "What the dealer does with a
    misbehaving bot"): an Action whose decision_id this seat was never sent is taken for
    the waiting decision: WRONG_DECISION_ID, the default played, a Fault telling the bot,
    never a silent drop."""
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []
    seen: list[pb.DealerMessage] = []

    def bot() -> None:
        stream = DialStream(address[0], issued["alice"])
        wrong_once = True
        while (message := stream.receive()) is not None:
            seen.append(message)
            reply = answer(message)
            if reply is not None and reply.WhichOneof("kind") == "action" and wrong_once:
                wrong_once = False
                reply.action.decision_id = "never-asked-1"
            if reply is not None:
                stream.send(reply)
        stream.close()

    async with open_arena_server(settings(tokens), ["alice"]) as server:
        address.append(server.address)
        thread = threading.Thread(target=bot, daemon=True)
        thread.start()
        await _until(lambda: server.bot("alice").free_tables() >= 1, "alice on offer")
        result = await run_match(
            [server.bot("alice"), policy_driver("cs", "calling-station")],
            _match(5, action_timeout=2.0),
        )
        await _in_thread(thread.join, 30)
    first = next(m.decision for m in seen if m.WhichOneof("kind") == "decision")
    wrong = [f for f in result.faults if f.reason == "WRONG_DECISION_ID"]
    assert [f.decision_id for f in wrong] == [first.decision_id]
    assert "never-asked-1" in wrong[0].detail
    told = [m.fault for m in seen if m.WhichOneof("kind") == "fault"]
    assert [(f.decision_id, f.reason) for f in told] == [
        (first.decision_id, pb.FAULT_REASON_WRONG_DECISION_ID)
    ]
    assert result.stale_actions[0] == 0 and result.hands_played == 5


def test_item9c_the_proto_says_an_id_never_asked_is_a_wrong_id_fault() -> None:
    """Item 9c: the .proto says what happens to an Action whose id was never sent."""
    text = _proto_comments()
    assert "never sent" in text
    rule = text[text.index("never sent") - 300 : text.index("never sent") + 300]
    assert "FAULT_REASON_WRONG_DECISION_ID" in rule and "default" in rule


# --- d: the end of a tournament for a stream still waiting -------------------------


@pytest.mark.trio
async def test_item9d_a_stream_waiting_when_the_run_is_over_ends_failed_precondition(
    tmp_path,
) -> None:
    """Item 9d: a stream on offer when the tournament (or match) is over ends with
    FAILED_PRECONDITION and a detail saying so, not OK and nothing, and new streams are
    refused the same way until the server is gone: a bot knows not to reconnect."""
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        waiting = DialStream(server.address, issued["alice"])
        await _until(lambda: server.bot("alice").free_tables() == 1, "on offer")
        await server.finish("the tournament is over")
        late = DialStream(server.address, issued["alice"])
        for stream in (waiting, late):
            assert await _in_thread(stream.receive) is None
            assert stream.status() is grpc.StatusCode.FAILED_PRECONDITION
            assert "the tournament is over" in stream.call.details()
            assert "do not reconnect" in stream.call.details()
    for stream in (waiting, late):
        stream.close()


@pytest.mark.trio
async def test_item9d_leaving_the_server_block_normally_is_the_end_of_the_run(tmp_path) -> None:
    """Item 9d: a caller that just leaves the block (the run is done) gives the same end."""
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        waiting = DialStream(server.address, issued["alice"])
        await _until(lambda: server.bot("alice").free_tables() == 1, "on offer")
    assert await _in_thread(waiting.receive) is None
    assert waiting.status() is grpc.StatusCode.FAILED_PRECONDITION
    assert "over" in waiting.call.details()
    waiting.close()


@pytest.mark.trio
async def test_item9d_an_interrupted_run_is_unavailable_not_over(tmp_path) -> None:
    """Item 9d: Ctrl-C (an exception through the block) is not the end: UNAVAILABLE, so a
    bot tries again later (``--resume`` plays the rest)."""
    tokens, issued = make_tokens(tmp_path, "alice")
    interrupted = False
    try:
        async with open_arena_server(settings(tokens), ["alice"]) as server:
            waiting = DialStream(server.address, issued["alice"])
            await _until(lambda: server.bot("alice").free_tables() == 1, "on offer")
            raise KeyboardInterrupt
    except* KeyboardInterrupt:
        interrupted = True
    assert interrupted
    assert await _in_thread(waiting.receive) is None
    assert waiting.status() is grpc.StatusCode.UNAVAILABLE
    waiting.close()


def test_item9d_the_proto_says_how_a_run_ends_for_a_waiting_stream() -> None:
    text = _proto_comments()
    assert "FAILED_PRECONDITION" in text and "do not reconnect" in text
