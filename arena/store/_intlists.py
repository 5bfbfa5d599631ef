"""JSON lists of integers by the million, parsed with a few numpy passes instead of json.loads.

The store keeps every seat's per-unit chips as ``json.dumps`` text (``"[3, -1, 0]"``);
a league holds four million of those numbers. One ``json.loads`` per list took a second;
these passes over the joined text take about a tenth. The fast path takes exactly what
``json.dumps`` writes for a list of ints (``", "`` between numbers, no leading zeros, up
to 18 digits); anything else goes through ``json.loads``, which raises ``ValueError``
for garbage, so the answer is always what ``json.loads`` would give.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

Ints = NDArray[np.int64]

_MAX_DIGITS = 18  # any 18-digit number fits an int64
_ZERO = np.uint8(ord("0"))


def parse_int_lists(texts: Sequence[str]) -> tuple[Ints, Ints]:
    """Many JSON lists of integers at once: the flat values, and each list's length."""
    if not texts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    parsed = _parse_fast("".join(texts))
    if parsed is None:
        return _parse_slowly(texts)
    values, counts, list_end = parsed
    text_end = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    if not np.array_equal(list_end, text_end):  # e.g. "[1][2]" as one text
        return _parse_slowly(texts)
    return values, counts


def parse_joined_lists(text: str) -> tuple[Ints, Ints]:
    """JSON lists of integers written back to back (``"[1, 2][][-3]"``): values and lengths."""
    if not text:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    parsed = _parse_fast(text)
    if parsed is not None:
        return parsed[0], parsed[1]
    # slowly: cut after every "]" (a list of ints holds none) and let json.loads judge
    *lists, rest = text.split("]")
    return _parse_slowly([part + "]" for part in lists] + ([rest] if rest else []))


def _parse_fast(text: str) -> tuple[Ints, Ints, Ints] | None:
    """Values, lengths and where each list ends; ``None`` unless ``text`` is ``json.dumps``
    lists of ints back to back."""
    try:
        raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    # only digits, "-", ", " pairs, and as many "[" as "]"
    comma, space, close = raw == ord(","), raw == ord(" "), raw == ord("]")
    commas, minuses = np.count_nonzero(comma), np.count_nonzero(raw == ord("-"))
    digits = np.count_nonzero(np.less(raw - _ZERO, 10))
    closes = np.flatnonzero(close)
    lists = len(closes)
    if (
        not lists
        or digits + minuses + 2 * commas + 2 * lists != len(raw)
        or np.count_nonzero(raw == ord("[")) != lists
        or space[0]
        or not np.array_equal(comma[:-1], space[1:])
    ):
        return None
    # each list is "[" ... "]", the next one right after it
    list_end = closes + 1
    list_start = np.concatenate(([0], list_end[:-1]))
    if np.any(raw[list_start] != ord("[")):
        return None
    # so a list is "[" tokens joined by ", " "]": every "," and the "]" of a list that is
    # not "[]" ends a token, which begins two bytes after a ", " or just after the "["
    full = list_end - list_start > 2
    close[closes[~full]] = False
    comma |= close
    ends = np.flatnonzero(comma)
    begins = np.empty_like(ends)
    if len(ends):
        begins[0] = 1
        begins[1:] = ends[:-1] + 2
        begins[np.searchsorted(ends, list_start[full])] = list_start[full] + 1
    negative = raw[begins] == ord("-")
    if np.count_nonzero(negative) != minuses:  # a "-" inside a number
        return None
    begins += negative
    size = ends - begins
    if len(size) and (
        size.min() < 1  # an empty token, or a lone "-"
        or size.max() > _MAX_DIGITS
        or np.any((raw[begins] == _ZERO) & (size > 1))  # "01" is not JSON
    ):
        return None
    counts = np.diff(np.searchsorted(ends, list_end), prepend=0)
    return _digits(raw, ends - 1, size, negative), counts, list_end


def _digits(raw: NDArray[np.uint8], last: Ints, size: Ints, negative: NDArray[np.bool_]) -> Ints:
    """The numbers whose last digit is at ``last``, ``size`` digits each: digit by digit from
    the right, over the numbers long enough (32-bit while they fit)."""
    longest = int(size.max(initial=0))
    kind: type[np.signedinteger[Any]] = np.int32 if longest <= 9 else np.int64
    values = (raw[last] - _ZERO).astype(kind)
    scale = 1
    for k in range(1, longest):
        scale *= 10
        more = np.flatnonzero(size > k)
        values[more] += (raw[last[more] - k] - _ZERO).astype(kind) * kind(scale)
    values *= 1 - 2 * negative.view(np.int8)
    return values.astype(np.int64)


def _parse_slowly(texts: Sequence[str]) -> tuple[Ints, Ints]:
    lists = [json.loads(text) for text in texts]
    if not all(isinstance(x, list) and all(type(v) is int for v in x) for x in lists):
        raise ValueError("a unit_chips record is not a list of whole numbers")
    counts = np.array([len(x) for x in lists], dtype=np.int64)
    try:
        values = np.array([v for x in lists for v in x], dtype=np.int64)
    except OverflowError:
        raise ValueError("a unit_chips record holds a number too large for 64 bits") from None
    return values, counts
