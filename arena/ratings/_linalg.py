"""The little dense linear algebra the batch fit needs, for symmetric positive-definite matrices.

numpy's LAPACK routines: a league of 200 bots makes 200-row matrices, which a pure-Python
Cholesky took seconds over and LAPACK takes a millisecond over.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

Matrix = NDArray[np.float64]


def _spd(a: ArrayLike) -> Matrix:
    matrix = np.asarray(a, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"a square matrix is needed, got shape {matrix.shape}")
    return matrix


def cholesky(a: ArrayLike) -> Matrix:
    """The lower-triangular ``L`` with ``L @ L.T == a``; ``ValueError`` if ``a`` is not positive definite."""
    try:
        return np.linalg.cholesky(_spd(a))
    except np.linalg.LinAlgError:
        raise ValueError("the matrix is not positive definite") from None


def solve_spd(a: ArrayLike, b: Sequence[float] | ArrayLike) -> NDArray[np.float64]:
    """The ``x`` with ``a @ x == b`` for a symmetric positive-definite ``a``."""
    low = cholesky(a)
    y = np.linalg.solve(low, np.asarray(b, dtype=np.float64))
    return np.linalg.solve(low.T, y)


def inverse_spd(a: ArrayLike) -> Matrix:
    """The inverse of a symmetric positive-definite ``a`` (``ValueError`` if it is not)."""
    low = cholesky(a)
    inverse_low = np.linalg.solve(low, np.eye(low.shape[0]))
    return inverse_low.T @ inverse_low
