"""Issue 21 items 2 and 4: the report's bot sections name every problem a bot had (fault
counts and texts, start errors, sit-outs, the end of its stderr log), escaped, with no
card a bot printed; baselines and the anchor are marked; every bot has its own colour and
the Elo chart has a picker that shows one bot alone (CSS only: the report has no script)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.dealer import FaultRecord
from arena.store._schema import NOT_STARTED
from arena.store._store import SeatResult
from arena.tournament import Store
from arena.web._report import ReportRequest, render_report
from arena.web._report_bots import STDERR_LINES, public_text

EVIL = "<script>alert(1)</script>\x1b[2J\u202etxt.exe\u202c"
"""A hostile text: markup, a terminal control and a bidi override."""
KIND = "fixed_limit"
BOTS = ("random", "student", "tricky", "b4", "b5", "b6", "b7", "b8", "b9", "b10")


def _seat(bot: str, seat: int, chips: int, **more: object) -> SeatResult:
    return SeatResult(bot=bot, seat=seat, chips=chips, hands=4, unit_chips=(chips,), **more)


def build(folder: Path) -> Path:
    """A tournament of 10 bots (``random`` a builtin, ``ghost`` never starts): ``tricky``
    faults with hostile texts and is sat out; ``student`` has a long hostile stderr log."""
    records = folder / "runs" / "league"
    (records / "bots").mkdir(parents=True)
    log = "\n".join(f"line {n}" for n in range(100)) + f"\nmy hand As Kd 10h {EVIL}\n"
    (records / "bots" / "student.stderr.log").write_text(log, encoding="utf-8")
    pairs = [(a, b) for k, a in enumerate(BOTS) for b in BOTS[k + 1 :]]
    with Store.open(folder / "arena.db") as store:
        schedule = [{"key": f"m{k:02d}", "seats": list(p), "hands": 4} for k, p in enumerate(pairs)]
        schedule.append({"key": "dead", "seats": ["ghost", "random"], "hands": 4})
        tid = store.create_tournament("league", "{}", schedule)
        store.upsert_bot("random", "builtin: random")
        store.upsert_bot("student", "command: python bot.py")
        for k, (a, b) in enumerate(pairs):
            tricky = "tricky" in (a, b)
            faults = [
                FaultRecord(
                    hand_number=n, seat=0, reason="TIMEOUT", detail=f"{n} {EVIL} Qs", applied="fold"
                )
                for n in range(1, 8 if a == "tricky" else 1)
            ]
            store.record_match(
                tid,
                f"m{k:02d}",
                game_type=KIND,
                big_blind=2,
                duplicate_block=1,
                result_summary={"hands_played": 4, "reason": "completed"},
                seats=[
                    _seat(a, 0, k - 20, faults=len(faults), sat_out=tricky and a == "tricky"),
                    _seat(b, 1, 20 - k),
                ],
                records_dir=str(records / f"m{k:02d}"),
                faults=faults,
            )
        store.record_match(
            tid,
            "dead",
            game_type=KIND,
            big_blind=2,
            duplicate_block=1,
            result_summary={"hands_played": 0, "reason": NOT_STARTED,
                            "not_started": {"ghost": f"SyntaxError at bot.py:3 {EVIL}"}},
            seats=[SeatResult(bot="ghost", seat=0, chips=0, hands=0, forfeited=True),
                   SeatResult(bot="random", seat=1, chips=0, hands=0)],
            records_dir=str(records / "dead"),
        )  # fmt: skip
    return folder / "arena.db"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    database = build(tmp_path_factory.mktemp("bots"))
    with Store.open(database, create=False) as store:
        return render_report(store, ReportRequest(output=database.parent / "report.html"))


def _bot_section(page: str, bot: str) -> str:
    start = page.index("<h4 id=", page.index('-h">', page.index(">" + bot + "<")))
    start = page.rindex("<section", 0, page.index(f"{bot}", start))
    return page[start : page.index("</section>", start)]


def test_hostile_texts_are_escaped_and_cards_blotted(page: str) -> None:
    """Item 2: no markup, no control or bidi character and no card a bot wrote reaches the page."""
    assert "<script" not in page.lower()
    assert "\x1b" not in page and "\u202e" not in page and "\u202c" not in page
    assert "&lt;script&gt;" in page and "\\x1b" in page and "\\u202e" in page
    assert "As Kd" not in page and " Qs" not in page and "10h" not in page
    assert "my hand ▒▒ ▒▒ ▒▒" in page


def test_a_bot_that_did_not_start_has_a_section_with_its_error(page: str) -> None:
    """Item 2: the bot that never started is named in the bots' part with its start error."""
    section = page[page.index("ghost<span") :]
    assert "not ranked" in section[:200]
    assert "Did not start" in section and "SyntaxError at bot.py:3" in section


def test_faults_are_quoted_newest_first_and_sit_outs_named(page: str) -> None:
    """Item 4: the last few fault texts with where they happened; the matches sat out of."""
    texts = re.findall(r"league / m\d\d, hand (\d+): <code>TIMEOUT</code>", page)
    assert texts[:5] == ["7", "6", "5", "4", "3"]
    assert "Sat out</strong> (fault limit reached) in 7 matches" in page


def test_the_end_of_a_stderr_log_is_quoted(page: str) -> None:
    """Item 2: the end of the bot's stderr log (its last lines only), escaped."""
    quoted = page[page.index('<pre class="stderr">') :]
    quoted = quoted[: quoted.index("</pre>")]
    assert "line 99" in quoted and "line 50" not in quoted
    assert len(quoted.splitlines()) <= STDERR_LINES
    assert "league/bots/student.stderr.log" in page


def test_baselines_and_the_anchor_are_marked(page: str) -> None:
    """Item 4: the builtin bot is marked a baseline in the leaderboard; a student's is not."""
    board = page[page.index('class="leaderboard') : page.index("</table>")]
    assert re.search(r">random</a><span class=\"mark\">baseline</span>", board)
    assert not re.search(r">student</a><span class=\"mark\">", board)


def test_every_bot_has_its_own_colour_and_dash(page: str) -> None:
    """Item 4: ten bots, ten distinct (colour, dash) styles in the Elo chart."""
    chart = page[page.index('id="fixed-limit-elo-time"') :]
    chart = chart[: chart.index("</figure>")]
    lines = re.findall(r"<polyline [^>]*>", chart)
    keys = re.findall(r'<line [^>]*stroke-width="3"[^>]*>', chart)  # the legend's swatches
    assert (
        len(keys) == 10
        and len(set(re.sub(r'x[12]="[^"]*"|y[12]="[^"]*"', "", k) for k in keys)) == 10
    )
    styles = [
        (re.search(r'stroke="([^"]+)"', line)[1], re.search(r'dasharray="([^"]+)"|$', line)[1])  # type: ignore[index]
        for line in lines
    ]
    assert len(styles) == 10  # the ten bots that played ("ghost" did not)
    assert len(set(styles)) == 10, styles


def test_the_elo_chart_has_a_picker_for_each_bot(page: str) -> None:
    """Item 4: a radio per bot (and "all"), with a CSS rule that dims the other curves."""
    chart = page[page.index('id="fixed-limit-elo-time"') :]
    chart = chart[: chart.index("</svg>")]
    assert chart.count('type="radio"') == 11
    assert "figure.chart:has(.pick .s3:checked) .series:not(.s3)" in page


def test_public_text_escapes_then_blots() -> None:
    """The one function every bot text goes through."""
    assert public_text("Ah\x00 2c\n3d", lines=True) == "▒▒\\x00 ▒▒\n▒▒"
    assert public_text("a\nb") == "a | b"
