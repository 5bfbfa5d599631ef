"""The little dense linear algebra the batch fit needs, for symmetric positive-definite matrices.

Column by column with numpy's element-wise operations, never ``numpy.linalg``: LAPACK
factors a 199 x 199 matrix in 0.2 ms on an idle machine, but its OpenBLAS thread pool
spins when the cores are busy (60-170 ms per call on 2 cores shared with a running
tournament, measured) and takes those cores from the dealer while it does. These loops
take 3-4 ms per factorisation whatever else runs, on the refit's thread alone.
"""

from __future__ import annotations

import math
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
    """The lower-triangular ``L`` with ``L @ L.T == a``; ``ValueError`` if ``a`` is not positive definite.

    Left-looking (column ``j`` from the columns before it), reading only the lower triangle.
    """
    matrix = _spd(a)
    n = matrix.shape[0]
    low = np.zeros((n, n))
    for j in range(n):
        column = matrix[j:, j] - (low[j:, :j] * low[j, :j]).sum(axis=1)
        pivot = float(column[0])
        if not pivot > 0.0:  # also refuses NaN
            raise ValueError("the matrix is not positive definite")
        root = math.sqrt(pivot)
        low[j, j] = root
        low[j + 1 :, j] = column[1:] / root
    return low


def _lower_inverse(low: Matrix) -> Matrix:
    """``L^-1`` of a lower-triangular ``L`` (also lower-triangular)."""
    n = low.shape[0]
    inverse = np.eye(n)
    for k in range(n):
        inverse[k, : k + 1] /= low[k, k]
        inverse[k + 1 :, : k + 1] -= np.multiply.outer(low[k + 1 :, k], inverse[k, : k + 1])
    return inverse


def solve_spd(a: ArrayLike, b: Sequence[float] | ArrayLike) -> NDArray[np.float64]:
    """The ``x`` with ``a @ x == b`` for a symmetric positive-definite ``a``."""
    low = cholesky(a)
    rhs = np.asarray(b, dtype=np.float64)
    n = low.shape[0]
    if rhs.shape != (n,):
        raise ValueError(f"b must have {n} values, got shape {rhs.shape}")
    y = np.zeros(n)
    for i in range(n):  # L y = b
        y[i] = (rhs[i] - (low[i, :i] * y[:i]).sum()) / low[i, i]
    upper = np.ascontiguousarray(low.T)
    x = np.zeros(n)
    for i in reversed(range(n)):  # L.T x = y
        x[i] = (y[i] - (upper[i, i + 1 :] * x[i + 1 :]).sum()) / upper[i, i]
    return x


def inverse_spd(a: ArrayLike) -> Matrix:
    """The inverse of a symmetric positive-definite ``a`` (``ValueError`` if it is not)."""
    inverse_low = _lower_inverse(cholesky(a))
    # einsum's own loop, not BLAS: (L^-1).T @ L^-1
    return np.einsum("ki,kj->ij", inverse_low, inverse_low)


def inverse_diagonal_spd(a: ArrayLike) -> NDArray[np.float64]:
    """The diagonal of ``inverse_spd(a)`` (the variances), without forming the rest of it."""
    inverse_low = _lower_inverse(cholesky(a))
    return (inverse_low * inverse_low).sum(axis=0)
