"""Action.error, a bot saying its own strategy failed (issue 21 item 2, the dealer side):
the action becomes a BOT_ERROR MessageFault whose detail is the bot's text, escaped and
capped, so the dealer plays the R23 default and records where the bot broke."""

from __future__ import annotations

import pytest

from arena.engine import FOLD
from arena.protocol import MAX_ERROR_CHARS, MessageFault, action_from_message, pb


def test_an_action_with_error_is_a_bot_error_fault_naming_file_and_line() -> None:
    """issue 21 item 2: kind is ignored; the detail is the bot's summary line."""
    message = pb.Action(
        decision_id="d1",
        kind=pb.ACTION_KIND_BET_RAISE,
        amount=4,
        error="decide raised IndexError at bot.py:12",
    )
    with pytest.raises(MessageFault) as caught:
        action_from_message(message, "d1")
    assert caught.value.reason == pb.FAULT_REASON_BOT_ERROR
    assert caught.value.detail == "decide raised IndexError at bot.py:12"


def test_the_error_text_is_escaped_and_capped() -> None:
    """issue 21 item 2: untrusted text: no control character survives, at most 1 KB kept."""
    hostile = "\x1b[2J\u202ebot.py:1\n" + "x" * 5000
    with pytest.raises(MessageFault) as caught:
        action_from_message(pb.Action(decision_id="d1", error=hostile), "d1")
    detail = caught.value.detail
    assert "\x1b" not in detail and "\u202e" not in detail and "\n" not in detail
    assert detail.startswith("\\x1b[2J\\u202ebot.py:1")
    assert len(detail) <= MAX_ERROR_CHARS + 1 and detail.endswith("…")


def test_a_wrong_decision_id_still_wins_over_the_error() -> None:
    """issue 21 item 2: an error on an answer to another decision is a WRONG_DECISION_ID."""
    with pytest.raises(MessageFault) as caught:
        action_from_message(pb.Action(decision_id="d0", error="boom"), "d1")
    assert caught.value.reason == pb.FAULT_REASON_WRONG_DECISION_ID


def test_an_action_without_error_is_unchanged() -> None:
    """Backward compatible: old bots never set error."""
    assert action_from_message(pb.Action(decision_id="d1", kind=pb.ACTION_KIND_FOLD), "d1") == FOLD
