"""Missing values in pandas' own column types (h44r's rehearsal): a ``category`` column with NaN was fitted, then
``predict`` on the same frame raised pandas' "Cannot setitem on a Categorical with a new category (<missing>)"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from satdt.estimators import DPTreeClassifier


@pytest.mark.parametrize("dtype", ["category", "string", "object"])
def test_a_text_column_with_missing_values_predicts_as_it_was_fitted(dtype):
    rng = np.random.default_rng(0)
    values = np.where(rng.random(30) < 0.25, None, rng.choice(["x", "y", "z"], size=30))
    y = np.where(pd.isna(values), 1, rng.integers(0, 2, size=30))  # the missing rows: class 1
    frame = pd.DataFrame({"a": pd.Series(values, dtype=dtype), "b": rng.integers(0, 3, size=30).astype(float)})
    model = DPTreeClassifier(max_depth=2).fit(frame, y)
    errors = int((model.predict(frame) != y).sum())
    assert errors == model.result_.objective
    assert (model.predict(frame.iloc[::-1]) == model.predict(frame)[::-1]).all()
