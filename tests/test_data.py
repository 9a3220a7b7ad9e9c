"""satdt.data: loading and validation with clear errors."""

import numpy as np
import pandas as pd
import pytest

from satdt.data import DataError, bundled_datasets, encode_features, load_csv, load_dataset, prepare

EXPECTED_BUNDLED = {"iris", "monk1", "monk2", "monk3", "mouse", "wine", "balance-scale", "car",
                    "zoo", "tic-tac-toe", "compas", "lung-cancer", "bmi"}


def test_bundled_datasets_present_and_loadable():
    names = set(bundled_datasets())
    assert EXPECTED_BUNDLED <= names
    iris = load_dataset("iris")
    assert iris.X.shape == (150, 4) and len(iris.classes) == 3
    assert iris.feature_names == ["feat_1", "feat_2", "feat_3", "feat_4"]


def test_bom_header_is_stripped():
    data = load_dataset("balance-scale")
    assert data.feature_names[0] == "Feat0"
    assert data.X.shape == (625, 4)


def test_text_columns_become_categories():
    data = load_dataset("bmi")
    assert 0 in data.schema.categories
    assert set(data.schema.categories[0]) == {"Female", "Male"}
    assert set(np.unique(data.X[:, 0])) == {0.0, 1.0}


def test_pandas_and_numpy_inputs_agree():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = np.array(["a", "b", "a"])
    d1 = prepare(X, y)
    d2 = prepare(pd.DataFrame(X, columns=["p", "q"]), pd.Series(y))
    assert np.array_equal(d1.X, d2.X) and np.array_equal(d1.y, d2.y)
    assert d2.feature_names == ["p", "q"] and list(d1.classes) == ["a", "b"]


@pytest.mark.parametrize("X, y, message", [
    (np.array([[1.0, np.nan], [2.0, 3.0]]), [0, 1], "NaN"),
    (np.array([[1.0, np.inf], [2.0, 3.0]]), [0, 1], "infinite"),
    (np.zeros((0, 2)), [], "no row"),
    (np.zeros((3, 0)), [0, 1, 0], "no feature"),
    (np.array([[1.0], [2.0], [3.0]]), [0, 1], "3 rows but y has 2"),
    (np.array([[1.0], [2.0]]), [1, 1], "single class"),
    (np.array([[1.0]]), [1], "single row"),
    (np.array([[1.0], [2.0]]), [0, None], "missing label"),
    (np.array([1.0, 2.0]), [0, 1], "two-dimensional"),
    (np.array([[1.0], [2.0]]), [[0, 1], [1, 0]], "one label per row"),
])
def test_bad_input_gives_clear_error(X, y, message):
    with pytest.raises(DataError, match=message):
        prepare(X, y)


def test_text_column_with_missing_value():
    frame = pd.DataFrame({"c": ["a", None, "b"], "n": [1, 2, 3]})
    with pytest.raises(DataError, match="missing"):
        prepare(frame, [0, 1, 0])


def test_predict_time_encoding_checks_schema():
    frame = pd.DataFrame({"c": ["a", "b", "a"], "n": [1.0, 2.0, 3.0]})
    _, schema = encode_features(frame)
    X, _ = encode_features(pd.DataFrame({"c": ["b"], "n": [0.5]}), schema=schema)
    assert X.tolist() == [[1.0, 0.5]]
    with pytest.raises(DataError, match="not seen at fit time"):
        encode_features(pd.DataFrame({"c": ["z"], "n": [0.5]}), schema=schema)
    with pytest.raises(DataError, match="3 features"):
        encode_features(np.zeros((1, 3)), schema=schema)


def test_csv_errors(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        load_csv(tmp_path / "missing.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="empty"):
        load_csv(empty)
    header_only = tmp_path / "h.csv"
    header_only.write_text("a,b,label\n")
    with pytest.raises(DataError, match="no data row"):
        load_csv(header_only)
    one_col = tmp_path / "one.csv"
    one_col.write_text("label\n1\n0\n")
    with pytest.raises(DataError, match="at least one feature"):
        load_csv(one_col)
    with pytest.raises(DataError, match="unknown dataset"):
        load_dataset("no-such-dataset")


def test_csv_with_bom_and_text(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes("\ufeffcolour,size,label\nred,1,yes\nblue,2,no\nred,3,no\n".encode("utf-8"))
    data = load_csv(path)
    assert data.feature_names == ["colour", "size"]
    assert data.schema.categories == {0: ["blue", "red"]}
    assert list(data.classes) == ["no", "yes"]


def test_large_numeric_csv_read_by_numpy_equals_pandas(tmp_path, monkeypatch):
    """Files above the plain reader's size go to numpy's parser when every feature is a finite
    number (issue 22's wide data: no pandas import); the Dataset is pandas' one, and anything
    else (text, empty cells, quotes, ragged rows) still goes to pandas with its messages."""
    import pandas as pd

    import satdt.data as data_module
    from satdt.data import DataError, load_csv

    monkeypatch.setattr(data_module, "_SIMPLE_CSV_MAX_BYTES", 0)  # small files take the numpy path
    monkeypatch.setattr(data_module, "_WIDE_CSV_FIELDS", 2)
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=40).round(7), rng.integers(-3, 3, 40), np.full(40, 2.5)])
    for labels in (rng.integers(0, 3, 40).astype(str), rng.choice(["yes", "no"], 40),
                   rng.choice(["1.0", "2.0"], 40)):
        path = tmp_path / "d.csv"
        with open(path, "w") as f:
            f.write("a,b,c,label\n")
            for row, lab in zip(X, labels):
                f.write(",".join(repr(float(v)) for v in row) + f",{lab}\n")
        fast = data_module._read_numeric_csv(path, True)
        assert fast is not None
        frame = pd.read_csv(path)
        slow = data_module.prepare(frame.iloc[:, :-1], frame.iloc[:, -1], name="d")
        assert np.array_equal(fast.X, slow.X) and np.array_equal(fast.y, slow.y)
        assert list(fast.classes) == list(slow.classes) and fast.feature_names == slow.feature_names
        assert type(fast.classes[0]) is type(slow.classes[0])
    for bad in ("1.0,2.0,nan,1\n", "1.0,,3.0,1\n", "1.0,x,3.0,1\n", '"1.0",2.0,3.0,1\n', "1.0,2.0,1\n"):
        path = tmp_path / "bad.csv"
        path.write_text("a,b,c,label\n1.0,2.0,3.0,0\n" + bad)
        assert data_module._read_numeric_csv(path, True) is None
    path.write_text("a,b,c,label\n1.0,2.0,3.0,0\n1.0,2.0,nan,1\n")
    with pytest.raises(DataError, match="row 1"):
        load_csv(path)


def test_labels_while_another_thread_is_still_importing_pandas(monkeypatch):
    """encode_labels looks pandas up in sys.modules; while another thread imports it (scikit-learn's
    CART fitted beside a DP search) the module there has no Series yet: numpy labels still work."""
    import sys
    import types

    from satdt.data import encode_labels

    monkeypatch.setitem(sys.modules, "pandas", types.ModuleType("pandas"))  # half-way: no attributes
    y, classes = encode_labels(np.array(["b", "a", "b"]))
    assert y.tolist() == [1, 0, 1] and classes.tolist() == ["a", "b"]


def test_plain_decimal_columns_match_the_token_rule():
    """The simple reader's one-regex-per-column check accepts a column exactly when every token
    is a plain decimal (no exponent, no sign but '-') of at most 16 characters and 15 digits."""
    import re

    from satdt.data import _PLAIN_DECIMAL_LINES

    token = re.compile(r"-?(?:\d+\.?\d*|\.\d+)\Z")

    def by_token(col):
        return all(len(t) <= 16 and token.match(t) and sum(c.isdigit() for c in t) <= 15 for t in col)

    tricky = ["1", "-1", ".5", "5.", "-.5", "0.0", "1e5", "+1", "", " 1", "1 ", "nan", "1.2.3", "--1", "-",
              ".", "1234567890123456", "-123456789012345", "123456789012345", "12345678901234.5",
              "123456789012345.6", "1234567890123456.", "-1234567890123456"]
    rng = np.random.default_rng(0)
    alphabet = list("0123456789-.e+ ")
    randoms = ["".join(rng.choice(alphabet, size=rng.integers(1, 19))) for _ in range(3000)]
    for tok in tricky + randoms:
        assert bool(_PLAIN_DECIMAL_LINES.fullmatch(tok + "\n")) == by_token([tok]), tok
    for _ in range(300):  # columns: accepted when every token is
        col = list(rng.choice(tricky, size=rng.integers(1, 6)))
        assert bool(_PLAIN_DECIMAL_LINES.fullmatch("\n".join(col) + "\n")) == by_token(col), col


def test_integers_past_2_53_that_collapse_as_floats_are_refused_at_fit():
    """h45r: int64 / uint64 columns holding 2**53 + 1 beside 2**53 (equal as float64) were fit and called OPTIMAL over
    the floats (1 error where a depth-2 tree makes 0 on the integers); now one line. Integers past 2**53 that stay
    distinct as floats, and the same data at predict time, are read as before."""
    from satdt.estimators import DPTreeClassifier

    y = [0, 1, 0, 1]
    for X in (np.array([[2 ** 53], [2 ** 53 + 1], [2 ** 53 + 2], [2 ** 53 + 3]], dtype=np.int64),
              pd.DataFrame({"i": np.array([2 ** 64 - 1, 2 ** 64 - 2, 0, 1], dtype=np.uint64), "s": list("abab")})):
        with pytest.raises(ValueError, match="integers past 2\\*\\*53 that differ but are equal as float64"):
            DPTreeClassifier(max_depth=2).fit(X, y)
    X = np.array([[2 ** 60], [2 ** 60 + 2 ** 10], [3], [4]], dtype=np.int64)
    model = DPTreeClassifier(max_depth=2).fit(X, y)
    assert model.result_.objective == 0
    model.predict(np.array([[2 ** 53], [2 ** 53 + 1]], dtype=np.int64))
