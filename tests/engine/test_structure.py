"""How the engine is built: each phase owns its state, the order of play is one table.

These read the engine's source (``ast``) or drive a real hand: they fail when a module
starts writing another module's fields again, when a phase starts the next one itself,
or when a legality rule is written a second time.
"""

from __future__ import annotations

import ast
import itertools
import random
from pathlib import Path

import pytest

import arena.engine
from arena.engine import (
    Deck,
    Discard,
    ForcedBets,
    GameConfig,
    Hand,
    Opening,
    Phase,
    RoundStarted,
    Structure,
    _hand,
    _phase,
)
from arena.engine._phase import NEXT_PHASE, PHASE_ORDER

ENGINE = Path(arena.engine.__file__).parent
MODULES = {path.name: ast.parse(path.read_text()) for path in sorted(ENGINE.glob("*.py"))}
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "sort", "reverse"}


def _declared(tree: ast.Module) -> set[str]:
    """Fields declared in a module: its classes' ``__slots__``, class-level annotations
    (dataclasses, named tuples) and, for classes without slots, ``self.x`` in ``__init__``."""
    fields: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in item.targets
            ):
                value = item.value
                assert isinstance(value, ast.Tuple), f"{node.name}.__slots__ is not a literal"
                fields.update(ast.literal_eval(value))
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                fields.add(item.target.id)
            elif isinstance(item, ast.FunctionDef) and item.name == "__init__":
                fields.update(  # a class without __slots__ declares its fields in __init__
                    target.attr
                    for statement in ast.walk(item)
                    if isinstance(statement, ast.Assign | ast.AnnAssign)
                    for target in (
                        statement.targets
                        if isinstance(statement, ast.Assign)
                        else [statement.target]
                    )
                    if isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                )
    return fields


def _attribute_base(node: ast.expr) -> ast.Attribute | None:
    """``x.field`` for targets ``x.field``, ``x.field[i]``, ``x.field[i][j]``; else None."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node if isinstance(node, ast.Attribute) else None


def _written_fields(tree: ast.Module) -> list[tuple[str, int]]:
    """Every ``(field, line)`` a module writes: assigned, augmented, deleted, mutated in place."""
    written: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = [
                element
                for target in node.targets
                for element in (target.elts if isinstance(target, ast.Tuple) else [target])
            ]
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Delete) else [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
        ):
            targets = [node.func.value]
        for target in targets:
            base = _attribute_base(target)
            if base is not None:
                written.append((base.attr, node.lineno))
    return written


ALL_FIELDS = set().union(*(_declared(tree) for tree in MODULES.values()))

#: Known exceptions, each with its reason (none today: the table changes its seat
#: records through ``PlayerRecord``'s methods). Add one only with the reason beside it.
ALLOWED: dict[str, set[str]] = {}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_writes_a_field_it_does_not_declare(module):
    """A module writes (assigns, augments, mutates in place) only fields it declares itself.

    Fields are matched by name: a reader of one file sees every field it changes in
    that file's ``__slots__`` (or dataclass fields). The hand hands its phases the chip
    and card lists they change; each phase declares them.
    """
    own = _declared(MODULES[module])
    foreign = [
        f"{module}:{line} writes .{field}"
        for field, line in _written_fields(MODULES[module])
        if field in ALL_FIELDS and field not in own and field not in ALLOWED.get(module, ())
    ]
    assert foreign == []


def test_the_checker_sees_a_foreign_write():
    """The check above is not vacuous: a module writing another's field is caught."""
    tree = ast.parse(
        "class A:\n    __slots__ = ('mine',)\n"
        "def f(hand):\n    hand.mine = 1\n    hand.stacks[0] += 1\n    hand.events.append(2)\n"
    )
    assert {field for field, _ in _written_fields(tree)} == {"mine", "stacks", "events"}
    assert _declared(tree) == {"mine"}


def test_phase_is_assigned_only_by_the_hand_from_the_table():
    """Only ``_hand.py`` sets ``phase``, and only to the table's first phase, a phase read
    from ``NEXT_PHASE`` (a variable), or ``OVER`` when the hand ends early (R18, R28)."""
    allowed = {"PHASE_ORDER[0][0]", "phase", "_OVER"}
    for module, tree in MODULES.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "phase":
                    assert module == "_hand.py", f"{module}:{node.lineno} sets phase"
                    assert ast.unparse(node.value) in allowed, ast.unparse(node)


def test_next_phase_is_read_from_the_order_table():
    """``NEXT_PHASE`` is ``PHASE_ORDER`` read pairwise, it covers every phase, and the hand
    uses that very table."""
    order = [phase for phase, _, _ in PHASE_ORDER]
    assert order == sorted(Phase)
    assert NEXT_PHASE == dict(itertools.pairwise(order))
    assert _hand.NEXT_PHASE is _phase.NEXT_PHASE


def _play(config: GameConfig, seed: int, n: int = 3) -> tuple[list[Phase], Hand]:
    """Play a check/call hand; the phases at each decision, then the last."""
    rng = random.Random(seed)
    hand = Hand(config, [200] * n, 0, Deck.shuffled(rng))
    seen = [hand.phase]
    while not hand.is_over:
        if hand.phase is Phase.DRAW:
            hand.apply(Discard(tuple(hand.holes[hand.actor][:2])))
        else:
            hand.check_or_call()
        if hand.phase != seen[-1]:
            seen.append(hand.phase)
    return seen, hand


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(structure=Structure.NO_LIMIT, small_blind=1, big_blind=2),
        GameConfig(structure=Structure.FIXED_LIMIT, small_bet=2),
        GameConfig(forced_bets=ForcedBets.ANTES, ante=1, small_bet=2),
    ],
)
def test_a_hand_passes_through_the_phases_in_table_order(config):
    """A hand played to showdown visits exactly the phases of ``PHASE_ORDER``, in order,
    and opens each with the table's event."""
    seen, hand = _play(config, 7)
    assert seen == [phase for phase, _, _ in PHASE_ORDER]
    opened = [event for event in hand.events if isinstance(event, RoundStarted)]
    assert opened == [event for _, event, _ in PHASE_ORDER if event is not None]


def test_a_reordered_table_reorders_play(monkeypatch):
    """The order is data: with the draw taken out of the table, a hand goes from the
    first betting round straight to the second (so no phase starts the next one)."""
    monkeypatch.setitem(_phase.NEXT_PHASE, Phase.PREDRAW_BETTING, Phase.POSTDRAW_BETTING)
    config = GameConfig(structure=Structure.NO_LIMIT, small_blind=1, big_blind=2)
    seen, hand = _play(config, 3)
    assert seen == [Phase.PREDRAW_BETTING, Phase.POSTDRAW_BETTING, Phase.OVER]
    assert hand.draw_counts == [None, None, None]


def test_jackpots_with_no_opener_ends_after_the_first_round():
    """R28: nobody opens, so the hand leaves the table order early, dead."""
    config = GameConfig(
        forced_bets=ForcedBets.ANTES, ante=1, small_bet=2, opening=Opening.JACKS_OR_BETTER
    )
    for seed in range(50):
        rng = random.Random(seed)
        hand = Hand(config, [50, 50], 0, Deck.shuffled(rng))
        while not hand.is_over:
            hand.check()
        if hand.dead:
            assert hand.phase is Phase.OVER and hand.draw_counts == [None, None]
            return
    pytest.fail("no dead Jackpots hand in 50 seeds")


def _functions_raising(reason: str) -> list[str]:
    """Every engine function whose body names ``Reason.<reason>``."""
    found = []
    for module, tree in MODULES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(inner, ast.Attribute)
                and inner.attr == reason
                and isinstance(inner.value, ast.Name)
                and inner.value.id == "Reason"
                for inner in ast.walk(node)
            ):
                found.append(f"{module}:{node.name}")
    return found


@pytest.mark.parametrize(
    ("reason", "where"),
    [
        ("CANNOT_FOLD", "_betting.py:verify_fold"),
        ("CANNOT_CHECK", "_betting.py:verify_check"),
        ("AMOUNT_TOO_SMALL", "_betting.py:verify_raise"),
        ("AMOUNT_TOO_LARGE", "_betting.py:verify_raise"),
        ("RAISE_CAPPED", "_betting.py:_why_no_raise"),
        ("NOT_QUALIFIED_TO_OPEN", "_betting.py:_why_no_raise"),
        ("TOO_MANY_DISCARDS", "_drawing.py:verify_discard"),
        ("CARD_NOT_HELD", "_drawing.py:verify_discard"),
        ("DUPLICATE_CARD", "_drawing.py:verify_discard"),
    ],
)
def test_each_legality_rule_is_written_once(reason, where):
    """Each refusal is raised from one function, which ``verify`` and the action share."""
    assert _functions_raising(reason) == [where]


def test_verify_and_apply_refuse_alike():
    """For every action at every decision of random hands, ``verify`` refuses exactly
    what ``apply`` refuses, with the same reason, and a refused apply changes nothing."""
    from arena.engine import CALL, CHECK, FOLD, BetRaise, IllegalActionError

    config = GameConfig(structure=Structure.NO_LIMIT, small_blind=1, big_blind=2)
    rng = random.Random(11)
    for _ in range(40):
        hand = Hand(config, [rng.randint(3, 60) for _ in range(3)], 0, Deck.shuffled(rng))
        while not hand.is_over:
            hole = hand.holes[hand.actor]
            candidates = [CALL, CHECK, FOLD, BetRaise(rng.randint(0, 80)), Discard(tuple(hole[:2]))]
            candidates.append(Discard((hole[0], hole[0])))
            for action in candidates:
                try:
                    hand.verify(action)
                    verdict = None
                except IllegalActionError as error:
                    verdict = error.reason
                if verdict is not None:
                    before = repr(hand), len(hand.events)
                    with pytest.raises(IllegalActionError) as caught:
                        hand.apply(action)
                    assert caught.value.reason == verdict
                    assert (repr(hand), len(hand.events)) == before
            legal = [action for action in candidates if hand.can_apply(action)]
            hand.apply(rng.choice(legal))


#: The engine's modules stay a size a reader takes in at once (``STYLE.md``: "one idea
#: per module, a few hundred lines"; issue 8 asks for about 500).
MAX_MODULE_LINES = 500


def test_engine_modules_stay_small():
    """No engine module grows past ``MAX_MODULE_LINES`` lines: split it by idea instead."""
    sizes = {path.name: len(path.read_text().splitlines()) for path in ENGINE.glob("*.py")}
    assert {name: lines for name, lines in sizes.items() if lines > MAX_MODULE_LINES} == {}
