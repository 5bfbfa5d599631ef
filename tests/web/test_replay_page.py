"""The hand replayer page (issue 10 item 2): one self-contained page, spectator-safe by default.

The page is checked as a browser would read it: the embedded JSON is parsed back out of
the HTML, every attribute is looked at for a request, and bot names are looked for raw.
Stepping through it in a real browser is the browser tests' job (item 5).
"""

from __future__ import annotations

import json
import random
import stat
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from record_cards import card_strings

from arena.cli import cli
from arena.cli._app import _register
from arena.engine import (
    CALL,
    CardsDrawn,
    Deck,
    Discard,
    GameConfig,
    Hand,
    HandShown,
    HoleCardsDealt,
    Phase,
)
from arena.history import dumps_phhs, hand_to_phh
from arena.web import public_hand, render_replay, write_replay

HOSTILE = "<script>alert(1)</script>"
_register()  # the commands attach to the group lazily


class _Page(HTMLParser):
    """Every tag's attributes and the text of ``<script id="hands-data">``."""

    def __init__(self) -> None:
        super().__init__()
        self.attrs: list[tuple[str, str, str | None]] = []
        self.scripts: list[dict[str, str | None]] = []
        self._in_data = False
        self.data = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs.extend((tag, name, value) for name, value in attrs)
        if tag == "script":
            self.scripts.append(dict(attrs))
            self._in_data = dict(attrs).get("id") == "hands-data"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self.data += data


def _parse(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    parsed.close()
    return parsed


def _play(seed: int) -> Hand:
    """A three-handed hand with random legal play (folds, raises, draws)."""
    rng = random.Random(seed)
    hand = Hand(GameConfig(max_draw=5), [60, 80, 100], 2, Deck.shuffled(rng))
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.phase is Phase.DRAW:
            hole = list(hand.holes[legal.seat])
            rng.shuffle(hole)
            hand.apply(Discard(tuple(hole[: rng.randint(0, legal.max_discard)])))
        elif legal.can_raise and rng.random() < 0.3:
            hand.bet_or_raise(rng.randint(legal.min_raise_to, legal.max_raise_to))
        elif legal.can_fold and rng.random() < 0.15:
            hand.fold()
        else:
            hand.apply(CALL)
    return hand


NAMES = [HOSTILE, "Ks", "bob\u202e"]  # a tag, a name that reads as a card, a bidi override
HANDS = [_play(seed) for seed in range(25)]


def _records(*, reveal: bool) -> list[dict[str, Any]]:
    return [
        public_hand(hand, [4, 0, 2], NAMES, number=k + 1, reveal=reveal)
        for k, hand in enumerate(HANDS)
    ]


def test_r18_r19_spectator_page_holds_no_hidden_card() -> None:
    """R18, R19: the JSON a spectator's page embeds holds only cards shown at the table."""
    page = render_replay(_records(reveal=False), title="match", reveal=False)
    embedded = json.loads(_parse(page).data)
    shown = {str(c) for h in HANDS for e in h.events if type(e) is HandShown for c in e.cards}
    dealt = {str(c) for h in HANDS for e in h.events if type(e) is HoleCardsDealt for c in e.cards}
    assert card_strings(embedded) <= shown
    assert dealt - shown, "some cards were never shown: the test must be able to fail"
    assert "director's view" not in page


def test_reveal_page_holds_every_card_and_says_so() -> None:
    """--reveal: a director's replay holds every hole card and draw, under a visible banner."""
    page = render_replay(_records(reveal=True), title="match", reveal=True)
    embedded = json.loads(_parse(page).data)
    dealt = {str(c) for h in HANDS for e in h.events if type(e) is HoleCardsDealt for c in e.cards}
    dealt |= {str(c) for h in HANDS for e in h.events if type(e) is CardsDrawn for c in e.drawn}
    assert dealt <= card_strings(embedded)
    assert "director's view: every card" in page


def test_spectator_page_refuses_directors_records() -> None:
    """A page that claims the spectator's view cannot be given records holding every card."""
    with pytest.raises(ValueError, match="reveal"):
        render_replay(_records(reveal=True), title="match", reveal=False)


def test_bot_name_is_escaped_everywhere() -> None:
    """A bot named <script>alert(1)</script> is text in the HTML and cannot close the JSON's
    script element; the only scripts are the page's two."""
    page = render_replay(_records(reveal=False), title=HOSTILE, reveal=False)
    assert HOSTILE not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    parsed = _parse(page)
    assert [s.get("id") for s in parsed.scripts] == ["hands-data", None]
    embedded = json.loads(parsed.data)
    assert embedded[0]["seats"][0]["name"] == HOSTILE
    assert "\u202e" not in page  # escape_untrusted: no bidi override reaches the page


def test_page_is_self_contained() -> None:
    """No external src or href: nothing is fetched, and the CSP forbids any request."""
    page = render_replay(_records(reveal=True), title="match", reveal=True)
    parsed = _parse(page)
    fetching = {"src", "href", "action", "srcset", "poster", "data", "xlink:href", "formaction"}
    assert [a for a in parsed.attrs if a[1] in fetching] == []
    assert "http:" not in page and "https:" not in page and "url(" not in page
    csp = [v for tag, name, v in parsed.attrs if tag == "meta" and name == "content"]
    assert any(v and v.startswith("default-src 'none'") for v in csp)


def test_page_has_the_controls_and_live_region() -> None:
    """Item 2: keys Space, Left/Right, Home/End, a speed setting, a hand picker listing every
    hand, and a polite ARIA live region for each step's text."""
    page = render_replay(_records(reveal=False), title="match", reveal=False)
    for key in ('" "', '"ArrowRight"', '"ArrowLeft"', '"Home"', '"End"'):
        assert key in page
    parsed = _parse(page)
    assert ("p", "aria-live", "polite") in parsed.attrs
    assert ("select", "id", "speed") in parsed.attrs
    assert page.count('<option value="') - 4 == len(HANDS)  # the speed select has 4


def _phhs(folder: Path) -> Path:
    phhs = [
        hand_to_phh(hand, players=NAMES, seats=[4, 0, 2], hand_number=k + 1)
        for k, hand in enumerate(HANDS)
    ]
    path = folder / "hands.phhs"
    path.write_text(dumps_phhs(phhs), encoding="utf-8")
    return path


def test_write_replay_next_to_hands_phhs(tmp_path: Path) -> None:
    """write_replay writes replay.html beside hands.phhs, 0600 like every match record."""
    _phhs(tmp_path)
    path = write_replay(tmp_path)
    assert path == tmp_path / "replay.html"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    embedded = json.loads(_parse(path.read_text(encoding="utf-8")).data)
    assert [h["number"] for h in embedded] == list(range(1, len(HANDS) + 1))
    assert embedded[0]["steps"][-1]["stacks"] == list(HANDS[0].stacks)


def test_cli_replay_html(tmp_path: Path) -> None:
    """`arena replay --html FILE -o OUT [--reveal]` writes the page; plain replay still works."""
    source = _phhs(tmp_path)
    runner = CliRunner()
    out = tmp_path / "out.html"
    result = runner.invoke(cli, ["replay", "--html", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "25 hands, spectator's view" in result.output
    assert "director's view" not in out.read_text(encoding="utf-8")
    result = runner.invoke(cli, ["replay", "--html", "--reveal", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "director's view: every card" in out.read_text(encoding="utf-8")
    result = runner.invoke(cli, ["replay", str(source)])
    assert result.exit_code == 0 and "replayed 25 hands" in result.output


def test_cli_replay_html_refusals(tmp_path: Path) -> None:
    """--reveal or -o without --html, --html with --json or two files: usage errors."""
    source = _phhs(tmp_path)
    runner = CliRunner()
    for args in (
        ["--reveal", str(source)],
        ["-o", str(tmp_path / "x.html"), str(source)],
        ["--html", "--json", str(source)],
        ["--html", str(source), str(source)],
    ):
        result = runner.invoke(cli, ["replay", *args])
        assert result.exit_code == 2, (args, result.output)
    broken = tmp_path / "broken.phhs"
    broken.write_text("not toml [", encoding="utf-8")
    result = runner.invoke(cli, ["replay", "--html", str(broken), "-o", str(tmp_path / "b.html")])
    assert result.exit_code == 1 and "broken.phhs" in result.output
