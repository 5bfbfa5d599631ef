"""The little dense linear algebra the batch fit needs, for symmetric positive-definite matrices.

A few dozen bots make matrices of a few dozen rows, so plain Python is fast enough and keeps
the package free of a numerical dependency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Matrix = list[list[float]]


def cholesky(a: Sequence[Sequence[float]]) -> Matrix:
    """The lower-triangular ``L`` with ``L @ L.T == a``; ``ValueError`` if ``a`` is not positive definite."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - math.fsum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if not s > 0.0:
                    raise ValueError("the matrix is not positive definite")
                low[i][i] = math.sqrt(s)
            else:
                low[i][j] = s / low[j][j]
    return low


def _cholesky_solve(low: Matrix, b: Sequence[float]) -> list[float]:
    n = len(low)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - math.fsum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - math.fsum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def solve_spd(a: Sequence[Sequence[float]], b: Sequence[float]) -> list[float]:
    """The ``x`` with ``a @ x == b`` for a symmetric positive-definite ``a``."""
    return _cholesky_solve(cholesky(a), b)


def inverse_spd(a: Sequence[Sequence[float]]) -> Matrix:
    """The inverse of a symmetric positive-definite ``a``."""
    low = cholesky(a)
    n = len(a)
    columns = [_cholesky_solve(low, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]
