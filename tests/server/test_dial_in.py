"""Bots that dial in (issue 11 items 1, 2, 4 and 6): who may play, and a match over
streams the bots opened, with drops, resumes and hostile messages.

Every bot here is a thread of synchronous grpc (``dial_kit``), written from the
``.proto`` alone, on 127.0.0.1.
"""

from __future__ import annotations

import threading

import grpc
import pytest
import trio
from dial_kit import Dialer, DialStream, answer, make_tokens, play_stream, settings

from arena.dealer import MatchSettings, policy_driver, run_match
from arena.engine import GameConfig, Structure
from arena.protocol import pb
from arena.server._arena import ServerError, open_arena_server
from arena.server._tokens import TokenStore

pytestmark = pytest.mark.trio


async def _in_thread(fn, *args):
    return await trio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


def _match(hands: int = 20, **overrides) -> MatchSettings:
    values = {
        "config": GameConfig(structure=Structure.FIXED_LIMIT),
        "hands": hands,
        "seed": 5,
        "action_timeout": 2.0,
    }
    values.update(overrides)
    return MatchSettings(**values)


async def _until(predicate, what: str, limit: float = 15.0) -> None:
    with trio.move_on_after(limit) as scope:
        while not predicate():
            await trio.sleep(0.02)
    assert not scope.cancelled_caught, f"never happened: {what}"


# --- item 2: no token, no play ------------------------------------------------


@pytest.mark.parametrize("token", [None, "", "arena_alice_" + "0" * 64, "Bearer", "x" * 10_000])
async def test_item2_a_missing_or_wrong_token_is_unauthenticated_and_never_seated(
    tmp_path, token
) -> None:
    tokens, _ = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        stream = DialStream(server.address, token)
        first = await _in_thread(stream.receive)
        assert first is None
        # a 10 KB header is refused by gRPC itself, before the token is looked at
        allowed = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.RESOURCE_EXHAUSTED}
        assert stream.status() in (
            allowed
            if token and len(token) > 8000
            else allowed - {grpc.StatusCode.RESOURCE_EXHAUSTED}
        )
        assert server.bot("alice").free_tables() == 0
        stream.close()


async def test_item2_a_revoked_token_is_refused_and_its_open_streams_end(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        stream = DialStream(server.address, issued["alice"])
        await _until(lambda: server.bot("alice").free_tables() == 1, "the stream is on offer")
        TokenStore(tokens).revoke("alice")
        assert await _in_thread(stream.receive) is None  # ended within the refresh interval
        assert stream.status() is grpc.StatusCode.UNAUTHENTICATED
        again = DialStream(server.address, issued["alice"])
        assert await _in_thread(again.receive) is None
        assert again.status() is grpc.StatusCode.UNAUTHENTICATED
        for s in (stream, again):
            s.close()


async def test_item2_another_bots_token_names_that_bot_not_this_one(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice", "mallory")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        stream = DialStream(server.address, issued["mallory"])  # a real token, not in this run
        assert await _in_thread(stream.receive) is None
        assert stream.status() is grpc.StatusCode.FAILED_PRECONDITION
        assert server.bot("alice").free_tables() == 0
        stream.close()


async def test_item2_an_unreadable_token_store_at_start_is_one_line(tmp_path) -> None:
    broken = tmp_path / "tokens.json"
    broken.write_text("{not json")
    with pytest.raises(ServerError, match=r"tokens\.json"):
        async with open_arena_server(settings(broken), ["alice"]):
            pass


async def test_item2_a_store_corrupted_while_serving_refuses_everyone(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        tokens.write_text("garbage")
        await trio.sleep(1.2)  # past the refresh interval
        stream = DialStream(server.address, issued["alice"])
        assert await _in_thread(stream.receive) is None
        assert stream.status() is grpc.StatusCode.UNAUTHENTICATED
        stream.close()


# --- items 1 and 4: a match over dial-in streams ------------------------------


async def test_item1_a_remote_bot_plays_a_whole_match_and_its_stream_ends_ok(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        stream = DialStream(server.address, issued["alice"])
        seen: list = []
        thread = threading.Thread(target=lambda: seen.extend(play_stream(stream)), daemon=True)
        thread.start()
        await _until(lambda: server.bot("alice").free_tables() == 1, "the stream is on offer")
        result = await run_match(
            [server.bot("alice"), policy_driver("cs", "calling-station")], _match()
        )
        await _in_thread(thread.join, 10)
        assert result.hands_played == 20
        assert result.faults == []
        assert sum(result.chips_won) == 0
        kinds = [m.WhichOneof("kind") for m in seen]
        assert kinds[0] == "match_start" and kinds[-1] == "match_end"
        assert seen[0].match_start.resume_ticket  # dial-in streams carry a ticket
        assert stream.status() is grpc.StatusCode.OK
        stream.close()


async def test_item1_more_streams_are_more_tables_up_to_max_tables(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens, max_tables=2), ["alice"]) as server:
        streams = [DialStream(server.address, issued["alice"]) for _ in range(2)]
        await _until(lambda: server.bot("alice").free_tables() == 2, "two tables on offer")
        third = DialStream(server.address, issued["alice"])
        assert await _in_thread(third.receive) is None
        assert third.status() is grpc.StatusCode.RESOURCE_EXHAUSTED
        for s in [*streams, third]:
            s.close()


async def test_item4_a_bot_that_is_not_connected_fails_connect_at_once(tmp_path) -> None:
    tokens, _ = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        result = await run_match(
            [server.bot("alice"), policy_driver("cs", "calling-station")], _match(5)
        )
        assert result.faults[0].reason == "DISCONNECTED"
        assert "not connected" in result.faults[0].detail
        assert result.sat_out[0]


async def _one_remote_match(server, stream_factory, hands=30, **overrides):
    """Run a match of remote alice vs a calling station while ``stream_factory`` plays alice."""
    thread = threading.Thread(target=stream_factory, daemon=True)
    thread.start()
    await _until(lambda: server.bot("alice").free_tables() >= 1, "alice on offer")
    result = await run_match(
        [server.bot("alice"), policy_driver("cs", "calling-station")], _match(hands, **overrides)
    )
    return result, thread


async def test_item4_a_bot_killed_mid_match_that_comes_back_in_the_window_resumes(tmp_path) -> None:
    """Drop after a few messages, reconnect with the ticket: the seat is taken back."""
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []
    tail: list = []

    def bot() -> None:
        first = DialStream(address[0], issued["alice"])
        seen = play_stream(first, stop_after=6)
        ticket = seen[0].match_start.resume_ticket
        first.close()  # the connection dies mid-match
        second = DialStream(address[0], issued["alice"], resume=ticket)
        tail.extend(play_stream(second))
        second.close()

    async with open_arena_server(settings(tokens, reconnect_window=10.0), ["alice"]) as server:
        address.append(server.address)
        result, thread = await _one_remote_match(server, bot)
        await _in_thread(thread.join, 10)
    assert result.hands_played == 30
    assert not result.sat_out[0]
    assert tail[0].WhichOneof("kind") == "match_start"  # the same MatchStart again
    assert tail[-1].WhichOneof("kind") == "match_end"
    assert all(f.reason == "TIMEOUT" for f in result.faults)  # only while it was away (R23)
    assert sum(result.chips_won) == 0


async def test_item4_a_bot_that_does_not_come_back_is_disconnected_after_the_window(
    tmp_path,
) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []

    def bot() -> None:
        first = DialStream(address[0], issued["alice"])
        play_stream(first, stop_after=6)
        first.close()

    async with open_arena_server(settings(tokens, reconnect_window=1.0), ["alice"]) as server:
        address.append(server.address)
        result, _ = await _one_remote_match(server, bot, hands=40, action_timeout=0.3)
    reasons = [f.reason for f in result.faults]
    assert "DISCONNECTED" in reasons
    gone = next(f for f in result.faults if f.reason == "DISCONNECTED")
    assert "reconnect window" in gone.detail
    assert result.sat_out[0]  # heads-up, so the match ends there (R25)
    assert result.reason == "too few seats left" and sum(result.chips_won) == 0


async def test_item4_a_new_stream_with_the_ticket_replaces_a_live_one(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []
    old_status: list = []

    def bot() -> None:
        first = DialStream(address[0], issued["alice"])
        seen = play_stream(first, stop_after=4)  # stays open, silent from now on
        second = DialStream(address[0], issued["alice"], resume=seen[0].match_start.resume_ticket)
        play_stream(second)
        while first.receive() is not None:  # what it was sent before the cut, then the end
            pass
        old_status.append(first.status())
        first.close()
        second.close()

    async with open_arena_server(settings(tokens), ["alice"]) as server:
        address.append(server.address)
        result, thread = await _one_remote_match(server, bot)
        await _in_thread(thread.join, 10)
    assert result.hands_played == 30 and not result.sat_out[0]
    assert old_status == [grpc.StatusCode.ABORTED]


# --- item 3 / 6: hostile messages -----------------------------------------------


async def test_item6_a_100_kb_message_is_a_malformed_cut(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []

    def bot() -> None:
        stream = DialStream(address[0], issued["alice"])
        assert stream.receive().WhichOneof("kind") == "match_start"
        stream.send(pb.BotMessage(hello=pb.Hello(name="big", protocol_version=1)))
        stream.receive()  # the first decision, or a HandStart
        stream.send(pb.BotMessage(hello=pb.Hello(name="x" * 100_000)))
        while stream.receive() is not None:
            pass
        stream.close()

    async with open_arena_server(settings(tokens), ["alice"]) as server:
        address.append(server.address)
        result, _ = await _one_remote_match(server, bot, hands=5)
    malformed = [f for f in result.faults if f.reason == "MALFORMED"]
    assert malformed and "100" in malformed[0].detail
    assert result.sat_out[0]


async def test_item6_fifty_rapid_messages_hit_the_rate_limit(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []

    def bot() -> None:
        stream = DialStream(address[0], issued["alice"])
        start = stream.receive()
        stream.send(answer(start))
        for i in range(50):
            stream.send(pb.BotMessage(action=pb.Action(decision_id=f"junk-{i}")))
        while (message := stream.receive()) is not None:
            reply = answer(message)
            if reply is not None:
                stream.send(reply)
        stream.close()

    async with open_arena_server(settings(tokens), ["alice"]) as server:
        address.append(server.address)
        result, _ = await _one_remote_match(server, bot, hands=60)
    assert "RATE_LIMITED" in [f.reason for f in result.faults]
    assert result.sat_out[0] and sum(result.chips_won) == 0


async def test_item6_a_second_server_on_a_taken_port_is_one_line(tmp_path) -> None:
    tokens, _ = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        with pytest.raises(ServerError, match=server.address.rsplit(":", 1)[1]):
            async with open_arena_server(settings(tokens, listen=server.address), ["alice"]):
                pass


async def test_item6_dialers_play_several_matches_in_a_row(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice", "bob")
    async with open_arena_server(settings(tokens), ["alice", "bob"]) as server:
        dialers = [Dialer(server.address, issued[n], tables=1).start() for n in ("alice", "bob")]
        try:
            for _ in range(3):
                await server.wait_for({"alice": 1, "bob": 1})
                result = await run_match([server.bot("alice"), server.bot("bob")], _match(10))
                assert result.hands_played == 10 and result.faults == []
        finally:
            for d in dialers:
                await _in_thread(d.stop)


async def test_item3_a_plain_channel_to_the_tls_port_never_reaches_a_seat(tmp_path) -> None:
    pytest.importorskip("trustme", reason="trustme (dev extra) makes the TLS material")
    from tls_material import make_tls_material

    tls = make_tls_material(tmp_path / "tls")
    tokens, issued = make_tokens(tmp_path, "alice")
    config = settings(tokens, tls_cert=tls.cert, tls_key=tls.key)
    async with open_arena_server(config, ["alice"]) as server:
        plain = DialStream(server.address, issued["alice"])
        assert await _in_thread(plain.receive) is None
        assert plain.status() is grpc.StatusCode.UNAVAILABLE
        secure = DialStream(server.address, issued["alice"], credentials=tls.channel_credentials())
        await _until(lambda: server.bot("alice").free_tables() == 1, "the TLS stream is on offer")
        for s in (plain, secure):
            s.close()


async def test_item3_plain_text_off_loopback_is_refused_before_binding(tmp_path) -> None:
    tokens, _ = make_tokens(tmp_path, "alice")
    with pytest.raises(ServerError, match="not loopback"):
        async with open_arena_server(settings(tokens, listen="0.0.0.0:0"), ["alice"]):
            pass
