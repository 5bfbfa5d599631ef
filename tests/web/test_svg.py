"""The inline SVG charts of the report (issue 10 item 1): accessible, escaped, decimated."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

from arena.web._svg import (
    Cell,
    Interval,
    Series,
    decimate,
    forest_plot,
    heatmap,
    line_chart,
    nice_ticks,
)

HOSTILE = "<script>alert(1)</script>"
SVG = "{http://www.w3.org/2000/svg}"
NOT_A_NUMBER = re.compile(r"\b(inf|nan)\b", re.I)


def _parse(markup: str) -> ET.Element:
    """The chart parses as XML: the serialiser escaped every label."""
    return ET.fromstring(markup)


def _check_accessible(figure: ET.Element, title: str) -> None:
    svg = figure.find(f"{SVG}svg")
    assert svg is not None and svg.get("role") == "img"
    ident = figure.get("id")
    assert svg.get("aria-labelledby") == f"{ident}-t {ident}-d"
    assert svg.find(f"{SVG}title").text == title
    assert svg.find(f"{SVG}desc").text
    assert figure.find("details/table/tbody/tr") is not None
    assert figure.find("figcaption").text == title


class TestDecimate:
    def test_short_curves_are_kept_whole(self):
        """A curve with no more points than the limit keeps every point."""
        assert list(range(5)) == decimate([1, 2, 3, 4, 5], 10)

    def test_long_curves_keep_their_ends_and_peaks(self):
        """10,000 points become at most the limit, first and last kept, the spike kept too."""
        ys = [math.sin(i / 300) for i in range(10_000)]
        ys[4321] = 50.0
        kept = decimate(ys, 100)
        assert len(kept) <= 100
        assert kept[0] == 0 and kept[-1] == 9_999
        assert kept == sorted(set(kept))
        assert 4321 in kept


def test_nice_ticks_cover_the_range():
    """Round ticks, inside the range, for the axes."""
    assert [0.0, 20.0, 40.0, 60.0, 80.0, 100.0] == nice_ticks(0, 100)
    assert all(-3 <= t <= 7 for t in nice_ticks(-3, 7))
    assert [5.0] == nice_ticks(5, 5)


def test_line_chart_is_accessible_escaped_and_decimated():
    """role=img, title, desc, a table; a hostile name stays text; 10,000 points thinned."""
    long = Series(HOSTILE, [(float(i), float(i % 97)) for i in range(10_000)])
    banded = Series("b", [(0.0, 1.0), (1.0, 2.0)], [(-math.inf, 2.0), (1.0, math.inf)])
    markup = line_chart(
        "x", "T <b>", "D", [long, banded], x_label="hands", y_label="chips", limit=50
    )
    assert "<script" not in markup and "<b>" not in markup
    assert "&lt;script&gt;" in markup
    figure = _parse(markup)
    _check_accessible(figure, "T <b>")
    lines = figure.findall(f".//{SVG}polyline")
    assert len(lines) == 2
    assert len(lines[0].get("points").split()) <= 50
    assert figure.find(f".//{SVG}polygon") is not None  # the band
    assert not NOT_A_NUMBER.search(markup)
    rows = figure.findall("details/table/tbody/tr")
    assert rows[0].find("th").text == HOSTILE  # the table too, as text


def test_heatmap_has_a_cell_per_pair_and_grey_for_none():
    """One rect per (row, column); a pair that never met is grey; names escaped."""
    names = ["a", HOSTILE, "c"]
    cells = {("a", HOSTILE): Cell(100.0, "+100", "± 5"), (HOSTILE, "a"): Cell(-100.0, "-100")}
    markup = heatmap("h", "Heat", "desc", names, cells)
    assert "<script" not in markup
    figure = _parse(markup)
    _check_accessible(figure, "Heat")
    rects = figure.findall(f"{SVG}svg/{SVG}rect")
    assert len(rects) == 9
    assert sum(r.get("fill") == "#eee" for r in rects) == 7
    header = [th.text for th in figure.findall("details/table/thead/tr/th")]
    assert header[1:] == names
    assert "+100 ± 5" in ET.tostring(figure, encoding="unicode")


def test_forest_plot_draws_infinite_bounds_to_the_edge():
    """An interval with an infinite bound runs to the edge; the table says ∞."""
    items = [Interval("a", 10.0, 5.0, 15.0, "10 ± 5"), Interval(HOSTILE, 0.0, -math.inf, math.inf)]
    markup = forest_plot("f", "Forest", "desc", items, x_label="Elo", reference=0.0)
    figure = _parse(markup)
    _check_accessible(figure, "Forest")
    assert len(figure.findall(f".//{SVG}circle")) == 2
    assert not NOT_A_NUMBER.search(markup)
    cells = [td.text for td in figure.findall("details/table/tbody/tr/td")]
    assert "-∞" in cells and "∞" in cells


def test_control_characters_in_names_are_written_as_escapes():
    """A bidi override or ESC in a bot's name shows as an escape, not as itself."""
    markup = line_chart(
        "c", "t", "d", [Series("evil\u202e\x1b[2J", [(0.0, 0.0)])], x_label="x", y_label="y"
    )
    assert "\u202e" not in markup and "\x1b" not in markup
    assert "\\u202e" in markup
