"""Shared test helpers live beside this file (``processes``): make them importable.

Also: a skip inside a Trio test keeps its reason. pytest-trio 0.8 re-raises a
``pytest.skip("why")`` from inside ``trio.run`` as a bare ``pytest.skip()``, so the
summary said only "Skipped"; every skip must print why (the suite's rule).
"""

import sys
from pathlib import Path

import pytest
from _pytest.outcomes import Skipped

sys.path.insert(0, str(Path(__file__).parent))


def _only_leaf(group: BaseException | None) -> BaseException | None:
    """The single leaf exception of a (nested) exception group, else None."""
    if not isinstance(group, BaseExceptionGroup):
        return None
    leaves, queue = [], [group]
    while queue:
        exception = queue.pop()
        if isinstance(exception, BaseExceptionGroup):
            queue.extend(exception.exceptions)
        else:
            leaves.append(exception)
    return leaves[0] if len(leaves) == 1 else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    try:
        return (yield)
    except Skipped as skipped:
        leaf = _only_leaf(skipped.__context__)
        if not skipped.msg and isinstance(leaf, Skipped):
            raise leaf from None  # the skip the test raised, with its reason
        raise


FIXED_DEAL_KEY = "7e" * 32


@pytest.fixture(autouse=True)
def _fixed_deal_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs with ``$ARENA_DEAL_KEY`` set (issue 19 item 2): many compare two
    runs of one seed (parity, budgets, resume), which deal alike only with the same key,
    as an organiser's deliberate rerun does. Tests of the key itself unset it."""
    monkeypatch.setenv("ARENA_DEAL_KEY", FIXED_DEAL_KEY)
