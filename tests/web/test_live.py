"""The live spectator hub and app (issue 10 item 3), in process: no socket, no browser.

A stuck viewer never slows a hand (publishing is synchronous and never waits; a full
queue drops the viewer), ``Last-Event-ID`` resumes from the backlog, the director's view
needs its token and holds cards only of hands that ended.
"""

from __future__ import annotations

import inspect
import json
import random
import re
from types import SimpleNamespace
from typing import Any

import pytest
import trio
from _asgi import get

from arena.engine import Deck, GameConfig, Hand
from arena.web import LiveApp, LiveHub
from arena.web._hub import (
    BACKLOG_SIZE,
    FINISHED_TABLES_KEPT,
    MAX_PER_CLIENT,
    MAX_VIEWERS,
    QUEUE_SIZE,
    Channel,
    TooManyViewers,
)

pytestmark = pytest.mark.trio


def stub_view(hand: Any, seats: Any, names: Any, *, number: int, reveal: bool = False) -> dict:
    """A stand-in for public_hand: says which view it is, and the names it was given."""
    return {"number": number, "reveal": reveal, "seats": [{"name": n} for n in names]}


def hand_events(response) -> list[tuple[int | None, str, Any]]:
    return [e for e in response.events() if e[1] == "hand"]


class TestPublishing:
    async def test_item3_stuck_viewer_never_delays_publishing_and_is_dropped(self):
        """10,000 hands published with a viewer that never reads: every publish returns
        at once (it is a plain function: it cannot wait), all are numbered in order, and
        the stuck viewer is dropped when its queue is full, its stream cancelled."""
        hub = LiveHub(view=stub_view)
        assert not inspect.iscoroutinefunction(hub.hand_finished)
        stuck, _ = hub.public.attach(None)
        for number in range(1, 10_001):
            hub.hand_finished("t1", number, None, [0, 1], ["a", "b"])
        assert hub.public.seq == 10_000 and hub.director.seq == 10_000
        assert stuck.dropped and stuck not in hub.public.viewers
        assert hub.public.dropped == 1
        assert stuck.scope.cancel_called
        ids = [event.id for event in hub.public.backlog]
        assert ids == list(range(10_001 - BACKLOG_SIZE, 10_001))
        queued = []
        while True:  # what it had queued before the drop: the first QUEUE_SIZE, in order
            try:
                queued.append(stuck.receive.receive_nowait().id)
            except (trio.WouldBlock, trio.EndOfChannel):
                break
        assert queued == list(range(1, QUEUE_SIZE + 1))

    async def test_item3_a_viewer_that_keeps_up_gets_every_event_in_order(self):
        hub = LiveHub(view=stub_view)
        viewer, catch_up = hub.public.attach(None)
        assert [e.kind for e in catch_up] == ["snapshot"]
        got = []
        for number in range(1, 2_001):
            hub.hand_finished("t1", number, None, [0, 1], ["a", "b"])
            got.append(viewer.receive.receive_nowait().id)
        assert got == list(range(1, 2_001)) and not viewer.dropped

    async def test_item3_a_failing_view_is_counted_never_raised(self):
        """A bug in the view (or a hand that is not over) must not stop the match."""

        def broken(*args: Any, **kwargs: Any) -> dict:
            raise RuntimeError("boom")

        hub = LiveHub(view=broken)
        hub.hand_finished("t1", 1, None, [0, 1], ["a", "b"])
        assert hub.errors == 1 and hub.public.seq == 0 and hub.director.seq == 0

    async def test_item3_finished_tables_in_the_snapshot_are_bounded(self):
        hub = LiveHub(view=stub_view)
        for k in range(FINISHED_TABLES_KEPT + 30):
            hub.match_started(f"m{k}", ["a", "b"])
            hub.match_finished(f"m{k}", [{"name": "a", "chips_won": 1}])
        hub.match_started("playing", ["a", "b"])
        snapshot = hub.public.snapshot()
        assert snapshot.data.count('"state":"finished"') == FINISHED_TABLES_KEPT
        assert '"playing"' in snapshot.data


class TestResume:
    async def test_item3_last_event_id_resumes_from_the_backlog(self):
        hub = LiveHub(view=stub_view)
        for number in range(1, 6):
            hub.hand_finished("t1", number, None, [0, 1], ["a", "b"])
        channel = hub.public
        assert [e.id for e in channel.attach("3")[1]] == [4, 5]
        assert channel.attach("5")[1] == []
        for bad in (None, "", "abc", "-1", "99", "1" * 40, " 3x"):
            assert [e.kind for e in channel.attach(bad)[1]] == ["snapshot"], bad

    async def test_item3_a_gap_the_backlog_lost_gets_a_snapshot(self):
        hub = LiveHub(view=stub_view)
        for number in range(1, BACKLOG_SIZE + 20):
            hub.hand_finished("t1", number, None, [0, 1], ["a", "b"])
        (event,) = hub.public.attach("10")[1]
        assert event.kind == "snapshot" and event.id == hub.public.seq
        assert f'"number":{BACKLOG_SIZE + 19}' in event.data  # the table's last hand

    async def test_item3_resume_over_http_sends_only_what_was_missed(self):
        hub = LiveHub(view=stub_view)
        app = LiveApp(hub, token="t")
        for number in range(1, 6):
            hub.hand_finished("t1", number, None, [0, 1], ["a", "b"])

        def has_two(response) -> bool:
            return len(response.events()) >= 2

        response = await get(app, "/events", headers=(("Last-Event-ID", "3"),), until=has_two)
        assert response.status == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert [(i, kind) for i, kind, _ in response.events()] == [(4, "hand"), (5, "hand")]
        assert hub.public.viewers == set()  # a viewer that left is detached


class TestDirector:
    @pytest.mark.parametrize("path", ["/director", "/director/events"])
    @pytest.mark.parametrize(
        "query", ["", "token=", "token=wrong", "token=secret&token=secret", "Token=secret"]
    )
    async def test_item3_director_refuses_a_missing_or_wrong_token(self, path, query):
        app = LiveApp(LiveHub(view=stub_view), token="secret")
        response = await get(app, path, query=query)
        assert response.status == 403
        assert b"secret" not in response.body

    async def test_item3_director_with_the_token_gets_every_card_public_does_not(self):
        hub = LiveHub(view=stub_view)
        app = LiveApp(hub, token="secret")
        hub.hand_finished("t1", 1, None, [0, 1], ["a", "b"])
        one = lambda response: len(response.events()) >= 1  # noqa: E731
        director = await get(app, "/director/events", query="token=secret", until=one)
        public = await get(app, "/events", until=one)
        assert director.status == 200
        (_, _, snap_d), (_, _, snap_p) = director.events()[0], public.events()[0]
        assert snap_d["tables"][0]["last"]["reveal"] is True
        assert snap_p["tables"][0]["last"]["reveal"] is False
        page = await get(app, "/director", query="token=secret")
        assert page.status == 200 and b"Director" in page.body

    async def test_item3_director_never_sends_a_card_of_an_unfinished_hand(self):
        """The hub holds no hand until it ended: a hand in play is refused by the view
        (public_hand needs a finished hand), and nothing reaches either channel."""
        from arena.web import public_hand

        hub = LiveHub(view=public_hand)
        hand = Hand(GameConfig(), [100, 100], 0, Deck.shuffled(random.Random(1)))
        assert not hand.is_over
        director, _ = hub.director.attach(None)
        hub.hand_finished("t1", 1, hand, [0, 1], ["a", "b"])
        assert hub.director.seq == 0 and hub.errors == 1
        with pytest.raises(trio.WouldBlock):
            director.receive.receive_nowait()


class TestPage:
    async def test_item3_page_is_self_contained_with_a_nonce_csp(self):
        app = LiveApp(LiveHub(view=stub_view), token="secret")
        response = await get(app, "/")
        assert response.status == 200
        html = response.body.decode()
        csp = response.headers["content-security-policy"]
        nonce = re.search(r"'nonce-([^']+)'", csp).group(1)
        assert "default-src 'none'" in csp and "connect-src 'self'" in csp
        assert f'<script nonce="{nonce}">' in html and f'<style nonce="{nonce}">' in html
        assert not re.search(r"\b(src|href)\s*=", html)  # nothing fetched from anywhere
        assert "secret" not in html  # the public page never holds the director's token
        assert "EventSource" in html and "/events" in html
        assert "innerHTML" not in html  # bot text is only ever put in with textContent

    async def test_item3_bot_names_reach_the_stream_inert(self):
        """A name with markup or control characters is escaped (escape_untrusted) and
        its '<' written \\u003c, so the JSON is inert even inside a <script>."""
        hub = LiveHub(view=stub_view)
        hub.match_started("t<1>", ["<script>alert(1)</script>", "bell\x07\u202e"])
        response = await get(LiveApp(hub), "/events", until=lambda r: len(r.events()) >= 1)
        assert b"<" not in response.body.split(b"\n\n", 1)[1]
        (_, _, snapshot) = response.events()[0]
        assert snapshot["tables"][0]["names"] == ["<script>alert(1)</script>", "bell\\x07\\u202e"]

    async def test_item3_unknown_paths_methods_and_too_many_viewers(self):
        hub = LiveHub(view=stub_view, max_viewers=1)
        app = LiveApp(hub)
        assert (await get(app, "/nope")).status == 404
        assert (await get(app, "/", method="POST")).status == 405
        hub.public.attach(None)
        assert (await get(app, "/events")).status == 503
        assert (await get(app, "/")).status == 200


class TestStandings:
    @staticmethod
    def rows(elo: float) -> tuple:
        fit = SimpleNamespace(elo=elo, ci95=12.5)
        rate = SimpleNamespace(mbb_per_hand=-3.0, ci95=float("inf"))
        return (SimpleNamespace(bot="<b>", fit=fit, win_rate=rate, matches=1, hands=9, faults=0),)

    async def test_item3_follow_standings_sends_each_new_leaderboard_once(self, autojump_clock):
        """The tournament's refits reach the page from a polling task, each only once."""
        from arena.cli._watch import follow_standings

        hub = LiveHub(view=stub_view)
        latest: list = [None]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(follow_standings, hub, lambda: latest[0])
            await trio.sleep(5)
            latest[0] = SimpleNamespace(rows=self.rows(1010.0))
            await trio.sleep(5)
            latest[0] = SimpleNamespace(rows=self.rows(990.0))
            await trio.sleep(5)
            nursery.cancel_scope.cancel()
        kinds = [json.loads(e.data) for e in hub.public.backlog if e.kind == "standings"]
        assert [k["rows"][0]["elo"] for k in kinds] == [1010.0, 990.0]
        assert kinds[0]["rows"][0] == {
            "bot": "<b>", "elo": 1010.0, "elo_ci": 12.5, "mbb": -3.0, "mbb_ci": None,
            "matches": 1, "hands": 9, "faults": 0,
        }  # fmt: skip
        assert '"standings":[{"bot":"\\u003cb>"' in hub.public.snapshot().data


class TestEnd:
    async def test_item3_closing_the_hub_ends_each_stream_with_an_end_event(self):
        """When the match ends the page is told so (it stops reconnecting), after every
        event it had not yet been sent."""
        hub = LiveHub(view=stub_view)
        app = LiveApp(hub)
        responses = []

        async def watch() -> None:
            responses.append(await get(app, "/events"))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            while not hub.public.viewers:
                await trio.sleep(0)
            hub.hand_finished("t1", 1, None, [0, 1], ["a", "b"])
            hub.close()
        kinds = [kind for _, kind, _ in responses[0].events()]
        assert kinds == ["snapshot", "hand", "end"]
        assert hub.public.viewers == set()


@pytest.mark.parametrize("last_event_id", ["\u00b2", "\u0663", "-1", "1e3", " 12 x"])
async def test_a_last_event_id_that_is_not_ascii_digits_gets_a_snapshot_and_leaks_no_slot(
    last_event_id,
):
    """Audit: '²' is a digit to str.isdigit but not to int(): it made a 500 after the
    viewer took a slot, so 64 such requests shut every spectator out."""
    channel = Channel(max_viewers=2)
    for _ in range(5):
        viewer, first = channel.attach(last_event_id)
        assert [event.kind for event in first] == ["snapshot"]
        channel.detach(viewer)
    assert channel.viewers == set()


async def test_item9f_one_address_cannot_take_every_viewer_slot():
    """Issue 19 item 9f: 64 viewers from one address that keep reading used to lock every
    other spectator out; each address now has a bounded share of a channel's slots, an
    IPv6 /64 counting as one address (one host has a whole /64 to pick from)."""
    hub = LiveHub(view=stub_view)
    app = LiveApp(hub)
    channel = hub.public
    taken = 0
    with pytest.raises(TooManyViewers):
        for _ in range(MAX_VIEWERS):
            channel.attach(None, client="203.0.113.7")
            taken += 1
    assert taken == MAX_PER_CLIENT < MAX_VIEWERS
    assert (await get(app, "/events", client="203.0.113.7")).status == 503
    other = await get(app, "/events", client="198.51.100.1", until=lambda r: r.events())
    assert other.status == 200
    for suffix in range(MAX_PER_CLIENT):
        channel.attach(None, client=f"2001:db8:1:2::{suffix + 1:x}")
    with pytest.raises(TooManyViewers):
        channel.attach(None, client="2001:db8:1:2:ffff::1")  # same /64
    channel.attach(None, client="2001:db8:1:3::1")  # another /64
    # the director's channel has its own slots and shares
    hub.director.attach(None, client="203.0.113.7")


async def test_item9f_a_viewer_that_leaves_gives_its_address_slot_back():
    channel = Channel(max_viewers=4, max_per_client=2)
    first, _ = channel.attach(None, client="192.0.2.1")
    channel.attach(None, client="192.0.2.1")
    with pytest.raises(TooManyViewers):
        channel.attach(None, client="192.0.2.1")
    channel.detach(first)
    channel.detach(first)  # twice: counted once
    channel.attach(None, client="192.0.2.1")
    with pytest.raises(TooManyViewers):
        channel.attach(None, client="192.0.2.1")
    channel.attach(None, client="192.0.2.2")
    channel.attach(None)  # no address known (a unix socket): a share of its own
    with pytest.raises(TooManyViewers):
        channel.attach(None, client="192.0.2.3")  # all 4 slots taken
