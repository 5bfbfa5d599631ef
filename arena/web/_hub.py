"""The live hub: what the dealer's callbacks publish, and what each spectator is sent.

Publishing is synchronous and never waits: every event gets the next sequence number,
goes into a bounded backlog (for ``Last-Event-ID`` resumes) and into each viewer's
bounded queue; a viewer whose queue is full is dropped (its stream is cancelled; the
browser reconnects and resumes from the backlog). So no viewer, however slow or stuck,
can slow a hand, and a view that fails is counted and skipped, never raised into a match.

Each channel has :data:`MAX_VIEWERS` slots, and each client address at most
:data:`MAX_PER_CLIENT` of them (an IPv6 /64 counts as one address), so viewers from one
address, however well they read, cannot lock every other spectator out.

Two channels: the public one (only what a spectator may see: cards shown at showdown),
and the director's (every card, sent only when :meth:`LiveHub.hand_finished` is called,
that is after the hand ended). With a spectator ``delay`` every public event is held
that many seconds before it is published (:meth:`LiveHub.release_due`, run by
:meth:`LiveHub.run_delay`), so nothing a spectator sees, a card least of all, is less
than ``delay`` old; the director's channel is not delayed.
"""

from __future__ import annotations

import collections
import ipaddress
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
import trio

from arena.text import escape_untrusted
from arena.web._faults import rotation_names
from arena.web._public import public_hand

QUEUE_SIZE = 256
"""Events a viewer may fall behind by before it is dropped."""
BACKLOG_SIZE = 1024
"""Events kept for ``Last-Event-ID`` resumes."""
MAX_VIEWERS = 64
"""Streams open at once per channel; more are refused (503), so viewers cannot exhaust memory."""
MAX_PER_CLIENT = 16
"""Streams open at once per channel from one client address (an IPv6 /64); more are 503."""
FINISHED_TABLES_KEPT = 16
"""Finished tables kept in the snapshot a new viewer gets (a tournament plays thousands)."""

_log = structlog.get_logger(__name__)


class TooManyViewers(Exception):
    """The channel already streams to :data:`MAX_VIEWERS` viewers, or to its share of
    them (:data:`MAX_PER_CLIENT`) at the client's address."""


def client_key(host: str | None) -> str:
    """Whose share a viewer from ``host`` takes: the address, an IPv6 address's /64
    (one host is given a whole /64), "" when the server knows none (a unix socket)."""
    if not host:
        return ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """One Server-Sent Event: its sequence number, its kind and its JSON data."""

    id: int
    kind: str
    data: str

    def encode(self) -> bytes:
        """The event on the wire (the JSON holds no raw newline: one ``data:`` line)."""
        return f"id: {self.id}\nevent: {self.kind}\ndata: {self.data}\n\n".encode()


def _json(payload: object) -> str:
    """Compact JSON, ``<`` escaped so it is inert even if pasted inside a ``<script>``."""
    return json.dumps(payload, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


class Viewer:
    """One open stream: a bounded queue of events and the scope that ends its stream."""

    def __init__(self, size: int, client: str = "") -> None:
        self.send, self.receive = trio.open_memory_channel[LiveEvent](size)
        self.scope = trio.CancelScope()
        self.dropped = False
        self.client = client  # whose share it takes (:func:`client_key`)


class Channel:
    """One stream of events (public or director) with its sequence numbers and backlog."""

    def __init__(
        self,
        *,
        queue_size: int = QUEUE_SIZE,
        backlog: int = BACKLOG_SIZE,
        max_viewers: int = MAX_VIEWERS,
        max_per_client: int = MAX_PER_CLIENT,
    ) -> None:
        self.seq = 0
        self.backlog: collections.deque[LiveEvent] = collections.deque(maxlen=backlog)
        self.viewers: set[Viewer] = set()
        self.dropped = 0
        self._queue_size = queue_size
        self._max_viewers = max_viewers
        self._max_per_client = max_per_client
        self._per_client: collections.Counter[str] = collections.Counter()
        self._tables: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()
        self._standings: list[dict[str, Any]] = []

    def publish(self, kind: str, payload: dict[str, Any]) -> LiveEvent:
        """Number, keep and queue one event for every viewer; never waits."""
        self._remember(kind, payload)
        self.seq += 1
        event = LiveEvent(self.seq, kind, _json(payload))
        self.backlog.append(event)
        for viewer in list(self.viewers):
            try:
                viewer.send.send_nowait(event)
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                self.drop(viewer)
        return event

    def drop(self, viewer: Viewer) -> None:
        """End a viewer's stream now (it fell too far behind)."""
        if viewer in self.viewers:
            self._forget(viewer)
            self.dropped += 1
        viewer.dropped = True
        viewer.send.close()
        viewer.scope.cancel()

    def attach(
        self, last_event_id: str | None, *, client: str | None = None
    ) -> tuple[Viewer, list[LiveEvent]]:
        """A new viewer from address ``client``, and what it must be sent first: the
        events after ``last_event_id`` when the backlog still holds them all, else a
        snapshot. :class:`TooManyViewers` when the channel or the address's share is full."""
        key = client_key(client)
        if len(self.viewers) >= self._max_viewers:
            raise TooManyViewers
        if self._per_client[key] >= self._max_per_client:
            raise TooManyViewers
        catch_up = self._since(last_event_id)  # first: nothing may fail after the slot is taken
        viewer = Viewer(self._queue_size, key)
        self.viewers.add(viewer)
        self._per_client[key] += 1
        return viewer, catch_up

    def detach(self, viewer: Viewer) -> None:
        if viewer in self.viewers:
            self._forget(viewer)
        viewer.send.close()

    def _forget(self, viewer: Viewer) -> None:
        self.viewers.discard(viewer)
        self._per_client[viewer.client] -= 1
        if self._per_client[viewer.client] <= 0:
            del self._per_client[viewer.client]

    def close(self) -> None:
        """End every stream once it has sent what it holds (the server is stopping; the
        server's graceful timeout ends any stream that cannot)."""
        for viewer in list(self.viewers):
            self.detach(viewer)

    def snapshot(self) -> LiveEvent:
        """The state now (tables, their last hand, the leaderboard) under the current id."""
        payload = {"tables": list(self._tables.values()), "standings": self._standings}
        return LiveEvent(self.seq, "snapshot", _json(payload))

    def _since(self, last_event_id: str | None) -> list[LiveEvent]:
        last = _event_id(last_event_id)
        if last is None or last > self.seq:
            return [self.snapshot()]
        if last == self.seq:
            return []
        if not self.backlog or self.backlog[0].id > last + 1:
            return [self.snapshot()]  # a gap the backlog no longer covers
        return [event for event in self.backlog if event.id > last]

    def _remember(self, kind: str, payload: dict[str, Any]) -> None:
        if kind == "standings":
            self._standings = payload["rows"]
            return
        table = payload.get("table")
        if not isinstance(table, str):
            return
        state = self._tables.setdefault(table, {"table": table, "names": [], "state": "playing"})
        if kind == "match_started":
            state.update(names=payload["names"], state="playing", hands=0, last=None)
        elif kind == "hand":
            state.update(
                hands=payload["hand"].get("number"),
                last=payload["hand"],
                score=payload.get("score"),
            )
        elif kind == "match_finished":
            state.update(state="finished", result=payload.get("result"))
            self._tables.move_to_end(table)
            finished = [key for key, value in self._tables.items() if value["state"] == "finished"]
            for key in finished[:-FINISHED_TABLES_KEPT]:
                del self._tables[key]


def _event_id(text: str | None) -> int | None:
    text = None if text is None else text.strip()
    # ASCII digits only: str.isdigit() is True for '²', which int() refuses
    if not text or not (text.isascii() and text.isdigit()) or len(text) > 18:
        return None
    return int(text.strip())


def _safe(text: object) -> str:
    return escape_untrusted(str(text), one_line=True)


HandView = Callable[..., dict]


class LiveHub:
    """What the dealer-side callbacks feed; the live app streams its two channels.

    ``delay``: seconds every public event is held before spectators get it (0: none);
    ``clock``: what tells the time for it (Trio's clock by default).
    """

    def __init__(
        self,
        *,
        view: HandView | None = None,
        delay: float = 0.0,
        clock: Callable[[], float] | None = None,
        **channel_options: int,
    ) -> None:
        self.public = Channel(**channel_options)
        self.director = Channel(**channel_options)
        self.errors = 0
        self.delay = max(0.0, float(delay))
        self._clock = clock or trio.current_time
        self._held: collections.deque[tuple[float, str, dict[str, Any]]] = collections.deque()
        self._view = view or public_hand
        self._last_rows: object = None
        self._names: dict[str, list[str]] = {}  # each table's bots, as match_started named them
        self._scores: dict[str, dict[str, int]] = {}  # each table's chips won so far, by bot

    @property
    def channels(self) -> tuple[Channel, Channel]:
        return (self.public, self.director)

    def _publish(self, kind: str, payload: dict[str, Any]) -> None:
        """To the director now; to the spectators now or, with a delay, when it is due."""
        self.director.publish(kind, payload)
        if self.delay > 0:
            self._held.append((self._clock() + self.delay, kind, payload))
        else:
            self.public.publish(kind, payload)

    @property
    def held(self) -> int:
        """Public events waiting out the spectator delay."""
        return len(self._held)

    def release_due(self) -> float | None:
        """Publish the held events whose delay is over; seconds until the next (None: none)."""
        now = self._clock()
        while self._held and self._held[0][0] <= now:
            _, kind, payload = self._held.popleft()
            self.public.publish(kind, payload)
        return self._held[0][0] - now if self._held else None

    async def run_delay(self) -> None:
        """Release the held events as they come due (run for as long as the page serves)."""
        while True:
            wait = self.release_due()
            await trio.sleep(0.25 if wait is None else min(max(wait, 0.0), 0.25))

    def match_started(self, table_id: str, names: Sequence[str]) -> None:
        """A table starts playing ``names`` (seat order)."""
        shown = [_safe(name) for name in names]
        self._names[_safe(table_id)] = shown
        self._scores[_safe(table_id)] = dict.fromkeys(shown, 0)
        self._publish("match_started", {"table": _safe(table_id), "names": shown})

    def hand_finished(
        self, table_id: str, number: int, hand: Any, seats: Sequence[int], names: Sequence[str]
    ) -> None:
        """Publish a finished hand: the spectator's view, and every card to the director.

        A duplicate rotation's players (``NAME.k``) are shown by their bots' names, and
        each hand carries the table's running score (chips won so far, by bot)."""
        table = _safe(table_id)
        bots, rotation = rotation_names([str(n) for n in names], self._names.get(table, ()))
        extra: dict[str, Any] = {"rotation": rotation} if rotation is not None else {}
        try:
            public = self._view(hand, seats, bots, number=number, **extra)
            revealed = self._view(hand, seats, bots, number=number, reveal=True, **extra)
        except Exception as error:  # a view bug must never stop a match
            self.errors += 1
            _log.warning("live_view_failed", table=table, error=repr(error))
            return
        score = self._score(table, public)
        self.director.publish("hand", {"table": table, "hand": revealed, "score": score})
        payload = {"table": table, "hand": public, "score": score}
        if self.delay > 0:
            self._held.append((self._clock() + self.delay, "hand", payload))
        else:
            self.public.publish("hand", payload)

    def _score(self, table: str, view: dict[str, Any]) -> list[dict[str, Any]]:
        """The table's chips won so far by bot, this hand's result added."""
        score = self._scores.setdefault(table, {})
        by_seat = {s.get("seat"): s.get("name") for s in view.get("seats", ())}
        for row in view.get("result", ()):
            name = by_seat.get(row.get("seat"))
            if isinstance(name, str) and isinstance(row.get("net"), int):
                score[name] = score.get(name, 0) + row["net"]
        return [{"name": name, "chips": chips} for name, chips in score.items()]

    def match_finished(self, table_id: str, result: Iterable[dict[str, Any]] = ()) -> None:
        """A table is done; ``result`` rows (name, chips won) are shown as they are."""
        rows = [{key: _plain(value) for key, value in row.items()} for row in result]
        self._publish("match_finished", {"table": _safe(table_id), "result": rows})

    def standings(self, rows: Iterable[Any]) -> None:
        """The tournament's live leaderboard (:class:`arena.tournament.Standing` rows)."""
        if rows is self._last_rows:
            return  # the same leaderboard object: already sent
        self._last_rows = rows
        self._publish("standings", {"rows": [standing_row(row) for row in rows]})

    def close(self) -> None:
        """Tell every viewer the show is over (the page stops reconnecting), end the streams.
        Events still held by the delay are dropped: they were never due."""
        self._held.clear()
        for channel in self.channels:
            channel.publish("end", {})
            channel.close()


def _plain(value: object) -> object:
    if isinstance(value, bool | int) or value is None:
        return value
    if isinstance(value, float):
        return round(value, 3) if value == value and abs(value) != float("inf") else None
    return _safe(value)


def standing_row(row: Any) -> dict[str, Any]:
    """One leaderboard line as JSON: Elo and mbb/hand with their 95% half-widths."""
    return {
        "bot": _safe(row.bot),
        "elo": _plain(float(row.fit.elo)),
        "elo_ci": _plain(float(row.fit.ci95)),
        "mbb": _plain(float(row.win_rate.mbb_per_hand)),
        "mbb_ci": _plain(None if row.win_rate.ci95 is None else float(row.win_rate.ci95)),
        "matches": int(row.matches),
        "hands": int(row.hands),
        "faults": int(row.faults),
    }
