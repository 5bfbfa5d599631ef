"""Bot tokens: who may dial in (issue 11 item 2).

``arena bots add NAME`` prints a token ``arena_<name>_<64 hex digits>`` once; the store
(a small JSON file, 0600 in a 0700 folder) keeps only its SHA-256, so a copy of the file
lets nobody play as anyone. :class:`TokenStore` is the organiser's side (add, rotate,
revoke, list: each write under a lock, atomically replaced, never half-written);
:class:`TokenVerifier` is the server's (which bot, if any, a presented token is).

The verifier FAILS CLOSED: a store it cannot read, or that is corrupt, writable by
others or missing, accepts no token at all until it is fixed. A presented token is
compared only as its SHA-256, with :func:`hmac.compare_digest` against every live hash
(no early exit on a bot name), so its timing says nothing about which bots exist.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.text import escape_untrusted

NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}\Z")
"""A bot's name: the same rule as ``arena.tournament``'s (same layer, so not imported)."""

TOKEN_PREFIX = "arena_"
MAX_TOKEN_LENGTH = 256
"""A presented token longer than this is refused before it is hashed."""

VERSION = 1
_SHA256 = re.compile(r"^[0-9a-f]{64}\Z")
_MAX_STORE_BYTES = 16 * 1024 * 1024
_MAX_OVERLAP = 366 * 86400.0
_RACY_SECONDS = 2.0

Clock = Callable[[], float]


class TokenStoreError(Exception):
    """The token store cannot be read or written, or refuses a change: one line for the user."""


@dataclasses.dataclass(frozen=True, slots=True)
class BotEntry:
    """One bot of the store as ``arena bots list`` shows it (never a token or a hash)."""

    name: str
    created: str
    revoked: str | None
    live_tokens: int
    next_expiry: str | None

    @property
    def status(self) -> str:
        """``revoked``, ``expiring`` (a rotation's overlap runs), ``live`` or ``expired``."""
        if self.revoked is not None:
            return "revoked"
        if self.live_tokens == 0:
            return "expired"
        return "expiring" if self.next_expiry is not None else "live"


@dataclasses.dataclass(frozen=True, slots=True)
class Identity:
    """Who a stream is: the bot's name (from the store, never from the token's text) and
    the SHA-256 of the token it showed (so a rotation or a revocation can end it)."""

    name: str
    token_sha256: str


def check_name(name: str) -> str:
    """``name`` if it is a valid bot name, else :class:`TokenStoreError` quoting it escaped."""
    if not isinstance(name, str) or not NAME.match(name):
        raise TokenStoreError(
            f"bad bot name {escape_untrusted(repr(name))}: 1 to 64 of A-Z a-z 0-9 _ . -"
        )
    return name


def new_token(name: str) -> str:
    """A fresh token for ``name``: ``arena_<name>_`` and 32 random bytes as 64 hex digits."""
    return f"{TOKEN_PREFIX}{check_name(name)}_{secrets.token_hex(32)}"


def token_name(token: str) -> str | None:
    """The bot name a token's text claims (for a log line only: never trust it), or None."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH or not token.isascii():
        return None
    name, _, digits = token.removeprefix(TOKEN_PREFIX).rpartition("_")
    if not token.startswith(TOKEN_PREFIX) or not NAME.match(name) or len(digits) != 64:
        return None
    return name


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of a call's ``authorization: Bearer TOKEN`` metadata, or None.

    None unless there is exactly one ``authorization`` entry, a text one, with the scheme
    ``Bearer`` (any case, RFC 7235) and one token after it: two headers are refused, not
    picked from, so no proxy or check can disagree about which one counted.
    """
    values = [value for key, value in metadata or () if key.lower() == "authorization"]
    if len(values) != 1 or not isinstance(values[0], str) or len(values[0]) > 300:
        return None
    scheme, _, token = values[0].strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or any(c.isspace() for c in token):
        return None
    return token


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")


def _seconds(text: object, where: str) -> float:
    """An ISO-8601 time with its zone as seconds since the epoch, or ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"{where} is not a time")
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{where} has no time zone")
    return moment.timestamp()


def _alive(token: dict[str, Any], now: float) -> bool:
    expires = token["expires"]
    return expires is None or now < _seconds(expires, "expires")


# ---------------------------------------------------------------------------
# Reading: one function, the same checks for the organiser's commands and the server


def _check_shape(data: object) -> dict[str, dict[str, Any]]:
    """The ``bots`` of a parsed store, or ValueError saying what is wrong with it."""
    if not isinstance(data, dict) or "bots" not in data:
        raise ValueError('not a token store (no "bots")')
    if data.get("version") != VERSION:
        raise ValueError(f"version {data.get('version')!r} is not {VERSION}")
    bots = data["bots"]
    if not isinstance(bots, dict):
        raise ValueError('"bots" is not an object')
    for name, entry in bots.items():
        where = f"bot {escape_untrusted(repr(name))}"
        if not NAME.match(name):
            raise ValueError(f"{where}: bad name")
        if not isinstance(entry, dict) or not isinstance(entry.get("tokens"), list):
            raise ValueError(f"{where}: no token list")
        _seconds(entry.get("created"), f"{where}: created")
        if entry.get("revoked") is not None:
            _seconds(entry["revoked"], f"{where}: revoked")
        for token in entry["tokens"]:
            if not isinstance(token, dict):
                raise ValueError(f"{where}: a token is not an object")
            if not isinstance(token.get("sha256"), str) or not _SHA256.match(token["sha256"]):
                raise ValueError(f"{where}: a token's sha256 is not 64 lowercase hex digits")
            _seconds(token.get("created"), f"{where}: a token's created")
            if token.setdefault("expires", None) is not None:
                _seconds(token["expires"], f"{where}: a token's expires")
        entry.setdefault("revoked", None)
    return bots


def read_store(path: Path, *, missing_ok: bool) -> dict[str, dict[str, Any]]:
    """The bots of the store at ``path``; a missing file is empty when ``missing_ok``.

    Every other problem (unreadable, too large, not JSON, the wrong shape, writable by
    group or others) is a :class:`TokenStoreError` naming the file.
    """
    raw = _read_bytes(path, missing_ok=missing_ok)
    return {} if raw is None else _parse(path, raw)


def _read_bytes(path: Path, *, missing_ok: bool) -> bytes | None:
    try:
        # no symlink, and no wait on a FIFO someone put in the store's place
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, "rb") as file:
            info = os.fstat(file.fileno())
            mode = info.st_mode
            if stat.S_ISREG(mode):
                raw = file.read(_MAX_STORE_BYTES + 1)
        folder = os.stat(path.parent)
    except FileNotFoundError:
        if missing_ok:
            return None
        raise TokenStoreError(
            f"{path}: no token store (create it with `arena bots add NAME`)"
        ) from None
    except OSError as error:
        raise TokenStoreError(f"{path}: cannot read the token store: {error.strerror}") from None
    if not stat.S_ISREG(mode):
        raise TokenStoreError(f"{path}: the token store is not a regular file")
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise TokenStoreError(
            f"{path}: the token store is writable by group or others (chmod 600 {path})"
        )
    me = os.geteuid()
    if info.st_uid not in (me, 0):
        raise TokenStoreError(
            f"{path}: the token store belongs to another user (uid {info.st_uid})"
        )
    if folder.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not folder.st_mode & stat.S_ISVTX:
        raise TokenStoreError(
            f"{path}: its folder is writable by group or others, so anyone could replace "
            f"the store (chmod 700 {path.parent})"
        )
    if len(raw) > _MAX_STORE_BYTES:
        raise TokenStoreError(f"{path}: corrupt token store: larger than 16 MB")
    return raw


def _parse(path: Path, raw: bytes) -> dict[str, dict[str, Any]]:
    try:
        return _check_shape(json.loads(raw.decode("utf-8")))
    except (ValueError, RecursionError) as error:
        detail = escape_untrusted(str(error), one_line=True)[:200]
        raise TokenStoreError(f"{path}: corrupt token store: {detail}") from None


# ---------------------------------------------------------------------------
# The organiser's side


class TokenStore:
    """The token file of ``arena bots``: only SHA-256 hashes, each change atomic and locked.

    ``clock`` gives the time in seconds since the epoch (tests move it).
    """

    def __init__(self, path: Path, *, clock: Clock = time.time) -> None:
        self.path = Path(path)
        self._clock = clock

    def bots(self) -> list[BotEntry]:
        """Every bot of the store, by name (a missing store has none)."""
        now = self._clock()
        entries = []
        for name, entry in sorted(read_store(self.path, missing_ok=True).items()):
            live = [t for t in entry["tokens"] if entry["revoked"] is None and _alive(t, now)]
            expiries = [t["expires"] for t in live if t["expires"] is not None]
            entries.append(
                BotEntry(
                    name=name,
                    created=entry["created"],
                    revoked=entry["revoked"],
                    live_tokens=len(live),
                    next_expiry=min(expiries, key=lambda e: _seconds(e, "")) if expiries else None,
                )
            )
        return entries

    def add(self, name: str) -> str:
        """A new bot and its first token (returned, never stored). A bot with a live token
        is refused (rotate it instead); a revoked one starts again with a fresh token."""
        check_name(name)
        with self._change() as (bots, now):
            entry = bots.get(name)
            if entry is not None and entry["revoked"] is None:
                if any(_alive(t, now) for t in entry["tokens"]):
                    raise TokenStoreError(
                        f"{self.path}: bot {name} already has a token; "
                        f"use `arena bots rotate {name}` for a new one"
                    )
            token = new_token(name)
            bots[name] = {
                "created": _stamp(now),
                "revoked": None,
                "tokens": [{"sha256": _digest(token), "created": _stamp(now), "expires": None}],
            }
        return token

    def rotate(self, name: str, overlap: float = 3600.0) -> str:
        """A new token for ``name`` (returned); its old live tokens stay valid for
        ``overlap`` more seconds, so the bot can switch without missing a match."""
        check_name(name)
        if not (isinstance(overlap, int | float) and math.isfinite(overlap)):
            raise TokenStoreError(f"overlap {overlap!r} is not a number of seconds")
        if not 0 <= overlap <= _MAX_OVERLAP:
            raise TokenStoreError(f"overlap {overlap:g} s is not within 0 s .. 366 days")
        with self._change() as (bots, now):
            entry = self._known(bots, name, "rotate")
            token = new_token(name)
            until = now + overlap
            for old in entry["tokens"]:
                if old["expires"] is None or until < _seconds(old["expires"], ""):
                    old["expires"] = _stamp(until)
            entry["tokens"].append(
                {"sha256": _digest(token), "created": _stamp(now), "expires": None}
            )
        return token

    def revoke(self, name: str) -> None:
        """End every token of ``name`` now; the bot stays listed, marked revoked."""
        check_name(name)
        with self._change() as (bots, now):
            entry = self._known(bots, name, "revoke")
            entry["revoked"] = _stamp(now)
            entry["tokens"] = []

    def _known(self, bots: dict[str, dict[str, Any]], name: str, verb: str) -> dict[str, Any]:
        entry = bots.get(name)
        if entry is None:
            raise TokenStoreError(
                f"{self.path}: no bot named {name} (`arena bots list` shows them; "
                f"`arena bots add {name}` adds it)"
            )
        if entry["revoked"] is not None:
            raise TokenStoreError(
                f"{self.path}: bot {name} was revoked at {entry['revoked']}; cannot {verb} it "
                f"(`arena bots add {name}` gives it a fresh token)"
            )
        return entry

    @contextlib.contextmanager
    def _change(self) -> Iterator[tuple[dict[str, dict[str, Any]], float]]:
        """Under the store's lock: the bots as they are now, written back after the block
        (tokens that have expired are dropped on the way)."""
        folder = self.path.parent
        try:
            if not folder.is_dir():
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                folder.chmod(0o700)  # whatever the umask
        except OSError as error:
            raise TokenStoreError(f"{folder}: cannot create the folder: {error.strerror}") from None
        with self._lock():
            bots = read_store(self.path, missing_ok=True)
            now = self._clock()
            yield bots, now
            for entry in bots.values():
                entry["tokens"] = [t for t in entry["tokens"] if _alive(t, now)]
            self._write({"version": VERSION, "bots": bots})

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        lock = self.path.with_name(self.path.name + ".lock")
        try:
            descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise TokenStoreError(f"{lock}: cannot open the lock file: {error.strerror}") from None
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX)
            except OSError as error:
                raise TokenStoreError(f"{lock}: cannot lock: {error.strerror}") from None
            yield
        finally:
            os.close(descriptor)  # closing releases the lock

    def _write(self, data: dict[str, Any]) -> None:
        """Replace the store by ``data``: a 0600 temp file beside it, fsync, os.replace."""
        text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        folder = self.path.parent
        temp: str | None = None
        try:
            descriptor, temp = tempfile.mkstemp(dir=folder, prefix=f".{self.path.name}.")
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                os.fchmod(file.fileno(), 0o600)
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, self.path)
            temp = None
            with contextlib.suppress(OSError):  # the rename's durability; best effort
                directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    os.fsync(directory)
                finally:
                    os.close(directory)
        except OSError as error:
            raise TokenStoreError(
                f"{self.path}: cannot write the token store: {error.strerror} (nothing changed)"
            ) from None
        finally:
            if temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp)


# ---------------------------------------------------------------------------
# The server's side


@dataclasses.dataclass(frozen=True, slots=True)
class _Live:
    name: str
    sha256: str
    expires: float | None


class TokenVerifier:
    """Which bot a presented token is, from the store at ``path``; fails closed.

    :meth:`refresh` re-reads the file when it changed (the server calls it every half
    second); :meth:`check` and :meth:`still_valid` use what was read last, and the clock
    for expiry. While the store is missing, unreadable or corrupt, no token is valid and
    :attr:`error` says why (one line, for the log).
    """

    def __init__(self, path: Path, *, clock: Clock = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        self._live: tuple[_Live, ...] = ()
        self._signature: tuple[int, ...] | None = None
        self._raw: bytes | None = None
        self.error: str | None = "not read yet"
        self.refresh()

    def refresh(self) -> bool:
        """Re-read the store if it changed; True when what the verifier accepts may have
        changed (a revocation: the server then ends streams whose identity is no longer
        :meth:`still_valid`).

        A change is seen by (mtime, size, inode); a file modified within the last two
        seconds is read again anyway, as two writes in one timestamp tick can keep all three.
        """
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return self._fail(f"{self.path}: no token store (create it with `arena bots add NAME`)")
        except OSError as error:
            return self._fail(f"{self.path}: cannot read the token store: {error.strerror}")
        signature = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino, info.st_mode)
        recent = time.time() - info.st_mtime_ns / 1e9 < _RACY_SECONDS
        if signature == self._signature and not recent and self.error is None:
            return False
        try:
            raw = _read_bytes(self.path, missing_ok=False)
            assert raw is not None  # missing_ok=False raises instead
            if raw == self._raw and self.error is None:
                self._signature = signature
                return False
            bots = _parse(self.path, raw)
        except TokenStoreError as error:
            return self._fail(str(error))
        self._live = tuple(
            _Live(name, token["sha256"], _expiry(token))
            for name, entry in bots.items()
            if entry["revoked"] is None
            for token in entry["tokens"]
        )
        self._signature, self._raw, self.error = signature, raw, None
        return True

    def _fail(self, reason: str) -> bool:
        changed = self.error != reason or bool(self._live)
        self._live, self._signature, self._raw, self.error = (), None, None, reason
        return changed

    def check(self, token: str) -> Identity | None:
        """The identity ``token`` proves, or None (wrong, expired, revoked, malformed, or
        no readable store). Compares SHA-256 digests in constant time against every live one."""
        if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH or not token.isascii():
            return None
        digest = _digest(token)
        now = self._clock()
        found: _Live | None = None
        for live in self._live:  # every one, no early exit
            same = hmac.compare_digest(digest, live.sha256)
            if same and (live.expires is None or now < live.expires):
                found = live
        return None if found is None else Identity(found.name, found.sha256)

    def check_metadata(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Identity | None:
        """:meth:`check` of the call's ``authorization: Bearer`` token (:func:`bearer_token`)."""
        token = bearer_token(metadata)
        return None if token is None else self.check(token)

    def still_valid(self, identity: Identity) -> bool:
        """Whether the token behind ``identity`` is still live (False once revoked, expired,
        or while the store cannot be read)."""
        now = self._clock()
        return any(
            live.name == identity.name
            and live.sha256 == identity.token_sha256
            and (live.expires is None or now < live.expires)
            for live in self._live
        )

    def live_names(self) -> frozenset[str]:
        """The bots with at least one live token now (none while the store cannot be read)."""
        now = self._clock()
        return frozenset(
            live.name for live in self._live if live.expires is None or now < live.expires
        )


def _expiry(token: dict[str, Any]) -> float | None:
    return None if token["expires"] is None else _seconds(token["expires"], "expires")
