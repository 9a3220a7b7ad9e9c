"""ConsistentTreeClassifier with sample_weight (rehearsal h46r): positive weights never change the
question (every row of positive weight classified), zero weights drop rows, and the witness rows of a
certificate are reported in the user's row numbers."""

import numpy as np
import pytest

from satdt.estimators import ConsistentTreeClassifier
from satdt.proof import check

X = np.array([[5.0], [0.0], [1.0], [2.0], [3.0]])
Y = np.array([0, 0, 1, 1, 1])


@pytest.mark.parametrize("objective", ["depth", "size"])
@pytest.mark.parametrize("weights", [[1e-300, 1, 1, 1, 1], [1e-20, 1, 1, 1, 1], [1, 1e13, 1e13, 1e13, 1e13]])
def test_a_tiny_positive_weight_does_not_drop_its_row(objective, weights):
    """A weight that the integer rounding made 0 dropped its row: a "consistent" tree of depth 1
    misclassifying it (the question needs depth 2, 5 nodes)."""
    plain = ConsistentTreeClassifier(objective=objective).fit(X, Y)
    model = ConsistentTreeClassifier(objective=objective).fit(X, Y, sample_weight=np.array(weights, dtype=float))
    assert (model.predict(X) == Y).all()
    assert model.result_.objective == plain.result_.objective


def test_zero_weights_still_drop_rows():
    model = ConsistentTreeClassifier(objective="depth").fit(X, Y, sample_weight=np.array([0, 1, 1, 1, 1.0]))
    assert model.result_.objective == 1  # (row 0 dropped: x <= 0.5 classifies the others)


def test_the_witness_rows_are_the_users_rows_when_zero_weights_drop_some(tmp_path):
    """With row 0 of weight zero the witness was [0, 1, 2] of the kept rows, reported as the user's
    rows 0-2 (row 0 not even in the fit); now the user's rows, and the certificate (over the kept rows,
    its own numbering) is accepted."""
    Xw = np.array([[5.0], [0.0], [1.0], [2.0], [3.0]])
    yw = np.array([1, 0, 1, 0, 1])
    model = ConsistentTreeClassifier(objective="depth", proof=str(tmp_path / "c")).fit(
        Xw, yw, sample_weight=np.array([0, 1, 1, 1, 1.0]))
    witness = model.result_.stats["witness_rows"]
    assert witness == [1, 2, 3]
    assert 0 not in witness and len(set(yw[witness])) == 2
    assert "depth 2" in check(str(tmp_path / "c"))
