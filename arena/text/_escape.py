"""Escape what does not print: the one place that knows which characters are unsafe."""

from __future__ import annotations


def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")


def escape_untrusted(text: str, *, keep_newlines: bool = False, one_line: bool = False) -> str:
    """``text`` with every character that does not print written as an escape (``\\x1b``).

    ``str.isprintable`` is False for the C0 and C1 controls, DEL, the bidi controls
    (U+202A..U+202E, U+2066..U+2069) and other format characters, so all are escaped.
    ``keep_newlines`` keeps ``\\n`` as a line break (a stderr tail); ``one_line`` joins
    lines with `` | `` instead (a note that must stay on one line).
    """
    if one_line:
        text = " | ".join(line.strip() for line in text.replace("\r\n", "\n").strip().split("\n"))
    return "".join(
        char if char.isprintable() or (keep_newlines and char == "\n") else _escape(char)
        for char in text
    )
