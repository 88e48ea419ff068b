"""Low-rank approximations of f_all: simple SVD of the 3^4 x 3^5 matricisation and HOSVD of the 27^3 tensor.

Board indices follow exact.py (cell 1 most significant), so a C-order reshape groups cells 1-4 | 5-9
for the SVD and cells 1-3, 4-6, 7-9 (one tensor mode each) for the HOSVD.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jbag_pipeline.tictactoe.exact import N_BOARDS

SVD_SHAPE = (3**4, 3**5)
TENSOR_SHAPE = (3**3, 3**3, 3**3)
SVD_MAX_RANK = 3**4
HOSVD_MAX_RANK = 3**3


@dataclass(frozen=True)
class Compression:
    """Every rank of one method: compression ratio, relative error and the approximated f per rank."""

    method: str  # "svd" or "hosvd"
    ranks: np.ndarray  # 0..max rank
    compression_ratios: np.ndarray
    errors: np.ndarray  # relative Frobenius error ||f - f_r|| / ||f||
    values: np.ndarray  # (len(ranks), 3^9): the approximated f at each rank, by board index


def svd_compression_ratio(r: int | np.ndarray) -> float | np.ndarray:
    """Cr = (3^4 r + r 3^5) / 3^9: the entries of the two rank-r factors over those of f."""
    return (3**4 * r + r * 3**5) / N_BOARDS


def hosvd_compression_ratio(r: int | np.ndarray) -> float | np.ndarray:
    """Cr = (3 * 3^3 r + r^3) / 3^9: three 27 x r factor matrices and an r x r x r core over f's entries."""
    return (3 * 3**3 * r + r**3) / N_BOARDS


def relative_error(f: np.ndarray, approximation: np.ndarray) -> float:
    """||f - approximation||_F / ||f||_F."""
    return float(np.linalg.norm(f - approximation) / np.linalg.norm(f))


def _check_values(f: np.ndarray, where: str) -> np.ndarray:
    f = np.asarray(f, dtype=np.float64)
    if f.shape != (N_BOARDS,) or not np.isfinite(f).all() or not f.any():
        raise ValueError(f"{where}: expected {N_BOARDS} finite values, not all zero; got shape {f.shape}")
    return f


def svd_compression(f: np.ndarray) -> Compression:
    """Simple SVD at every rank r = 0..81 (one decomposition, truncated 82 times)."""
    f = _check_values(f, "svd_compression")
    u, s, vt = np.linalg.svd(f.reshape(SVD_SHAPE), full_matrices=False)
    ranks = np.arange(SVD_MAX_RANK + 1)
    values = np.stack([((u[:, :r] * s[:r]) @ vt[:r]).reshape(N_BOARDS) for r in ranks])
    errors = np.array([relative_error(f, approximation) for approximation in values])
    return Compression("svd", ranks, svd_compression_ratio(ranks), errors, values)


def hosvd_factors(f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """L, M, R: left singular vectors of the mode-1/2/3 unfoldings of the 27 x 27 x 27 tensor of f."""
    tensor = _check_values(f, "hosvd_factors").reshape(TENSOR_SHAPE)
    factors = []
    for mode in range(3):
        unfolding = np.moveaxis(tensor, mode, 0).reshape(TENSOR_SHAPE[mode], -1)
        factors.append(np.linalg.svd(unfolding, full_matrices=False)[0])
    return factors[0], factors[1], factors[2]


def hosvd_truncation(f: np.ndarray, r: int, factors: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    """Tucker approximation with r columns of each factor: core C~ = X x L~* x M~* x R~*, then back."""
    f = _check_values(f, "hosvd_truncation")
    if not 0 <= r <= HOSVD_MAX_RANK:
        raise ValueError(f"hosvd_truncation: rank {r} is outside 0..{HOSVD_MAX_RANK}")
    left, middle, right = (m[:, :r] for m in (factors or hosvd_factors(f)))
    core = np.einsum("abc,ai,bj,ck->ijk", f.reshape(TENSOR_SHAPE), left, middle, right, optimize=True)
    return np.einsum("ijk,ai,bj,ck->abc", core, left, middle, right, optimize=True).reshape(N_BOARDS)


def hosvd_compression(f: np.ndarray) -> Compression:
    """HOSVD at every rank r = 0..27 (one set of factors, truncated 28 times)."""
    f = _check_values(f, "hosvd_compression")
    factors = hosvd_factors(f)
    ranks = np.arange(HOSVD_MAX_RANK + 1)
    values = np.stack([hosvd_truncation(f, int(r), factors) for r in ranks])
    errors = np.array([relative_error(f, approximation) for approximation in values])
    return Compression("hosvd", ranks, hosvd_compression_ratio(ranks), errors, values)
