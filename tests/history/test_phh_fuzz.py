"""Fuzz the PHH loader and replay: a mutated file is replayed or refused with a PhhError.

Whatever a file holds, ``load_phh`` + ``replay`` (what ``arena replay`` runs) either
succeed or raise :class:`PhhError` naming the file; any other exception would reach the
user as a traceback. Mutations start from valid files the arena wrote (blinds, antes and
Jackpots, the joker, a dead small blind) and change characters, fields and action lines.
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import BlindPlan, Deck, ForcedPost, GameConfig, Hand, Phase
from arena.history import PhhError, dumps_phh, hand_to_phh, load_phh, replay

DATA = Path(__file__).parent / "data"
SOURCE = "fuzz.phh"


def _played(config: GameConfig, seed: int, **kwargs) -> str:
    rng = random.Random(seed)
    n = kwargs.pop("n", 3)
    hand = Hand(config, [60] * n, n - 1, Deck.shuffled(rng, joker=config.uses_joker), **kwargs)
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.phase is Phase.DRAW:
            hand.discard(hand.holes[legal.seat][: rng.randint(0, 2)])
        elif legal.can_raise and rng.random() < 0.3:
            hand.bet_or_raise(legal.min_raise_to)
        else:
            hand.check_or_call()
    return dumps_phh(hand_to_phh(hand, players=[f"bot{k}" for k in range(n)], hand_number=seed))


def _valid_files() -> list[str]:
    files = [(DATA / "example.phh").read_text(encoding="utf-8")]
    files.append(_played(GameConfig(structure="no_limit", joker="wild"), 1))
    files.append(
        _played(GameConfig(forced_bets="antes", ante=1, opening="jacks_or_better", joker="bug"), 2)
    )
    plan = BlindPlan(2, 1, (ForcedPost(3, live=2, dead=1),))
    files.append(_played(GameConfig(), 3, n=4, blinds=plan))
    return files


VALID = _valid_files()
ODD_TEXT = st.text(
    alphabet=st.sampled_from(list("p0123456789 cbrfsdmh?#-=[]{}\"',.\n\\AKQJTs²٣١٠٩\x00\u00a0Jk")),
    max_size=12,
)
TOML_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True)
    | ODD_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ODD_TEXT, inner, max_size=3),
    max_leaves=6,
)


def _must_be_clean(text: str) -> None:
    """Replay every hand of ``text``; the only failure allowed is a PhhError naming the file."""
    try:
        for record in load_phh(text, source=SOURCE):
            replay(record)
    except PhhError as error:
        assert str(error).startswith(SOURCE), str(error)
        assert "\n" not in error.problem, error.problem


FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from(VALID), st.lists(st.tuples(st.integers(0, 10**6), ODD_TEXT), max_size=4))
def test_replay_character_mutations_fail_cleanly(text: str, edits) -> None:
    """Characters replaced or inserted anywhere in a valid file."""
    for position, new in edits:
        at = position % (len(text) + 1)
        text = text[:at] + new + text[at + len(new) // 2 :]
    _must_be_clean(text)


@FUZZ
@given(st.sampled_from(VALID), st.data())
def test_replay_field_mutations_fail_cleanly(text: str, data) -> None:
    """A field (known, user-defined or new) set to a value of any TOML type."""
    fields = tomllib.loads(text)
    keys = [*fields, "_blind_plan", "_carried_pot", "_joker", "_max_draw", "variant", "hand"]
    key = data.draw(st.sampled_from(keys))
    value = data.draw(TOML_VALUES)
    if value is None:
        fields.pop(key, None)
    else:
        fields[key] = value
    try:
        mutated = tomli_w.dumps(fields)
    except (TypeError, ValueError):  # a value TOML cannot hold (nan keys and so on)
        return
    _must_be_clean(mutated)


@FUZZ
@given(st.sampled_from(VALID), st.data())
def test_replay_action_mutations_fail_cleanly(text: str, data) -> None:
    """An action line replaced, split or inserted, with PHH-like words and odd digits."""
    fields = tomllib.loads(text)
    actions = list(fields["actions"])
    word = st.sampled_from(["p1", "p2", "p3", "p9", "p٣", "p²", "d", "dh", "cbr", "cc", "f", "sd"])
    line = st.lists(word | ODD_TEXT, min_size=1, max_size=4).map(" ".join)
    at = data.draw(st.integers(0, len(actions)))
    if data.draw(st.booleans()) and at < len(actions):
        actions[at] = data.draw(line)
    else:
        actions.insert(at, data.draw(line))
    fields["actions"] = actions
    _must_be_clean(tomli_w.dumps(fields))
