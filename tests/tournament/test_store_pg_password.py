"""Issue 12 item 4 (audit): a PostgreSQL URL's password is never shown nor stored.

``redact`` cuts the URL's authority at the first ``/``, ``?`` or ``#``; libpq does not:
a password with an unencoded ``#`` or ``?`` (``postgresql://u:se#cret@host/db``) connects
fine, and ``redact`` then keeps it whole, so it is printed in every message and stored in
the tournament's settings (``config_json``), which ``arena report`` and anyone who can
read the database see. libpq also percent-decodes query keys (``pass%77ord=``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from arena.store._db import redact, scrub
from arena.tournament import parse_tournament

URLS = [
    "postgresql://arena:se#cret1@127.0.0.1/league",
    "postgresql://arena:se?cret2@127.0.0.1/league",
    "postgresql://arena@127.0.0.1/league?pass%77ord=secret3",
]


def _password(url: str) -> str:
    conninfo = pytest.importorskip("psycopg.conninfo", reason="psycopg is not installed")
    password = conninfo.conninfo_to_dict(url).get("password")
    assert password, f"libpq reads no password from {url}"
    return str(password)


@pytest.mark.parametrize("url", URLS)
def test_redact_hides_every_password_libpq_reads(url: str) -> None:
    """What libpq takes as the password is not in the redacted name, nor in a message
    scrubbed of it (issue 12 item 4, audit)."""
    password = _password(url)
    assert password not in redact(url)
    assert password not in scrub(f"cannot connect to {url}: bad", url)


@pytest.mark.parametrize("url", URLS)
def test_the_stored_settings_hold_no_password(url: str, tmp_path: Path) -> None:
    """The settings stored with a tournament (``config_json``) and the database's name in
    messages hold no password (issue 12 item 4, audit)."""
    password = _password(url)
    text = textwrap.dedent(
        f"""
        [tournament]
        name = "pw"
        hands_per_match = 2
        database = "{url}"

        [[bots]]
        name = "a"
        builtin = "calling-station"

        [[bots]]
        name = "b"
        builtin = "rule-based"
        """
    )
    config = parse_tournament(text, "pw.toml", base_dir=tmp_path)
    assert password not in config.database_name
    assert password not in config.to_json()
