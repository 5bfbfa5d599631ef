"""``arena report`` (issue 10 item 1): one self-contained HTML file from the database."""

from __future__ import annotations

import html
import random
import re
from html.parser import HTMLParser
from itertools import combinations
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli._app import _register, cli
from arena.dealer import FaultRecord
from arena.store._store import RatingUpdate, SeatResult
from arena.tournament import Store, compute_standings
from arena.web._report import ReportError, ReportRequest, render_report, replay_link, write_report

HOSTILE = "<script>alert(1)</script>"
BOTS = (HOSTILE, "alice", "bob", "carol", "dave", "eve", "frank", "grace & <b>co</b>")
KIND = "fixed_limit"


def build_database(path: Path, *, hands: int = 10_000, bots: tuple[str, ...] = BOTS) -> Path:
    """A round robin among ``bots`` with ``hands`` hands in all, written through the Store API."""
    rng = random.Random(7)
    pairs = list(combinations(bots, 2))
    per_match = hands // len(pairs)
    skill = {bot: k for k, bot in enumerate(bots)}
    with Store.open(path) as store:
        schedule = [
            {"key": f"m{k:03d}", "seats": list(pair), "hands": per_match, "seed": k}
            for k, pair in enumerate(pairs)
        ]
        tid = store.create_tournament("league", "{}", schedule)
        elo = dict.fromkeys(bots, 1000.0)
        for k, (a, b) in enumerate(pairs):
            edge = skill[a] - skill[b]  # later bots are better
            units = [rng.randint(-40, 40) + edge for _ in range(per_match)]
            seats = [
                SeatResult(
                    bot=a,
                    seat=0,
                    chips=sum(units),
                    hands=per_match,
                    faults=k % 3,
                    unit_chips=tuple(units),
                ),
                SeatResult(
                    bot=b,
                    seat=1,
                    chips=-sum(units),
                    hands=per_match,
                    unit_chips=tuple(-u for u in units),
                ),
            ]
            step = 8.0 if sum(units) > 0 else -8.0
            updates = [
                RatingUpdate(a, "elo", KIND, elo[a], elo[a] + step),
                RatingUpdate(b, "elo", KIND, elo[b], elo[b] - step),
            ]
            elo[a] += step
            elo[b] -= step
            faults = [
                FaultRecord(hand_number=1, seat=0, reason="TIMEOUT", detail=HOSTILE, applied="fold")
                for _ in range(k % 3)
            ]
            store.record_match(
                tid,
                f"m{k:03d}",
                game_type=KIND,
                big_blind=2,
                duplicate_block=1,
                result_summary={"hands_played": per_match, "reason": "completed"},
                seats=seats,
                records_dir=str(path.parent / "runs" / f"m{k:03d}"),
                rating_updates=updates,
                faults=faults,
            )
        store.finish_tournament(tid)
    return path


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_database(tmp_path_factory.mktemp("league") / "arena.db")


@pytest.fixture(scope="module")
def report(league: Path) -> str:
    out = league.parent / "report.html"
    write_report(league, ReportRequest(output=out))
    return out.read_text(encoding="utf-8")


class _Collector(HTMLParser):
    """Every start tag with its attributes, and every script's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self.scripts += tag == "script"


def _parsed(html: str) -> _Collector:
    collector = _Collector()
    collector.feed(html)
    return collector


def test_report_of_8_bots_and_10000_hands_is_under_300_kb(report: str):
    """Issue 10 item 1: long curves are decimated, so 8 bots and 10,000 hands stay under 300 KB."""
    size = len(report.encode("utf-8"))
    assert size < 300_000, size


def test_report_loads_nothing_from_outside(report: str):
    """Issue 10 item 1: no external src or href; the only hrefs are in-page anchors."""
    for tag, attrs in _parsed(report).tags:
        assert "src" not in attrs, tag
        href = attrs.get("href")
        assert href is None or href.startswith("#"), href
    assert "<link" not in report
    assert "@import" not in report and "url(" not in report


def test_a_bot_named_script_shows_as_text(report: str):
    """Issue 10 item 1: a bot named <script>alert(1)</script> is escaped everywhere."""
    assert _parsed(report).scripts == 0
    assert "<script" not in report.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    assert "<b>co</b>" not in report


def test_report_holds_every_section(report: str):
    """Leaderboard, Elo over time, bankroll, head to head with LOS, faults, bots, matches."""
    for heading in (
        "Leaderboard",
        "Over time",
        "Head to head",
        "Faults by reason",
        "Bots",
        "Matches",
    ):
        assert f">{heading}</h3>" in report
    for caption in ("Elo over time", "Bankroll: cumulative chips", "Likelihood of superiority"):
        assert f"<figcaption>{caption}</figcaption>" in report
    assert report.count('role="img"') >= 6 + len(BOTS)
    assert "TIMEOUT" in report
    for bot in ("alice", "grace &amp; &lt;b&gt;co&lt;/b&gt;"):
        assert f">{bot}</a>" in report  # the leaderboard links to the bot's section


def test_every_chart_has_title_desc_and_a_table(report: str):
    """Issue 10 item 1: each chart is an svg role=img with a title, a description and a table."""
    figures = re.findall(r'<figure class="chart".*?</figure>', report, flags=re.S)
    assert len(figures) == report.count('role="img"')
    for figure in figures:
        ident = re.search(r'id="([^"]+)"', figure).group(1)
        assert f'aria-labelledby="{ident}-t {ident}-d"' in figure
        assert f'<title id="{ident}-t">' in figure and f'<desc id="{ident}-d">' in figure
        assert "<table>" in figure


def test_leaderboard_matches_arena_ratings(league: Path, report: str):
    """The report ranks bots as ``arena ratings`` does (the same standings, best first)."""
    with Store.open(league, create=False) as store:
        expected = [row.bot for row in compute_standings(store, KIND).rows]
    board = report[report.index('class="leaderboard names"') : report.index("</table>")]
    names = re.findall(r'class="name"><a href="#[^"]+">([^<]+)</a>', board)
    assert [html.unescape(name) for name in names] == expected
    assert expected[0] == BOTS[-1] and expected[-1] == HOSTILE


def test_replay_links_are_relative_when_the_page_exists(tmp_path: Path):
    """Links to each match's replay page, relative to the report; none when it is missing."""
    db = build_database(tmp_path / "data" / "arena.db", hands=60, bots=("a", "b", "c"))
    runs = tmp_path / "data" / "runs"
    (runs / "m000").mkdir(parents=True)
    (runs / "m000" / "replay.html").write_text("<!DOCTYPE html>")
    out = tmp_path / "out" / "report.html"
    write_report(db, ReportRequest(output=out))
    page = out.read_text()
    assert 'href="../data/runs/m000/replay.html"' in page
    assert replay_link(str(runs / "m001"), out) is None
    hrefs = {attrs.get("href") for _, attrs in _parsed(page).tags} - {None}
    assert {h for h in hrefs if not h.startswith("#")} == {"../data/runs/m000/replay.html"}


def test_only_the_tournaments_asked_for(tmp_path: Path):
    """--tournament NAME: an unknown one is refused, naming what exists."""
    db = build_database(tmp_path / "arena.db", hands=30, bots=("a", "b"))
    with Store.open(db) as store:
        assert "league" in render_report(store, ReportRequest(tournaments=("league",)))
        with pytest.raises(ReportError, match=r"no tournament named 'nope'.*'league'"):
            render_report(store, ReportRequest(tournaments=("nope",)))
        with pytest.raises(ReportError, match="no matches"):
            render_report(store, ReportRequest(game_type="no_limit"))


def _cli():
    _register()
    return cli


def test_cli_writes_the_report(tmp_path: Path):
    """``arena report --db ... -o ...`` writes the file and prints its path."""
    db = build_database(tmp_path / "arena.db", hands=40, bots=("a", "b", "c"))
    out = tmp_path / "r.html"
    result = CliRunner().invoke(
        _cli(),
        ["report", "--db", str(db), "--tournament", "league", "--game-type", KIND, "-o", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert str(out) in result.output
    assert out.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", "missing.db"], "missing.db: no such database"),
        (["--tournament", "nope"], "no tournament named 'nope'"),
    ],
)
def test_cli_errors_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
):
    """A missing database or an unknown tournament is one line, exit status 1."""
    db = build_database(tmp_path / "arena.db", hands=20, bots=("a", "b"))
    monkeypatch.chdir(tmp_path)
    full = ["report", *([] if "--db" in args else ["--db", str(db)]), *args, "-o", "x.html"]
    result = CliRunner().invoke(_cli(), full)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert "Traceback" not in result.output


def test_heatmaps_show_the_top_of_a_large_league(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A league too large for a matrix shows its top bots in the heatmaps and says so."""
    monkeypatch.setattr("arena.web._report.HEATMAP_BOTS", 3)
    db = build_database(tmp_path / "arena.db", hands=40, bots=("a", "b", "c", "d", "e"))
    with Store.open(db) as store:
        page = render_report(store, ReportRequest())
    pairs = page[page.index('id="fixed-limit-pairs"') : page.index('id="fixed-limit-los"')]
    assert len(re.findall(r"<rect ", pairs)) == 9
    assert "The top 3 bots of the leaderboard; 2 more are left out" in page
