"""A tree that splits a categorical column by a range of its codes (a scikit-learn tree fit on the codes
``Dataset.X`` holds), with several categories on each side, is outside satdt's search space (one test
``x == v`` a category). ``certify`` said "internal error, please report" when such a tree beat the optimum
over that space, and ``certify(..., proof=)`` / ``satdt verify --proof`` failed as a whole (the answer lost)
when such a tree was optimal (h44r's rehearsal)."""

from __future__ import annotations

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from satdt.cli import main
from satdt.data import prepare
from satdt.proof import check
from satdt.tree import Node, Tree
from satdt.verify import certify


def _data(second_feature: bool):
    """Categories a, b (2 p, 1 q each) and c, d (1 p, 2 q each), 3 copies: the codes <= 1.5 split makes 4
    errors (x 3 copies), the best single category 5; with ``second_feature`` a numeric column separating {a, b} from
    {c, d} makes the 4 errors within the search space too."""
    cats = list("aaabbbcccddd")
    labels = list("ppqppqpqqpqq")
    frame = pd.DataFrame({"colour": cats * 3})
    if second_feature:
        frame["x"] = [0.0 if c in "ab" else 1.0 for c in cats * 3]
    return prepare(frame, np.array(labels * 3))


def _grouped_tree(data) -> Tree:
    p, q = list(data.classes).index("p"), list(data.classes).index("q")
    return Tree(Node.split(0, 1.5, Node.leaf(p), Node.leaf(q)), data.classes)


def test_a_tree_beating_the_optimum_by_grouping_categories_is_refused_in_one_line(tmp_path, capsys):
    data = _data(second_feature=False)
    with pytest.raises(ValueError, match="categories a, b on one side"):
        certify(_grouped_tree(data), data, objective="accuracy")
    # scikit-learn fit on the codes, through the command line
    cart = DecisionTreeClassifier(max_depth=1, random_state=0).fit(data.X, data.labels)
    joblib.dump(cart, tmp_path / "cart.joblib")
    csv = tmp_path / "d.csv"
    pd.DataFrame({"colour": np.asarray(data.schema.categories[0], dtype=object)[data.X[:, 0].astype(int)],
                  "label": data.labels}).to_csv(csv, index=False)
    assert main(["verify", str(csv), "--sklearn", str(tmp_path / "cart.joblib"), "--objective", "accuracy"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "internal error" not in err and "x == " in err


def test_an_optimal_tree_grouping_categories_gets_the_engines_tree_as_its_certificate(tmp_path):
    data = _data(second_feature=True)
    cert = certify(_grouped_tree(data), data, objective="accuracy", proof=tmp_path / "cert")
    assert cert.status == "OPTIMAL" and cert.tree_value == 12
    assert "certificate" in cert.params
    assert "the tree (12 errors) is optimal" in check(tmp_path / "cert")
