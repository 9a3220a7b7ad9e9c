"""A certificate for a float lam of large denominator (rehearsal h46r): 1/7 as the float 0.142857...
is 14285714285714285/10^17; the producer's shortcut (the compiled DP's depth-2 optima) refuses such
costs past 2^53, and that refusal ("q * total weight + leaf_cost * leaves exceeds 2^53 at this depth")
was the certificate's: no certificate for 75 of 90 random sets. The shortcut is skipped now; the checker's
int64 costs hold them (the producer's own past_int64 guard still refuses past 2^63)."""

import warnings

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import prepare
from satdt.estimators import DPTreeClassifier
from satdt.proof import check


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lam", [1 / 7, 0.1 + 0.2, 1 / 9])
def test_a_float_lam_of_large_denominator_gets_its_certificate(tmp_path, seed, lam):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (9, 2)).astype(float)
    y = rng.integers(0, 3, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (the refusal was a RuntimeWarning)
        model = DPTreeClassifier(max_depth=2, lam=lam, proof=str(tmp_path / "c")).fit(X, y)
    assert "regularized at depth <= 2" in check(str(tmp_path / "c"))
    best, _ = bruteforce.min_regularized(Binarizer("all").problem(prepare(X, y)), lam, 2)
    assert model.result_.objective == pytest.approx(best, abs=1e-12)
