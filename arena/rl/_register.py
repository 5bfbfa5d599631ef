"""The Gymnasium id ``arena/FiveCardDraw-v0``, registered without importing gymnasium.

Gymnasium 1.x finds third-party environments only in its registry, filled by
``gymnasium.register`` when the package that owns them is imported (the plugin entry
points of gym 0.2x are gone; ``gymnasium.register_envs(module)`` is a no-op that only tells
linters the import is used). ``import arena.rl`` must stay free of gymnasium (it costs a
few hundred ms and the extra may be absent), so :func:`install` registers at once when
gymnasium is already loaded, and otherwise leaves a one-shot finder on ``sys.meta_path``
that registers the id as soon as gymnasium's own import finishes. Either import order
then gives ``gymnasium.make("arena/FiveCardDraw-v0", **gym_env_keywords)``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

GYM_ID = "arena/FiveCardDraw-v0"
ENTRY_POINT = "arena.rl._gym:DrawPokerGym"
"""The class :func:`arena.rl.gym_env` makes: ``gymnasium.make`` reads its ``metadata``."""


def register(gymnasium: ModuleType) -> None:
    """Register :data:`GYM_ID` in ``gymnasium``'s registry (once)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point=ENTRY_POINT)


def install() -> None:
    """Register now if gymnasium is loaded, else when it is (see the module docstring)."""
    gymnasium = sys.modules.get("gymnasium")
    if gymnasium is not None and hasattr(gymnasium, "register"):
        register(gymnasium)
    elif not any(isinstance(finder, _OnGymnasiumImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnGymnasiumImport())


class _OnGymnasiumImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: on ``import gymnasium`` it steps aside, lets the other finders
    find it and wraps the loader so that the id is registered once the module has run."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)  # one shot, and no recursion into the lookup below
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    """gymnasium's own loader, then :func:`register`; everything else passed through."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader  # gymnasium's own again, once it has run
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        register(module)

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, ...
        return getattr(self._loader, name)
