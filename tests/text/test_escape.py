"""The one escaping of untrusted text (issue 9, item 6)."""

import pytest

from arena.text import escape_untrusted


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("bell\x07", "bell\\x07"),
        ("abc\u202edef", "abc\\u202edef"),
        ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
        ("cr\rover", "cr\\rover"),
        ("c1\x9b", "c1\\x9b"),
        ("plain name é ♠", "plain name é ♠"),
    ],
)
def test_controls_and_bidi_overrides_are_escaped(raw, shown):
    assert escape_untrusted(raw) == shown


def test_newlines_kept_or_joined_on_request():
    assert escape_untrusted("a\nb") == "a\\nb"
    assert escape_untrusted("a\nb\x1b", keep_newlines=True) == "a\nb\\x1b"
    assert escape_untrusted(" a \r\n b\n", one_line=True) == "a | b"
