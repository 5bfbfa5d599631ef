"""Charts as inline SVG: a line chart with a band, a heatmap and a forest plot of intervals.

Each chart is one ``<figure>``: an ``<svg role="img">`` labelled by its own ``<title>``
and ``<desc>``, then the same figures as a table (in a ``<details>``) for screen readers
and for people who want the numbers. Elements are built with :mod:`xml.etree` and
serialised by it, so every label (a bot's name is untrusted) is escaped by the
serialiser, never pasted into markup; the result is :class:`markupsafe.Markup` that a
Jinja template with autoescape includes as it is. Long curves are decimated
(:func:`decimate`, largest triangle three buckets) so a report of 10,000 hands stays small.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from arena.text import escape_untrusted

PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999933")
"""Okabe-Ito colours (told apart with colour-blindness); past eight, lines are dashed too."""

_DASHES = ("", "6 3", "2 2", "8 2 2 2")
_FONT = "font-family:sans-serif;font-size:11px"


@dataclass(frozen=True)
class Series:
    """One line: ``points`` are (x, y); ``band``, when given, a (low, high) per point."""

    name: str
    points: Sequence[tuple[float, float]]
    band: Sequence[tuple[float, float]] | None = None


@dataclass(frozen=True)
class Interval:
    """One row of a forest plot: an estimate and its interval (bounds may be infinite)."""

    label: str
    value: float
    low: float
    high: float
    text: str = ""


@dataclass(frozen=True)
class Cell:
    """One heatmap cell: ``value`` picks the colour, ``text`` (and ``note`` below it) is written in it."""

    value: float
    text: str
    note: str = ""


def decimate(ys: Sequence[float], limit: int) -> list[int]:
    """Indices of at most ``limit`` points that keep a curve's shape (LTTB); ends always kept.

    Largest triangle three buckets: in each bucket, keep the point making the largest
    triangle with the previous kept point and the next bucket's mean, so peaks survive.
    """
    n = len(ys)
    if n <= max(limit, 3) or limit < 3:
        return list(range(n))
    keep, bucket = [0], (n - 2) / (limit - 2)
    for b in range(limit - 2):
        start, stop = int(b * bucket) + 1, int((b + 1) * bucket) + 1
        after = range(stop, min(int((b + 2) * bucket) + 1, n - 1)) if b < limit - 3 else range(0)
        mean_x = sum(after) / len(after) if after else n - 1.0
        mean_y = sum(ys[i] for i in after) / len(after) if after else ys[n - 1]
        a = keep[-1]
        keep.append(
            max(
                range(start, stop),
                key=lambda i: abs((a - mean_x) * (ys[i] - ys[a]) - (a - i) * (mean_y - ys[a])),
            )
        )
    keep.append(n - 1)
    return keep


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else [0.0]
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if raw <= step * m)
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step + 1e-9) + 1)]


def _ident(text: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-") or "chart"


def _label(text: str, limit: int = 18) -> str:
    shown = escape_untrusted(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(
        parent, tag, {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
    )
    if text is not None:
        element.text = text
    return element


def _svg(
    ident: str, title: str, description: str, width: int, height: int
) -> tuple[ET.Element, ET.Element]:
    figure = ET.Element("figure", {"class": "chart", "id": ident})
    _sub(figure, "figcaption", escape_untrusted(title))
    svg = _sub(
        figure,
        "svg",
        xmlns="http://www.w3.org/2000/svg",
        role="img",
        viewBox=f"0 0 {width} {height}",
        width=str(width),
        height=str(height),
        aria_labelledby=f"{ident}-t {ident}-d",
        style=_FONT,
    )
    _sub(svg, "title", escape_untrusted(title), id=f"{ident}-t")
    _sub(svg, "desc", escape_untrusted(description), id=f"{ident}-d")
    return figure, svg


def _table(
    figure: ET.Element, caption: str, header: Sequence[str], rows: Sequence[Sequence[str]]
) -> None:
    details = _sub(figure, "details")
    _sub(details, "summary", "table: " + escape_untrusted(caption))
    table = _sub(details, "table")
    head = _sub(_sub(table, "thead"), "tr")
    for text in header:
        _sub(head, "th", escape_untrusted(text), scope="col")
    body = _sub(table, "tbody")
    for row in rows:
        tr = _sub(body, "tr")
        for k, text in enumerate(row):
            _sub(
                tr,
                "th" if k == 0 else "td",
                escape_untrusted(text),
                **({"scope": "row"} if k == 0 else {}),
            )


def _markup(figure: ET.Element) -> Markup:
    # every text and attribute went through the serialiser's escaping
    return Markup(ET.tostring(figure, encoding="unicode", short_empty_elements=False))


class _Scale:
    """Maps data values onto pixels, clipping infinite and out-of-range values to the edge."""

    def __init__(self, low: float, high: float, start: float, stop: float) -> None:
        self.low, self.high = (low, high) if high > low else (low - 1.0, low + 1.0)
        self.start, self.stop = start, stop

    def __call__(self, value: float) -> float:
        value = min(max(value, self.low), self.high) if not math.isnan(value) else self.low
        return self.start + (value - self.low) / (self.high - self.low) * (self.stop - self.start)


def _finite(values: Sequence[float]) -> list[float]:
    return [v for v in values if math.isfinite(v)]


def _axes(svg: ET.Element, xs: _Scale, ys: _Scale, x_label: str, y_label: str) -> None:
    grid = _sub(svg, "g", stroke="#ddd")
    for tick in nice_ticks(ys.low, ys.high):
        y = _num(ys(tick))
        _sub(grid, "line", x1=_num(xs.start), x2=_num(xs.stop), y1=y, y2=y)
        _sub(
            svg,
            "text",
            _num(tick),
            x=_num(xs.start - 4),
            y=y,
            text_anchor="end",
            dominant_baseline="middle",
        )
    for tick in nice_ticks(xs.low, xs.high):
        _sub(svg, "text", _num(tick), x=_num(xs(tick)), y=_num(ys.start + 14), text_anchor="middle")
    _sub(
        svg,
        "text",
        x_label,
        x=_num((xs.start + xs.stop) / 2),
        y=_num(ys.start + 28),
        text_anchor="middle",
    )
    _sub(svg, "text", y_label, x="4", y=_num(ys.stop - 10))


def line_chart(
    ident: str,
    title: str,
    description: str,
    series: Sequence[Series],
    *,
    x_label: str,
    y_label: str,
    limit: int = 200,
    width: int = 720,
    height: int = 300,
    styles: Mapping[str, tuple[str, str]] | None = None,
    picker: bool = False,
) -> Markup:
    """Lines (each decimated to ``limit`` points) with optional shaded bands, a legend and a table.

    ``styles`` gives a series its (colour, dash) by name (else :func:`series_style` of its
    place); ``picker`` adds radio buttons that show one series alone (the report's CSS
    dims the others: no script), series ``n`` being class ``sN``, "all" class ``s0``.
    """
    ident = _ident(ident)
    kept = [(s, decimate([y for _, y in s.points], limit)) for s in series]
    xs_all = _finite([s.points[i][0] for s, idx in kept for i in idx])
    ys_all = _finite([s.points[i][1] for s, idx in kept for i in idx])
    ys_all += _finite([v for s, idx in kept if s.band for i in idx for v in s.band[i]])
    legend_rows = math.ceil(len(series) / 4)
    figure, svg = _svg(ident, title, description, width, height + 16 * legend_rows)
    if picker:
        _picker(figure, svg, ident, [s.name for s in series])
    xs = _Scale(min(xs_all, default=0.0), max(xs_all, default=1.0), 56, width - 12)
    ys = _Scale(min(ys_all, default=0.0), max(ys_all, default=1.0), height - 34, 22)
    _axes(svg, xs, ys, x_label, y_label)
    for n, (s, idx) in enumerate(kept):
        colour, dash = (styles or {}).get(s.name) or series_style(n)
        group = _sub(svg, "g", **{"class": f"series s{n + 1}"})
        _sub(group, "title", escape_untrusted(s.name))
        if s.band and idx:
            upper = [f"{_num(xs(s.points[i][0]))},{_num(ys(s.band[i][1]))}" for i in idx]
            lower = [f"{_num(xs(s.points[i][0]))},{_num(ys(s.band[i][0]))}" for i in reversed(idx)]
            _sub(group, "polygon", points=" ".join(upper + lower), fill=colour, fill_opacity="0.15")
        line = " ".join(f"{_num(xs(s.points[i][0]))},{_num(ys(s.points[i][1]))}" for i in idx)
        attrs = {"stroke_dasharray": dash} if dash else {}
        _sub(
            group, "polyline", points=line, fill="none", stroke=colour, stroke_width="1.5", **attrs
        )
        lx, ly = 56 + (n % 4) * ((width - 60) // 4), height + 4 + 16 * (n // 4)
        key = _sub(svg, "g", **{"class": f"series s{n + 1}"})
        _sub(key, "line", x1=str(lx), x2=str(lx + 14), y1=str(ly + 2), y2=str(ly + 2),
             stroke=colour, stroke_width="3", **attrs)  # fmt: skip
        _sub(key, "text", _label(s.name, 24), x=str(lx + 18), y=str(ly + 5))
    samples = _samples(series)
    rows = [[s.name, *(_sample(s, i) for i in idx)] for s, idx in zip(series, samples, strict=True)]
    header = [x_label, *(_num(x) for x in _sample_xs(series, samples))]
    _table(figure, title, header if samples else [x_label], rows)
    return _markup(figure)


def series_style(n: int) -> tuple[str, str]:
    """The (colour, dash) of the ``n``-th series: the eight colours, then each again with a
    dash pattern, so 32 series look distinct (the heatmaps show 30 bots)."""
    return PALETTE[n % len(PALETTE)], _DASHES[(n // len(PALETTE)) % len(_DASHES)]


def _picker(figure: ET.Element, svg: ET.Element, ident: str, names: Sequence[str]) -> None:
    """Radio buttons before ``svg``: "all", then one per series (class ``sN``)."""
    box = ET.Element("fieldset", {"class": "pick"})
    _sub(box, "legend", "Show")
    for n, name in enumerate(["all", *names]):
        label = _sub(box, "label")
        attrs = {"type": "radio", "name": f"{ident}-pick", "class": f"s{n}", "value": str(n)}
        _sub(label, "input", **attrs, **({"checked": "checked"} if n == 0 else {}))
        _sub(label, "span", escape_untrusted(name) if n else "all bots")
    figure.insert(list(figure).index(svg), box)


def _samples(series: Sequence[Series], count: int = 8) -> list[list[int]]:
    """For the table: up to ``count`` evenly spaced points of each line, its last one included."""
    return [
        sorted({round(k * (len(s.points) - 1) / max(count - 1, 1)) for k in range(count)})
        if s.points
        else []
        for s in series
    ]


def _sample_xs(series: Sequence[Series], samples: list[list[int]]) -> list[float]:
    longest = max(range(len(series)), key=lambda k: len(samples[k]), default=None)
    return [] if longest is None else [series[longest].points[i][0] for i in samples[longest]]


def _sample(s: Series, i: int) -> str:
    text = f"{s.points[i][1]:.0f}"
    if s.band:
        low, high = s.band[i]
        text += f" [{_bound(low)}, {_bound(high)}]"
    return f"{text} at {_num(s.points[i][0])}"


def _colour(value: float, span: float) -> str:
    """Diverging blue (negative) - white - red (positive); grey for a missing value."""
    if not math.isfinite(value):
        return "#eee"
    t = max(-1.0, min(1.0, value / span)) if span > 0 else 0.0
    far = (33, 102, 172) if t < 0 else (178, 24, 43)
    rgb = [round(255 + (c - 255) * abs(t)) for c in far]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def heatmap(
    ident: str,
    title: str,
    description: str,
    labels: Sequence[str],
    cells: Mapping[tuple[str, str], Cell],
    *,
    centre: float = 0.0,
) -> Markup:
    """A row-against-column matrix coloured around ``centre``; rows and columns share ``labels``.

    Columns are numbered (by the rows' order) so that long names need no room up top.
    """
    ident = _ident(ident)
    wide, tall, left, top = 80, 36, 150, 24
    width, height = left + wide * len(labels) + 8, top + tall * len(labels) + 8
    figure, svg = _svg(ident, title, description, width, height)
    finite = [abs(c.value - centre) for c in cells.values() if math.isfinite(c.value)]
    span = max(finite, default=1.0)
    for j in range(len(labels)):
        centre_x = str(left + wide * j + wide // 2)
        _sub(svg, "text", f"{j + 1}", x=centre_x, y=str(top - 8), text_anchor="middle")
    for i, row in enumerate(labels):
        y = top + tall * i
        _sub(svg, "text", f"{i + 1} {_label(row, 20)}", x="4", y=str(y + tall // 2 + 4))
        for j, col in enumerate(labels):
            cell = cells.get((row, col))
            value = cell.value - centre if cell else math.nan
            x = left + wide * j
            fill = _colour(value, span)
            _sub(
                svg,
                "rect",
                x=str(x),
                y=str(y),
                width=str(wide - 2),
                height=str(tall - 2),
                fill=fill,
            )
            if cell:
                ink = "#fff" if abs(value) > 0.6 * span else "#111"
                text = _sub(svg, "text", x=str(x + wide // 2 - 1), text_anchor="middle", fill=ink)
                _sub(text, "tspan", cell.text, x=str(x + wide // 2 - 1), y=str(y + 14))
                if cell.note:
                    _sub(text, "tspan", cell.note, x=str(x + wide // 2 - 1), y=str(y + 28))
    header = ["row \\ column", *labels]
    rows = [[row, *(_cell_text(cells.get((row, col))) for col in labels)] for row in labels]
    _table(figure, title, header, rows)
    return _markup(figure)


def _cell_text(cell: Cell | None) -> str:
    return "" if cell is None else f"{cell.text} {cell.note}".strip()


def _forest_grid(
    svg: ET.Element, xs: _Scale, ys: _Scale, x_label: str, reference: float | None
) -> None:
    """The vertical grid, its tick labels, the axis label and the dashed reference line."""
    top = ys.start
    for tick in nice_ticks(xs.low, xs.high):
        x = _num(xs(tick))
        _sub(svg, "line", x1=x, x2=x, y1=_num(top), y2=_num(ys.stop), stroke="#ddd")
        _sub(svg, "text", _num(tick), x=x, y=_num(ys.stop + 14), text_anchor="middle")
    _sub(
        svg,
        "text",
        x_label,
        x=_num((xs.start + xs.stop) / 2),
        y=_num(ys.stop + 28),
        text_anchor="middle",
    )
    if reference is not None:
        x = _num(xs(reference))
        _sub(
            svg,
            "line",
            x1=x,
            x2=x,
            y1=_num(top),
            y2=_num(ys.stop),
            stroke="#888",
            stroke_dasharray="4 3",
        )


def forest_plot(
    ident: str,
    title: str,
    description: str,
    items: Sequence[Interval],
    *,
    x_label: str,
    reference: float | None = None,
    width: int = 720,
) -> Markup:
    """One row per estimate: a dot and its interval; infinite bounds run to the edge."""
    ident = _ident(ident)
    row, left, top = 22, 180, 8
    height = top + row * len(items) + 36
    figure, svg = _svg(ident, title, description, width, height)
    values = _finite([v for it in items for v in (it.value, it.low, it.high)])
    values += [reference] if reference is not None else []
    xs = _Scale(min(values, default=0.0), max(values, default=1.0), left, width - 16)
    ys = _Scale(0, max(len(items), 1), top, top + row * max(len(items), 1))
    _forest_grid(svg, xs, ys, x_label, reference)
    for k, it in enumerate(items):
        y = _num(ys(k + 0.5))
        group = _sub(svg, "g")
        _sub(group, "title", escape_untrusted(f"{it.label}: {it.text}"))
        _sub(group, "text", _label(it.label, 26), x="4", y=y, dominant_baseline="middle")
        _sub(
            group,
            "line",
            x1=_num(xs(it.low)),
            x2=_num(xs(it.high)),
            y1=y,
            y2=y,
            stroke=PALETTE[0],
            stroke_width="2",
        )
        _sub(group, "circle", cx=_num(xs(it.value)), cy=y, r="4", fill=PALETTE[1])
    rows = [
        [it.label, it.text or f"{it.value:.0f}", _bound(it.low), _bound(it.high)] for it in items
    ]
    _table(figure, title, ["", x_label, "low (95%)", "high (95%)"], rows)
    return _markup(figure)


def _bound(value: float) -> str:
    return f"{value:.0f}" if math.isfinite(value) else ("-∞" if value < 0 else "∞")
