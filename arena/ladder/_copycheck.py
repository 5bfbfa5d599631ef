"""The copy check (issue 22 item 7): a version's behaviour fingerprint and its source's
similarity to other teams', so the organiser sees two teams that hand in one bot.

Two signals, because each misses what the other sees. The fingerprint plays the version
on fixed seeded hands against a deterministic house bot and records every answer: a
copy whose source was rewritten (renamed, reformatted, translated to another language)
still plays the same. The source similarity compares the code itself: a copy whose
play was perturbed (a tweaked threshold, a random seed) still shares most of its text.

Neither is proof. Two teams that ship the unmodified ``arena new-bot`` template play
identically and are flagged too: the flag goes to the organiser, who decides.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Literal

from arena.dealer import ACTION_TIMEOUT, BotDriver, MatchSettings, SeatConnection, run_match
from arena.engine import GameConfig
from arena.protocol import pb
from arena.tournament import DriverContext, make_bot, open_builtin_bot

__all__ = [
    "CopyEntry",
    "CopyFlag",
    "Fingerprint",
    "agreement",
    "find_copies",
    "fingerprint",
    "jaccard",
    "source_shingles",
    "source_similarity",
]

Fingerprint = tuple[str, ...]
"""A version's answers in order, one token per decision: ``h3:d1:raise:4`` (hand 3,
before the draw, raised to 4), ``h3:draw:2c,Kd`` (discarded those; ``draw:-`` stood
pat), ``h3:d2:call``; ``none`` for a decision it never answered, ``error`` for one it
said it could not make. Hand number first, so :func:`agreement` can group by hand."""

OpenBot = Callable[[], contextlib.AbstractAsyncContextManager[BotDriver]]
"""Opens the version under test afresh (a launched process, a policy)."""

HOUSE = "rule-based"
"""The house bot the fingerprint plays: deterministic (it draws no random numbers), so
the same answers from the version always meet the same replies."""

_PHASES = {
    pb.PHASE_PREDRAW_BETTING: "d1",
    pb.PHASE_DRAW: "draw",
    pb.PHASE_POSTDRAW_BETTING: "d2",
}


class _Recorder:
    """Each decision the version was asked (in order) and its first answer to each."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []  # (decision_id, "h3:d1")
        self.answers: dict[str, str] = {}

    def sent(self, message: pb.DealerMessage) -> None:
        if message.WhichOneof("kind") == "decision":
            decision = message.decision
            phase = _PHASES.get(decision.phase, str(decision.phase))
            self.asked.append((decision.decision_id, f"h{decision.hand_number}:{phase}"))

    def received(self, message: pb.BotMessage) -> None:
        if message.WhichOneof("kind") == "action":
            action = message.action
            self.answers.setdefault(action.decision_id, _action_token(action))

    def tokens(self) -> Fingerprint:
        return tuple(f"{where}:{self.answers.get(id_, 'none')}" for id_, where in self.asked)


def _action_token(action: pb.Action) -> str:
    if action.error:
        return "error"
    if action.kind == pb.ACTION_KIND_BET_RAISE:
        return f"raise:{action.amount}"
    if action.kind == pb.ACTION_KIND_DISCARD:
        return ",".join(sorted(action.cards)) or "-"
    name = pb.ActionKind.Name(action.kind).removeprefix("ACTION_KIND_").lower()
    return name


class _RecordingDriver:
    """The version's driver, unchanged (its CPU clock and process probes pass through),
    but every stream it opens tells the recorder what it was asked and answered."""

    def __init__(self, inner: BotDriver, recorder: _Recorder) -> None:
        self._inner = inner
        self._recorder = recorder
        self.name = inner.name

    def __getattr__(self, attribute: str) -> object:
        return getattr(self._inner, attribute)

    async def connect(self) -> SeatConnection:
        connection = await self._inner.connect()
        send, receive, recorder = connection.send, connection.receive, self._recorder

        async def recording_send(message: pb.DealerMessage) -> None:
            recorder.sent(message)
            await send(message)

        async def recording_receive() -> pb.BotMessage:
            message = await receive()
            recorder.received(message)
            return message

        connection.send = recording_send  # type: ignore[method-assign]  # the stream records what passes
        connection.receive = recording_receive  # type: ignore[method-assign]  # the stream records what passes
        return connection

    async def aclose(self) -> None:
        await self._inner.aclose()


async def fingerprint(
    open_bot: OpenBot,
    *,
    hands: int = 60,
    seed: int,
    deal_key: str,
    config: GameConfig | None = None,
    action_timeout: float = ACTION_TIMEOUT,
) -> Fingerprint:
    """Play ``hands`` heads-up hands of the version against :data:`HOUSE` and return
    what it answered at each decision.

    ``seed`` and ``deal_key`` (64 hex digits) fix every deck and seat seed, so each
    version meets the same hands: the caller keeps both for the whole ladder. The
    version sits in seat 0; the button alternates, so it plays both positions.
    """
    settings = MatchSettings(
        config=config or GameConfig(),
        hands=hands,
        seed=seed,
        deal_key=deal_key,
        action_timeout=action_timeout,
        reconnect=False,
        match_id="copy-check",
    )
    recorder = _Recorder()
    house = make_bot(f"house-{HOUSE}", "builtin", HOUSE)
    async with (
        open_bot() as driver,
        open_builtin_bot(house, DriverContext(seed=seed)) as opponent,
    ):
        await run_match([_RecordingDriver(driver, recorder), opponent], settings)
    return recorder.tokens()


def _by_hand(tokens: Fingerprint) -> dict[str, list[str]]:
    hands: dict[str, list[str]] = {}
    for token in tokens:
        hand, _, rest = token.partition(":")
        hands.setdefault(hand, []).append(rest)
    return hands


def agreement(a: Fingerprint, b: Fingerprint) -> float:
    """The share of the decision points both versions reached where they answered alike.

    Within a hand the two are compared decision by decision up to and including the
    first one where they differ (in place or answer): after it the situations differ,
    so later answers say nothing of copying. Hands only one of them was asked in are
    left out. 1.0: the same answer everywhere both were; 0.0 when no decision point was
    shared (no evidence either way, and no flag).
    """
    hands_a, hands_b = _by_hand(a), _by_hand(b)
    same = compared = 0
    for hand in hands_a.keys() & hands_b.keys():
        for one, other in zip(hands_a[hand], hands_b[hand], strict=False):
            compared += 1
            if one != other:
                break
            same += 1
    return same / compared if compared else 0.0


@dataclass(frozen=True)
class CopyEntry:
    """One accepted version as the copy check sees it: its fingerprint and its folder
    (``None``: the source is not at hand, compare behaviour only)."""

    team: str
    version: int
    fingerprint: Fingerprint
    folder: Path | None


@dataclass(frozen=True)
class CopyFlag:
    """Two versions of different teams that look like one bot, and by how much."""

    team_a: str
    version_a: int
    team_b: str
    version_b: int
    kind: Literal["behaviour", "source"]
    score: float


def find_copies(
    entries: Sequence[CopyEntry],
    *,
    behaviour_threshold: float = 0.98,
    source_threshold: float = 0.9,
    ignore: Collection[str] = (),
) -> list[CopyFlag]:
    """Every pair of versions of *different* teams whose fingerprints agree at least
    ``behaviour_threshold``, or whose sources are at least ``source_threshold`` similar
    (``ignore``: sha256s of template files both may ship, see
    :func:`source_similarity`); a team is never compared with itself.

    Two teams that both ship the unchanged template are flagged too (they do play the
    same bot): the organiser reads the flags and decides.
    """
    shingles = {
        id(entry): source_shingles(entry.folder, ignore)
        for entry in entries
        if entry.folder is not None
    }  # each folder read once, however many pairs it is in
    flags: list[CopyFlag] = []
    for one, other in combinations(entries, 2):
        if one.team == other.team:
            continue
        pair = (one.team, one.version, other.team, other.version)
        played = agreement(one.fingerprint, other.fingerprint)
        if played >= behaviour_threshold:
            flags.append(CopyFlag(*pair, kind="behaviour", score=played))
        if id(one) in shingles and id(other) in shingles:
            written = jaccard(shingles[id(one)], shingles[id(other)])
            if written >= source_threshold:
                flags.append(CopyFlag(*pair, kind="source", score=written))
    return flags


# --- the source similarity ---------------------------------------------------------

SOURCE_BUDGET = 2 * 1024 * 1024
"""Bytes of source read per folder at most: a huge upload is compared on its first
files (in sorted order) instead of stalling the check."""

SHINGLE = 8
"""Tokens per shingle: long enough that unrelated code in one language shares few."""

_HASH, _SLASH, _DASH = "#", "//", "--"
_STYLES = {
    _HASH: ".py .rb .sh .pl .r .jl .nim .ex .exs",
    _SLASH: ".c .h .cc .cpp .cxx .hpp .hh .java .kt .js .mjs .cjs .ts .go .rs .cs .swift"
    " .scala .dart .zig .php",
    _DASH: ".lua .hs .sql .ml",
}
SOURCE_SUFFIXES: dict[str, str] = {
    suffix: style for style, suffixes in _STYLES.items() for suffix in suffixes.split()
}
"""The files read as source, by suffix, with their comment style."""

SKIP_DIRS = frozenset(
    {".git", "node_modules", "build", "dist", "target", "out", "bin", "obj", "__pycache__"}
    | {".venv", "venv", "vendor", "_generated", ".gradle", ".mypy_cache", ".pytest_cache"}
)
"""Folders of dependencies and build output: not the team's own writing."""

_GENERATED = re.compile(r"(_pb2(_grpc)?\.py|\.pb\.(go|cc|h)|_pb\.js|\.min\.js)$")
_COMMENTS = {
    _HASH: re.compile(r"#[^\n]*|\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''"),  # docstrings too
    _SLASH: re.compile(r"//[^\n]*|/\*[\s\S]*?\*/"),
    _DASH: re.compile(r"--[^\n]*|\{-[\s\S]*?-\}|\(\*[\s\S]*?\*\)"),
}
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|[^\sA-Za-z0-9_]")
_WORDS = (
    "and as assert async await break case catch char class const continue def default"
    " del delete do double elif else enum except extern false final finally float fn for"
    " from func function global go if impl import in int interface is lambda let long"
    " loop match mod mut namespace new nil none not null or package pass private"
    " protected pub public raise return self short static string struct super switch"
    " this throw true try type typedef union unsigned use using var void while with"
    " yield include define std vector map"
)
_KEYWORDS = frozenset(_WORDS.split())
"""Words kept as they are in a shingle; every other name becomes its place of first
use within the shingle, so renaming variables consistently changes nothing."""


def _source_files(folder: Path, ignore: Collection[str]) -> Iterator[tuple[str, str]]:
    """(suffix, text) of each source file under ``folder``, in sorted order, within
    :data:`SOURCE_BUDGET` bytes; never following a link."""
    budget = SOURCE_BUDGET
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            path = Path(root, name)
            suffix = path.suffix.lower()
            if suffix not in SOURCE_SUFFIXES or _GENERATED.search(name) or path.is_symlink():
                continue
            with contextlib.suppress(OSError), path.open("rb") as handle:
                data = handle.read(budget)
                budget -= len(data)
                if hashlib.sha256(data).hexdigest() not in ignore:
                    yield suffix, data.decode("utf-8", "replace")
            if budget <= 0:
                return


def _shingles_of(suffix: str, text: str) -> set[int]:
    text = _COMMENTS[SOURCE_SUFFIXES[suffix]].sub(" ", text)
    tokens = _TOKEN.findall(text)
    found: set[int] = set()
    for start in range(len(tokens) - SHINGLE + 1):
        names: dict[str, str] = {}
        window = []
        for token in tokens[start : start + SHINGLE]:
            if (token[0].isalpha() or token[0] == "_") and token.lower() not in _KEYWORDS:
                token = names.setdefault(token, f"\x00{len(names)}")
            window.append(token)
        digest = hashlib.blake2b("\x1f".join(window).encode(), digest_size=8).digest()
        found.add(int.from_bytes(digest, "big"))
    return found


def source_shingles(folder: Path, ignore: Collection[str] = ()) -> frozenset[int]:
    """The shingles of a bot folder's own source: comments and layout removed, names
    made anonymous, each run of :data:`SHINGLE` tokens hashed.

    Skips dependency and build folders, generated gRPC stubs, links, and files whose
    sha256 (of their bytes) is in ``ignore``: the files every ``arena new-bot`` template
    ships identically, which would make any two bots of one language look alike.
    """
    shingles: set[int] = set()
    for suffix, text in _source_files(folder, ignore):
        shingles |= _shingles_of(suffix, text)
    return frozenset(shingles)


def jaccard(a: Collection[int], b: Collection[int]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 when both are empty (nothing to compare is no evidence)."""
    union = len(set(a) | set(b))
    return len(set(a) & set(b)) / union if union else 0.0


def source_similarity(folder_a: Path, folder_b: Path, ignore: Collection[str] = ()) -> float:
    """The Jaccard similarity of two bot folders' :func:`source_shingles`: 1.0 for the
    same code however renamed, commented or laid out; near 0 for bots written apart."""
    return jaccard(source_shingles(folder_a, ignore), source_shingles(folder_b, ignore))
