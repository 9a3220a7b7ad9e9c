"""The KNOWN_OPTIMA table itself: every row names a source, and its figures agree with each other."""

import pytest

from known_optima import CONTREE, KNOWN_OPTIMA, STREED, known, rows

SOURCES = {"issue 3 table", "GOSDT 1.0.4", "InferDT", "issue 2 (stated)", "brute force", "regression (satdt)"}


@pytest.mark.parametrize("row", KNOWN_OPTIMA, ids=lambda o: f"{o.objective}-{o.dataset}-{o.depth}-{o.lam}")
def test_row_is_sourced_and_consistent(row):
    assert row.source in SOURCES
    assert row.verified in (None, STREED, CONTREE)
    if row.objective == "regularized":
        # the objective is the optimal tree's errors / n + lam * leaves (GOSDT's to 5 decimals)
        assert round(float(row.exact), 5) == round(row.value, 5)
    elif row.objective == "min_nodes":
        # DT_size at the minimum depth: a binary tree has an odd number of nodes
        assert row.value % 2 == 1 and row.depth == known("min_depth", row.dataset).value
    else:
        assert row.value == int(row.value) >= 0


def test_deeper_is_never_worse():
    for o in rows("errors", depths=(3,)):
        assert o.value <= known("errors", o.dataset, 2).value
