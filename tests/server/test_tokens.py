"""The token store and its verifier (issue 11 item 2): only hashes on disk, fail closed.

Time is a fake clock moved by hand, so expiry is tested without waiting (and without
asserting any timing).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena.server._tokens import (
    Identity,
    TokenStore,
    TokenStoreError,
    TokenVerifier,
    bearer_token,
    new_token,
    token_name,
)

ROOT = Path(__file__).resolve().parents[2]
START = 1_800_000_000.0


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "secret" / "tokens.json"


def store_and_verifier(path: Path, clock: Clock) -> tuple[TokenStore, TokenVerifier]:
    return TokenStore(path, clock=clock), TokenVerifier(path, clock=clock)


class TestNewToken:
    def test_token_format_is_prefix_name_and_64_hex(self):
        """issue 11 item 2: arena_<bot>_<32 random bytes as lowercase hex>, parsed back by rsplit."""
        token = new_token("my_bot.v2")
        prefix, digits = token.rsplit("_", 1)
        assert "arena_my_bot.v2" == prefix
        assert 64 == len(digits) and all(c in "0123456789abcdef" for c in digits)
        assert "my_bot.v2" == token_name(token)
        assert new_token("my_bot.v2") != token

    @pytest.mark.parametrize("name", ["", "a b", "x" * 65, "evil\x1b[2J", "bot\n", "ünï"])
    def test_bad_names_are_refused(self, name: str):
        """issue 11 item 2: the tournament's name rule; the message escapes what it quotes."""
        with pytest.raises(TokenStoreError) as caught:
            new_token(name)
        assert "\x1b" not in str(caught.value) and "\n" not in str(caught.value)


class TestStore:
    def test_round_trip(self, path: Path, clock: Clock):
        """issue 11 item 2: add, then list shows the bot live with one token, never expiring."""
        store = TokenStore(path, clock=clock)
        store.add("alice")
        store.add("bob")
        (alice, bob) = TokenStore(path, clock=clock).bots()
        assert ("alice", "live", 1, None, None) == (
            alice.name,
            alice.status,
            alice.live_tokens,
            alice.revoked,
            alice.next_expiry,
        )
        assert "bob" == bob.name and alice.created.startswith("2027-01-15T08:00:00")

    def test_only_hashes_reach_the_disk(self, path: Path, clock: Clock):
        """issue 11 item 2: the file holds the SHA-256, never the token or its random part."""
        store = TokenStore(path, clock=clock)
        tokens = [store.add("alice"), store.rotate("alice")]
        text = path.read_text()
        for token in tokens:
            assert token not in text and token.rsplit("_", 1)[1] not in text
        assert hashlib.sha256(tokens[0].encode()).hexdigest() in text
        data = json.loads(text)
        assert 1 == data["version"] and {"alice"} == set(data["bots"])

    def test_modes_file_0600_folder_0700(self, path: Path, clock: Clock):
        """issue 11 item 2: the folder is created 0700, the store and its lock file 0600."""
        TokenStore(path, clock=clock).add("alice")
        assert 0o700 == stat.S_IMODE(path.parent.stat().st_mode)
        assert 0o600 == stat.S_IMODE(path.stat().st_mode)
        assert 0o600 == stat.S_IMODE(path.with_name("tokens.json.lock").stat().st_mode)
        assert [] == [p.name for p in path.parent.iterdir() if p.name.startswith(".")]

    def test_add_twice_is_refused_with_the_rotate_hint(self, path: Path, clock: Clock):
        """issue 11 item 2: a bot with a live token is not added again; the message says rotate."""
        store = TokenStore(path, clock=clock)
        store.add("alice")
        before = path.read_bytes()
        with pytest.raises(TokenStoreError, match=r"arena bots rotate alice") as caught:
            store.add("alice")
        assert str(path) in str(caught.value)
        assert before == path.read_bytes()

    def test_rotate_keeps_both_valid_during_the_overlap_only(self, path: Path, clock: Clock):
        """issue 11 item 2: two tokens valid during the overlap, then only the new one."""
        store, verifier = store_and_verifier(path, clock)
        old = store.add("alice")
        new = store.rotate("alice", overlap=600)
        verifier.refresh()
        assert Identity("alice", verifier.check(old).token_sha256) == verifier.check(old)
        assert "alice" == verifier.check(new).name
        (entry,) = store.bots()
        assert ("expiring", 2) == (entry.status, entry.live_tokens)
        held = verifier.check(old)
        clock.now += 599
        assert verifier.check(old) is not None and verifier.still_valid(held)
        clock.now += 1
        assert verifier.check(old) is None and not verifier.still_valid(held)
        assert "alice" == verifier.check(new).name
        (entry,) = store.bots()
        assert ("live", 1) == (entry.status, entry.live_tokens)

    def test_rotate_with_no_overlap_ends_the_old_token_now(self, path: Path, clock: Clock):
        """issue 11 item 2: --overlap 0 is an immediate switch."""
        store, verifier = store_and_verifier(path, clock)
        old = store.add("alice")
        new = store.rotate("alice", overlap=0)
        verifier.refresh()
        assert verifier.check(old) is None and verifier.check(new) is not None

    @pytest.mark.parametrize("overlap", [-1.0, float("nan"), float("inf"), 400 * 86400.0])
    def test_rotate_refuses_a_bad_overlap(self, path: Path, clock: Clock, overlap: float):
        """issue 11 item 2: an overlap that is not 0 s .. 366 days changes nothing."""
        store = TokenStore(path, clock=clock)
        store.add("alice")
        with pytest.raises(TokenStoreError, match="overlap"):
            store.rotate("alice", overlap=overlap)

    def test_revoke_kills_every_token_and_stays_listed(self, path: Path, clock: Clock):
        """issue 11 item 2: after revoke no token of the bot works; list shows it revoked."""
        store, verifier = store_and_verifier(path, clock)
        tokens = [store.add("alice"), store.rotate("alice"), store.rotate("alice")]
        other = store.add("bob")
        verifier.refresh()
        held = [verifier.check(token) for token in tokens]
        assert all(held)
        clock.now += 1
        store.revoke("alice")
        verifier.refresh()
        assert [None, None, None] == [verifier.check(token) for token in tokens]
        assert not any(verifier.still_valid(identity) for identity in held if identity)
        assert verifier.check(other) is not None
        assert frozenset({"bob"}) == verifier.live_names()
        alice = store.bots()[0]
        assert ("revoked", 0) == (alice.status, alice.live_tokens) and alice.revoked
        with pytest.raises(TokenStoreError, match="revoked"):
            store.rotate("alice")

    def test_a_revoked_bot_may_be_added_again_with_a_fresh_token(self, path: Path, clock: Clock):
        """issue 11 item 2: add after revoke gives a new token; the old one stays dead."""
        store, verifier = store_and_verifier(path, clock)
        old = store.add("alice")
        store.revoke("alice")
        new = store.add("alice")
        verifier.refresh()
        assert verifier.check(old) is None and "alice" == verifier.check(new).name
        assert "live" == store.bots()[0].status

    def test_unknown_bot_for_revoke_and_rotate(self, path: Path, clock: Clock):
        """issue 11 item 2: revoking or rotating a bot that is not there names the file."""
        store = TokenStore(path, clock=clock)
        for change in (store.revoke, store.rotate):
            with pytest.raises(TokenStoreError, match=r"no bot named zed") as caught:
                change("zed")
            assert str(path) in str(caught.value)

    def test_missing_store_is_empty_for_the_commands(self, path: Path, clock: Clock):
        """issue 11 item 2: list of a store not yet written is empty, not an error."""
        assert [] == TokenStore(path, clock=clock).bots()

    @pytest.mark.parametrize(
        "content",
        [
            b"{not json",
            b"\xff\xfe",
            b"[]",
            b'{"version": 2, "bots": {}}',
            b'{"version": 1, "bots": {"a b": {"created": "2026-01-01T00:00:00+00:00", '
            b'"tokens": []}}}',
            b'{"version": 1, "bots": {"a": {"created": "yesterday", "tokens": []}}}',
            b'{"version": 1, "bots": {"a": {"created": "2026-01-01T00:00:00+00:00", '
            b'"tokens": [{"sha256": "XYZ", "created": "2026-01-01T00:00:00+00:00"}]}}}',
            b"[" * 100_000,
        ],
        ids=["not-json", "not-utf8", "list", "version", "name", "time", "hash", "deep"],
    )
    def test_corrupt_store_is_one_error_naming_the_file(self, path: Path, content: bytes):
        """issue 11 item 2: a corrupt or wrong-shape file is TokenStoreError, for every command."""
        path.parent.mkdir(mode=0o700)
        path.write_bytes(content)
        path.chmod(0o600)
        store = TokenStore(path)
        for call in (store.bots, lambda: store.add("x"), lambda: store.revoke("a")):
            with pytest.raises(TokenStoreError) as caught:
                call()
            assert str(path) in str(caught.value) and "\n" not in str(caught.value)
        assert content == path.read_bytes()

    def test_a_store_writable_by_others_is_refused(self, path: Path, clock: Clock):
        """issue 11 item 2: anyone able to write the file could add tokens: refused, with the fix."""
        TokenStore(path, clock=clock).add("alice")
        path.chmod(0o666)
        with pytest.raises(TokenStoreError, match="chmod 600"):
            TokenStore(path, clock=clock).bots()

    def test_an_unwritable_folder_is_one_error(self, path: Path, clock: Clock):
        """issue 11 item 2: the folder cannot be created (a file is in the way)."""
        path.parent.write_text("in the way")
        with pytest.raises(TokenStoreError) as caught:
            TokenStore(path, clock=clock).add("alice")
        assert str(path.parent) in str(caught.value)

    def test_a_failed_write_leaves_the_store_as_it_was(self, path: Path, clock: Clock, monkeypatch):
        """issue 11 item 2: a full disk mid-write changes nothing and leaves no temp file."""
        store = TokenStore(path, clock=clock)
        store.add("alice")
        before = path.read_bytes()

        def full(*args, **kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", full)
        with pytest.raises(TokenStoreError, match="No space left on device"):
            store.add("bob")
        assert before == path.read_bytes()
        assert {"tokens.json", "tokens.json.lock"} == {p.name for p in path.parent.iterdir()}

    def test_concurrent_adds_from_two_processes_lose_nothing(self, path: Path):
        """issue 11 item 2: 2 processes x 20 adds of distinct names, all 40 are in the store."""
        script = (
            "import sys; from pathlib import Path; from arena.server._tokens import TokenStore\n"
            "store = TokenStore(Path(sys.argv[1]))\n"
            "for i in range(20): store.add(f'{sys.argv[2]}{i}')\n"
        )
        workers = [
            subprocess.Popen([sys.executable, "-c", script, str(path), prefix], cwd=ROOT)
            for prefix in ("left", "right")
        ]
        assert [0, 0] == [worker.wait(timeout=120) for worker in workers]
        names = {entry.name for entry in TokenStore(path).bots()}
        assert {f"{p}{i}" for p in ("left", "right") for i in range(20)} == names


class TestVerifier:
    def test_the_right_token_is_its_bot(self, path: Path, clock: Clock):
        """issue 11 item 2: the name comes from the store; live_names lists the bot."""
        store, _ = store_and_verifier(path, clock)
        token = store.add("alice")
        verifier = TokenVerifier(path, clock=clock)
        identity = verifier.check(token)
        assert identity is not None and "alice" == identity.name
        assert verifier.still_valid(identity) and verifier.error is None
        assert frozenset({"alice"}) == verifier.live_names()

    def test_refused_tokens(self, path: Path, clock: Clock):
        """issue 11 item 2: wrong, another bot's shape, truncated, 10 KB, non-ASCII: all None."""
        store = TokenStore(path, clock=clock)
        alice = store.add("alice")
        bob = store.add("bob")
        verifier = TokenVerifier(path, clock=clock)
        forged_for_bob = "arena_bob_" + alice.rsplit("_", 1)[1]  # alice's secret, bob's name
        refused = [
            "",
            new_token("alice"),
            forged_for_bob,
            alice[:-1],
            alice + "0",
            alice.upper(),
            alice + "x" * 10_000,
            "x" * 10_240,
            alice[:-1] + "é",
            alice.replace("_", "\u200b_", 1),
            f"Bearer {alice}",
        ]
        assert [None] * len(refused) == [verifier.check(token) for token in refused]
        assert "bob" == verifier.check(bob).name  # another bot's token is that bot, never alice
        assert verifier.check(None) is None  # type: ignore[arg-type]  # not a str at all

    def test_corrupt_store_fails_closed_and_recovers(self, path: Path, clock: Clock):
        """issue 11 item 2: a token valid before the corruption is refused, error set; fixed: back."""
        store, verifier = store_and_verifier(path, clock)
        token = store.add("alice")
        verifier.refresh()
        held = verifier.check(token)
        assert held is not None
        good = path.read_bytes()
        path.write_bytes(good[: len(good) // 2])
        assert verifier.refresh() is True
        assert verifier.check(token) is None and not verifier.still_valid(held)
        assert verifier.error and str(path) in verifier.error and "corrupt" in verifier.error
        assert frozenset() == verifier.live_names()
        path.write_bytes(good)
        verifier.refresh()
        assert verifier.error is None and verifier.check(token) == held

    def test_missing_or_unreadable_store_fails_closed(self, path: Path, clock: Clock):
        """issue 11 item 2: no store, no token: every check is None and error says why."""
        verifier = TokenVerifier(path, clock=clock)
        assert verifier.check(new_token("alice")) is None
        assert verifier.error and str(path) in verifier.error and "arena bots add" in verifier.error
        token = TokenStore(path, clock=clock).add("alice")
        verifier.refresh()
        assert verifier.check(token) is not None
        path.unlink()
        verifier.refresh()
        assert verifier.check(token) is None and verifier.error
        path.mkdir()  # a folder where the file should be: unreadable as a store
        verifier.refresh()
        assert verifier.check(token) is None and verifier.error

    def test_a_store_made_writable_by_others_fails_closed(self, path: Path, clock: Clock):
        """issue 11 item 2: chmod 666 alone (no content change) is seen and refused."""
        store, verifier = store_and_verifier(path, clock)
        token = store.add("alice")
        verifier.refresh()
        path.chmod(0o666)
        verifier.refresh()
        assert verifier.check(token) is None and "chmod 600" in (verifier.error or "")

    def test_refresh_sees_a_change_even_under_the_old_mtime(self, path: Path, clock: Clock):
        """issue 11 item 2: a write whose mtime looks unchanged (one timestamp tick) is still seen."""
        store, verifier = store_and_verifier(path, clock)
        token = store.add("alice")
        verifier.refresh()
        info = path.stat()
        store.revoke("alice")
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # mtime as before the change
        verifier.refresh()
        assert verifier.check(token) is None

    def test_refresh_without_a_change_reports_none(self, path: Path, clock: Clock):
        """issue 11 item 2: refresh says when acceptance may have changed, so the server acts."""
        store, verifier = store_and_verifier(path, clock)
        store.add("alice")
        assert verifier.refresh() is True
        assert verifier.refresh() is False
        store.add("bob")
        assert verifier.refresh() is True


class TestBearer:
    def test_one_bearer_header_is_the_token(self, path: Path, clock: Clock):
        """issue 11 item 2: `authorization: Bearer TOKEN` (scheme in any case) proves the bot."""
        token = TokenStore(path, clock=clock).add("alice")
        verifier = TokenVerifier(path, clock=clock)
        for value in (f"Bearer {token}", f"bearer {token}", f"BEARER  {token} "):
            assert token == bearer_token([("user-agent", "x"), ("authorization", value)])
        identity = verifier.check_metadata([("authorization", f"Bearer {token}")])
        assert identity is not None and "alice" == identity.name

    def test_anything_else_is_no_token(self, path: Path, clock: Clock):
        """issue 11 item 2: none, two, bytes, another scheme, no token, extra words: None."""
        token = TokenStore(path, clock=clock).add("alice")
        verifier = TokenVerifier(path, clock=clock)
        refused = [
            None,
            [],
            [("authorization", token)],
            [("authorization", f"Basic {token}")],
            [("authorization", "Bearer ")],
            [("authorization", f"Bearer {token} extra")],
            [("authorization", f"Bearer {token}".encode())],
            [("authorization", f"Bearer {token}"), ("authorization", f"Bearer {token}")],
            [("authorization", f"Bearer {token}"), ("Authorization", "Bearer wrong")],
            [("authorization", f"Bearer {token}" + " " * 10_000)],
        ]
        assert [None] * len(refused) == [verifier.check_metadata(m) for m in refused]
