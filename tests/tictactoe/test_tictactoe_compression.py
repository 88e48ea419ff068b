"""SVD and HOSVD compression of f_all (jbag_pipeline.tictactoe.compression)."""

from fractions import Fraction

import numpy as np
import pytest

from jbag_pipeline.tictactoe.compression import (
    hosvd_compression, hosvd_compression_ratio, hosvd_factors, hosvd_truncation, svd_compression,
    svd_compression_ratio,
)
from jbag_pipeline.tictactoe.exact import N_BOARDS, exact_values


@pytest.fixture(scope="module")
def f():
    return exact_values()


@pytest.fixture(scope="module")
def svd(f):
    return svd_compression(f)


@pytest.fixture(scope="module")
def hosvd(f):
    return hosvd_compression(f)


def test_compression_ratio_formulas(svd, hosvd):
    assert svd.ranks.tolist() == list(range(82)) and hosvd.ranks.tolist() == list(range(28))
    assert svd.compression_ratios.tolist() == [float(Fraction(81 * r + r * 243, 3**9)) for r in range(82)]
    assert hosvd.compression_ratios.tolist() == [float(Fraction(3 * 27 * r + r**3, 3**9)) for r in range(28)]
    assert svd_compression_ratio(81) == pytest.approx(4 / 3)
    assert hosvd_compression_ratio(27) == pytest.approx((3 * 27 * 27 + 27**3) / 3**9)


def test_error_is_one_at_rank_zero_and_zero_at_full_rank(svd, hosvd):
    for compression in (svd, hosvd):
        assert compression.errors[0] == 1.0
        assert compression.errors[-1] < 1e-12
        assert np.all(np.diff(compression.errors) <= 1e-12)
        assert compression.values.shape == (len(compression.ranks), N_BOARDS)


def test_full_rank_reproduces_f_all(f, svd, hosvd):
    assert np.allclose(svd.values[-1], f, atol=1e-12)
    assert np.allclose(hosvd.values[-1], f, atol=1e-12)


def test_svd_compression_equals_numpy_reconstruction(f, svd):
    u, s, vt = np.linalg.svd(f.reshape(81, 243))
    for r in (1, 2, 3, 10, 40):
        expected = (u[:, :r] @ np.diag(s[:r]) @ vt[:r, :]).ravel()
        assert np.allclose(svd.values[r], expected, atol=1e-12)
        assert np.linalg.matrix_rank(svd.values[r].reshape(81, 243)) == r
        # Eckart-Young: the error is the norm of the dropped singular values
        assert svd.errors[r] == pytest.approx(np.sqrt((s[r:] ** 2).sum()) / np.sqrt((s**2).sum()), rel=1e-9)


def test_svd_matricisation_groups_cells_one_to_four(f):
    # row = cells 1-4, column = cells 5-9 of the board "120120000"
    assert f.reshape(81, 243)[int("1201", 3), int("20000", 3)] == f[int("120120000", 3)]


def test_hosvd_factors_are_orthogonal(f):
    for factor in hosvd_factors(f):
        assert factor.shape == (27, 27)
        assert np.allclose(factor.T @ factor, np.eye(27), atol=1e-10)


def test_hosvd_truncation_is_the_multilinear_projection(f, hosvd):
    factors = hosvd_factors(f)
    for r in (1, 2, 3, 12):
        projected = f.reshape(27, 27, 27)
        for mode, factor in enumerate(factors):
            projector = factor[:, :r] @ factor[:, :r].T
            projected = np.moveaxis(np.tensordot(projector, projected, axes=(1, mode)), 0, mode)
        assert np.allclose(hosvd.values[r], projected.ravel(), atol=1e-12)
        assert np.allclose(hosvd_truncation(f, r), projected.ravel(), atol=1e-12)
        unfolding = hosvd.values[r].reshape(27, 27, 27).reshape(27, 729)
        assert np.linalg.matrix_rank(unfolding) <= r


def test_rank_zero_is_all_zero(svd, hosvd):
    assert not svd.values[0].any() and not hosvd.values[0].any()


@pytest.mark.parametrize("call", [
    lambda f: svd_compression(f[:100]),
    lambda f: hosvd_compression(np.where(np.arange(N_BOARDS) == 5, np.nan, f)),
    lambda f: svd_compression(np.zeros(N_BOARDS)),
    lambda f: hosvd_truncation(f, -1),
])
def test_bad_input_raises(f, call):
    with pytest.raises(ValueError):
        call(f)
