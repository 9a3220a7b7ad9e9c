"""Cost matrices named by their classes (rehearsal h46r): a labelled DataFrame and a `--costs` file with a
header row are read by their labels, in any order; a UTF-8 BOM is allowed."""

import json

import numpy as np
import pandas as pd
import pytest

from satdt.cli import main
from satdt.data import DataError, load_dataset
from satdt.estimators import BinOCTClassifier, DPTreeClassifier, MaxSATTreeClassifier

NAMES = np.array(["setosa", "versicolor", "virginica"])
COSTS = pd.DataFrame([[0, 1, 1], [5, 0, 1], [5, 1, 0]], index=NAMES, columns=NAMES)
ORDER = ["virginica", "setosa", "versicolor"]


@pytest.mark.parametrize("estimator", [DPTreeClassifier, MaxSATTreeClassifier, BinOCTClassifier])
def test_a_labelled_cost_frame_is_read_by_its_labels(estimator):
    """The same costs with rows and columns in another order gave another tree (the DP: total cost 11
    where the least is 6): the frame was read by position."""
    data = load_dataset("iris")
    y = NAMES[data.y]
    # (the MIP on every threshold of iris: 25 s a fit; on 3 quantiles a fit of 1 s, its optimum 19)
    few = {} if estimator is DPTreeClassifier else {"binarization": "quantile", "n_thresholds": 3}
    plain = estimator(max_depth=2, costs=COSTS.to_numpy(), **few).fit(data.X, y)
    for frame in (COSTS, COSTS.loc[ORDER, ORDER], COSTS.loc[ORDER, ["versicolor", "virginica", "setosa"]]):
        model = estimator(max_depth=2, costs=frame, **few).fit(data.X, y)
        assert model.result_.objective == plain.result_.objective == (19.0 if few else 6.0)
        assert str(model.result_.status) == "OPTIMAL"
        if estimator is DPTreeClassifier:  # (the MIP may pick another tree of the same cost)
            assert (model.predict(data.X) == plain.predict(data.X)).all()


def test_a_cost_frame_whose_labels_are_not_the_classes_is_refused():
    data = load_dataset("iris")
    y = NAMES[data.y]
    with pytest.raises(DataError, match="labels must be the classes"):
        DPTreeClassifier(max_depth=2, costs=COSTS.rename(index={"setosa": "Iris-setosa"})).fit(data.X, y)
    unlabelled = pd.DataFrame(COSTS.to_numpy())  # (0 .. k - 1 both ways: by position, as an array)
    assert DPTreeClassifier(max_depth=2, costs=unlabelled).fit(data.X, y).result_.objective == 6.0


FILES = {"plain": "0,1,1\n5,0,1\n5,1,0\n",
         "bom": "\ufeff0,1,1\n5,0,1\n5,1,0\n",
         "labelled": ",setosa,versicolor,virginica\nsetosa,0,1,1\nversicolor,5,0,1\nvirginica,5,1,0\n",
         "labelled, permuted, spaces": "setosa versicolor virginica\nvirginica 5 1 0\nsetosa 0 1 1\nversicolor 5 0 1\n",
         "named corner": "true,virginica,setosa,versicolor\nversicolor,1,5,0\nsetosa,1,0,1\nvirginica,0,5,1\n",
         "header only": "setosa,versicolor,virginica\n0,1,1\n5,0,1\n5,1,0\n"}


@pytest.mark.parametrize("name", list(FILES))
def test_the_costs_file_formats(tmp_path, capsys, name):
    """A BOM (Excel's CSV) and a header row of the classes were "not a matrix of numbers"."""
    data = load_dataset("iris")
    frame = pd.DataFrame(data.X, columns=data.feature_names).assign(label=NAMES[data.y])
    frame.to_csv(tmp_path / "iris.csv", index=False)
    (tmp_path / "costs.csv").write_text(FILES[name], encoding="utf-8")
    assert main(["solve", str(tmp_path / "iris.csv"), "--method", "dp", "--max-depth", "2", "--costs",
                 str(tmp_path / "costs.csv"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["objective"] == 6.0


def test_a_costs_file_naming_other_classes_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "costs.csv").write_text(",a,b,c\na,0,1,1\nb,5,0,1\nc,5,1,0\n")
    assert main(["solve", "iris", "--method", "dp", "--max-depth", "2", "--costs", str(tmp_path / "costs.csv")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "labels must be the classes [0.0, 1.0, 2.0]" in err


@pytest.mark.parametrize("classes", [["a", "b", "c"], [1, 2, 3], [0.5, 1.5, 2.5]])
def test_a_cost_frame_labelled_on_one_side_reads_that_side_by_label(classes):
    """review46c D2: pd.DataFrame(M, columns=classes) (rows 0 .. k - 1, pandas' default) was refused ("row and
    column labels must be the classes"): a side with the default labels is read by position, a labelled side
    by its labels. Checked against the same matrix put in order by hand, for every permutation of a side."""
    from itertools import permutations

    from satdt.weights import load_costs
    matrix = np.array([[0, 1, 4], [2, 0, 1], [7, 3, 0]])
    for order in permutations(range(3)):
        names = [classes[j] for j in order]
        by_columns = load_costs(pd.DataFrame(matrix[:, list(order)], columns=names), np.array(classes))
        by_rows = load_costs(pd.DataFrame(matrix[list(order)], index=names), np.array(classes))
        assert np.array(by_columns, dtype=float).tolist() == matrix.tolist()
        assert np.array(by_rows, dtype=float).tolist() == matrix.tolist()
    with pytest.raises(DataError, match="labels must be the classes"):
        load_costs(pd.DataFrame(matrix, columns=["x", "y", "z"]), np.array(classes))


NUMBERED = np.array([[0, 1, 4], [2, 0, 1], [7, 3, 0]])


@pytest.mark.parametrize("header", ["0,1,2", "2,0,1", "0.0,1.0,2.0"])
def test_a_costs_file_with_a_header_of_numeric_classes(tmp_path, capsys, header):
    """review46c D3: classes 0/1/2 under a header "0,1,2" were refused ("costs has shape (4, 3), expected
    (3, 3)"): all cells are numbers, so the header was read as a data row. A first row that is a
    permutation of the classes, over k rows of k, is the header; checked against the plain matrix file."""
    data = load_dataset("iris")
    frame = pd.DataFrame(data.X, columns=data.feature_names).assign(label=data.y)
    frame.to_csv(tmp_path / "d.csv", index=False)
    order = [int(float(c)) for c in header.split(",")]
    body = NUMBERED[np.ix_(order, order)]  # (rows in the header's order)
    (tmp_path / "headed.csv").write_text(header + "\n" + "\n".join(",".join(map(str, r)) for r in body) + "\n")
    (tmp_path / "plain.csv").write_text("\n".join(",".join(map(str, r)) for r in NUMBERED) + "\n")
    objectives = []
    for name in ("plain.csv", "headed.csv"):
        assert main(["solve", str(tmp_path / "d.csv"), "--method", "dp", "--max-depth", "2", "--costs",
                     str(tmp_path / name), "--json"]) == 0
        objectives.append(json.loads(capsys.readouterr().out)["objective"])
    assert objectives[0] == objectives[1]


def test_a_costs_file_of_k_plus_one_numeric_rows_not_a_header_is_refused(tmp_path, capsys):
    """A first row that is not the classes (5,0,1) keeps the shape error."""
    data = load_dataset("iris")
    pd.DataFrame(data.X, columns=data.feature_names).assign(label=data.y).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "c.csv").write_text("5,0,1\n0,1,4\n2,0,1\n7,3,0\n")
    assert main(["solve", str(tmp_path / "d.csv"), "--method", "dp", "--max-depth", "2", "--costs",
                 str(tmp_path / "c.csv")]) == 1
    assert "shape (4, 3), expected (3, 3)" in capsys.readouterr().err
