"""Defects the hostile audit of the dial-in server found (issue 11), each pinned.

Duplicate dealing with a bot that dials in, half-finished TLS handshakes, two resumes
racing on one ticket, half-closed streams on offer, a store another user could replace,
resume tickets that stretch the stream cap, one bot in two seats, a store broken mid-run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import grpc
import pytest
import trio
from dial_kit import DialStream, make_tokens, play_stream, settings

from arena.dealer import MatchSettings, policy_driver, run_match
from arena.engine import GameConfig, Structure
from arena.server._arena import open_arena_server
from arena.server._tokens import TokenStore, TokenStoreError, TokenVerifier

ARENA = [sys.executable, "-m", "arena"]


async def _in_thread(fn, *args):
    return await trio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


async def _until(predicate, what: str, limit: float = 20.0) -> None:
    with trio.move_on_after(limit) as scope:
        while not predicate():
            await trio.sleep(0.02)
    assert not scope.cancelled_caught, f"never happened: {what}"


def test_audit1_arena_match_refuses_duplicate_dealing_with_a_bot_that_dials_in(tmp_path) -> None:
    done = subprocess.run(
        [*ARENA, "match", "remote:alice", "builtin:random", "--duplicate",
         "--listen", "127.0.0.1:0", "--tokens", str(tmp_path / "t.json"), "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "would show it its opponents' cards" in done.stderr
    assert "listening" not in done.stdout + done.stderr  # refused before any server started


def test_audit1_arena_serve_refuses_a_duplicate_tournament_with_remote_bots(tmp_path) -> None:
    league = tmp_path / "league.toml"
    league.write_text(
        '[tournament]\nname = "l"\n\n[[bots]]\nname = "alice"\nremote = true\n\n'
        '[[bots]]\nname = "house"\nbuiltin = "random"\n'
    )
    done = subprocess.run(
        [*ARENA, "serve", str(league), "--listen", "127.0.0.1:0",
         "--tokens", str(tmp_path / "t.json")],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert "duplicate = false" in done.stderr and "Traceback" not in done.stderr


def test_audit7_one_remote_bot_in_two_seats_is_refused(tmp_path) -> None:
    done = subprocess.run(
        [*ARENA, "match", "a=remote:alice", "b=remote:alice", "builtin:random",
         "--listen", "127.0.0.1:0", "--tokens", str(tmp_path / "t.json"), "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "sits twice at one table" in done.stderr


@pytest.mark.trio
async def test_audit2_a_half_finished_tls_handshake_is_closed(tmp_path) -> None:
    pytest.importorskip("trustme", reason="trustme (dev extra) makes the TLS material")
    from tls_material import make_tls_material

    tls = make_tls_material(tmp_path / "tls")
    tokens, _ = make_tokens(tmp_path, "alice")
    config = settings(tokens, tls_cert=tls.cert, tls_key=tls.key)
    async with open_arena_server(config, ["alice"]) as server:
        host, port = server.address.rsplit(":", 1)

        def half_hello() -> bytes:
            with socket.create_connection((host, int(port)), timeout=60) as sock:
                sock.sendall(b"\x16\x03\x01\x02\x00\x01")  # the start of a ClientHello
                return sock.recv(1)  # b"" once the server gives up on it

        assert await _in_thread(half_hello) == b""


def _match(hands: int) -> MatchSettings:
    return MatchSettings(
        config=GameConfig(structure=Structure.FIXED_LIMIT), hands=hands, seed=3, action_timeout=1.0
    )


@pytest.mark.trio
async def test_audit3_two_resumes_racing_on_one_ticket_leave_no_stream_behind(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    address: list[str] = []
    statuses: list = []

    def resume(ticket: str) -> None:
        stream = DialStream(address[0], issued["alice"], resume=ticket)
        play_stream(stream)
        statuses.append(stream.status(timeout=30))
        stream.close()

    def bot() -> None:
        first = DialStream(address[0], issued["alice"])
        ticket = play_stream(first, stop_after=4)[0].match_start.resume_ticket
        first.close()
        racers = [threading.Thread(target=resume, args=(ticket,)) for _ in range(2)]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(60)

    async with open_arena_server(settings(tokens, reconnect_window=10.0), ["alice"]) as server:
        address.append(server.address)
        thread = threading.Thread(target=bot, daemon=True)
        thread.start()
        await _until(lambda: server.bot("alice").free_tables() >= 1, "alice on offer")
        result = await run_match(
            [server.bot("alice"), policy_driver("cs", "calling-station")], _match(30)
        )
        await _in_thread(thread.join, 60)
    assert result.hands_played == 30 and sum(result.chips_won) == 0
    assert sorted(s.name for s in statuses) == ["ABORTED", "OK"]  # one replaced, one played on


@pytest.mark.trio
async def test_audit4_half_closed_streams_on_offer_are_ended_and_free_their_room(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens, max_tables=2), ["alice"]) as server:
        streams = [DialStream(server.address, issued["alice"]) for _ in range(2)]
        await _until(lambda: server.bot("alice").free_tables() == 2, "two on offer")
        for stream in streams:
            stream.half_close()
        for stream in streams:
            assert await _in_thread(stream.receive) is None
            assert stream.status() is grpc.StatusCode.OK  # the server ended them too
        fresh = DialStream(server.address, issued["alice"])
        await _until(lambda: server.bot("alice").free_tables() == 1, "room for a new one")
        for stream in [*streams, fresh]:
            stream.close()


@pytest.mark.trio
async def test_audit6_an_unknown_resume_ticket_does_not_stretch_max_tables(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens, max_tables=2), ["alice"]) as server:
        streams = [DialStream(server.address, issued["alice"]) for _ in range(2)]
        await _until(lambda: server.bot("alice").free_tables() == 2, "two on offer")
        extra = DialStream(server.address, issued["alice"], resume="made-up-ticket")
        assert await _in_thread(extra.receive) is None
        assert extra.status() is grpc.StatusCode.RESOURCE_EXHAUSTED
        for stream in [*streams, extra]:
            stream.close()


@pytest.mark.trio
async def test_audit9_a_store_broken_mid_run_keeps_open_streams_and_refuses_new(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens), ["alice"]) as server:
        kept = DialStream(server.address, issued["alice"])
        await _until(lambda: server.bot("alice").free_tables() == 1, "on offer")
        tokens.write_text("garbage")
        await trio.sleep(1.2)  # past the refresh interval
        newcomer = DialStream(server.address, issued["alice"])
        assert await _in_thread(newcomer.receive) is None
        assert newcomer.status() is grpc.StatusCode.UNAUTHENTICATED
        assert server.bot("alice").free_tables() == 1  # the open stream plays on
        for stream in (kept, newcomer):
            stream.close()


def test_audit5_a_store_owned_by_another_user_or_in_an_open_folder_is_refused(tmp_path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the store to another uid")
    path = tmp_path / "tokens.json"
    token = TokenStore(path).add("alice")
    os.chown(path, 65534, 65534)
    verifier = TokenVerifier(path)
    verifier.refresh()
    assert verifier.check(token) is None and "another user" in (verifier.error or "")
    os.chown(path, 0, 0)
    tmp_path.chmod(0o777)
    with pytest.raises(TokenStoreError, match="folder is writable"):
        TokenStore(path).bots()
    tmp_path.chmod(0o700)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo, 0o600)
    with pytest.raises(TokenStoreError, match="not a regular file"):
        TokenStore(fifo).bots()  # opened without waiting for a writer (O_NONBLOCK)
