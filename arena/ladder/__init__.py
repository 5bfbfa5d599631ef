"""The ladder server: teams submit bot folders, the arena builds and gates each version,
accepted versions play a continuous rated ladder, and the final is a frozen round robin.

It may import ``engine``, ``ratings``, ``sandbox``, ``store``, ``text``, ``tournament``,
``dealer``, ``policies``, ``protocol``, ``executors`` and ``web``; never the command line
(``arena ladder`` and ``arena submit`` drive it from there).
"""

__all__: list[str] = []
