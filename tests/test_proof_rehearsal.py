"""Certificates corrupted as a stranger's would be (the h44r rehearsal): each is refused by ``check`` as
:class:`Invalid`, and by ``satdt check`` with exit 1 and one ``invalid certificate`` line, never an internal error."""

from __future__ import annotations

import gzip
import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from satdt.binarize import Binarizer
from satdt.cli import main
from satdt.data import prepare
from satdt.deadline import Deadline
from satdt.proof import certify_result, check
from satdt.proof.check import Invalid
from satdt.solvers.dp import solve_max_accuracy_dp, solve_regularized_dp
from satdt.solvers.dp.search import CoreSearch


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> Path:
    rng = np.random.default_rng(3)
    data = prepare(rng.integers(0, 4, size=(30, 3)).astype(float), rng.integers(0, 3, size=30))
    out = tmp_path_factory.mktemp("cert") / "c"
    certify_result(solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=2), data, out, max_depth=2)
    check(out)
    return out


def _manifest_text(d: Path, edit) -> None:
    path = d / "manifest.json"
    path.write_text(edit(path.read_text()))


def _manifest(d: Path, **changes) -> None:
    man = json.loads((d / "manifest.json").read_text())
    man.update(changes)
    (d / "manifest.json").write_text(json.dumps(man))


def _garble_gzip(d: Path, name: str) -> None:
    raw = bytearray((d / name).read_bytes())
    for i in range(12, len(raw) - 8, 7):  # past the gzip header: the deflate stream (CRC and size kept)
        raw[i] ^= 0x5A
    (d / name).write_bytes(bytes(raw))


def _text_gz(d: Path, name: str, text: str) -> None:
    with gzip.open(d / name, "wt", encoding="utf-8") as fh:
        fh.write(text)


def _man_value(d: Path, key: str):
    return json.loads((d / "manifest.json").read_text())[key]


MUTANTS = {
    "garbled data.csv.gz": lambda d: _garble_gzip(d, "data.csv.gz"),
    "garbled claims.jsonl.gz": lambda d: _garble_gzip(d, "claims.jsonl.gz"),
    "lam 1/0": lambda d: _manifest(d, objective="regularized", lam="1/0"),
    "max_depth infinite": lambda d: _manifest_text(d, lambda t: t.replace('"max_depth": 2', '"max_depth": 1e999')),
    "value infinite": lambda d: _manifest_text(d, lambda t: t.replace('"value": ', '"value": 1e999, "v": ')),
    "tree nested past the recursion limit": lambda d: (d / "tree.json").write_text('{"left":' * 100_000 + "1" + "}" * 100_000),
    "a data field past the csv limit": lambda d: _text_gz(d, "data.csv.gz", "a,label\n" + "1" * 200_000 + ",0\n"),
    # a value or depth bound that is not a whole number: the manifest would state what the tree does not have
    "value 0.5 above the tree's": lambda d: _manifest(d, value=_man_value(d, "value") + 0.5),
    "value as a string": lambda d: _manifest(d, value=str(_man_value(d, "value"))),
    "max_depth 2.5": lambda d: _manifest(d, max_depth=2.5),
}


@pytest.mark.parametrize("kind", sorted(MUTANTS))
def test_a_corrupted_certificate_is_invalid_in_one_line(certificate, tmp_path, capsys, kind):
    bad = tmp_path / "bad"
    shutil.copytree(certificate, bad)
    MUTANTS[kind](bad)
    with pytest.raises(Invalid):
        check(bad)
    capsys.readouterr()
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("satdt: error: invalid certificate: ") and "\n" not in err and "internal error" not in err


def test_a_certificate_over_listed_thresholds_says_so(tmp_path):
    """A certificate may declare its search space (``thresholds``: a list per feature); its summary says the
    tree is optimal among those tests only, never plainly "optimal" (CART's iris tree, 4 errors at depth 3
    where the optimum over every test is 1, is optimal among its own 4 thresholds)."""
    from sklearn.tree import DecisionTreeClassifier

    from satdt import load_dataset
    from satdt.proof import write_certificate
    from satdt.verify import as_tree

    data = load_dataset("iris")
    tree = as_tree(DecisionTreeClassifier(max_depth=3, random_state=0).fit(data.X, data.labels), data)
    listed: dict[int, list[float]] = {}
    for node in tree.nodes():
        if not node.is_leaf:
            listed.setdefault(node.feature, []).append(node.threshold)
    write_certificate(tmp_path / "c", tree, data, "accuracy", max_depth=3, thresholds=listed)
    summary = check(tmp_path / "c")
    assert "the tree (4 errors) is optimal" in summary and "listed thresholds only" in summary
    write_certificate(tmp_path / "all", tree := as_tree(_optimal(data), data), data, "accuracy", max_depth=3)
    assert "listed" not in check(tmp_path / "all")


def _optimal(data):
    from satdt.estimators import DPTreeClassifier

    return DPTreeClassifier(max_depth=3).fit(data.X, data.labels)


def test_a_certificate_of_categorical_columns_only_is_read(tmp_path):
    import pandas as pd

    from satdt.estimators import DPTreeClassifier

    frame = pd.DataFrame({"a": list("xyzxyzxx"), "b": list("ppqqppqq")})
    DPTreeClassifier(max_depth=2, proof=str(tmp_path / "c")).fit(frame, np.array(list("01100110")))
    assert "categorical columns x0, x1" in check(tmp_path / "c")


@pytest.mark.parametrize("same_as", ["--output", "data"])
def test_a_proof_directory_that_is_also_the_output_or_the_data_is_refused_before_the_solve(tmp_path, capsys,
                                                                                           monkeypatch, same_as):
    """``--proof X --output X`` wrote the certificate, then failed on the output ('[Errno 21] Is a directory'),
    after the answer was printed; both are refused in one line before the solve now, nothing written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.csv").write_text("a,label\n1,x\n2,y\n3,x\n")
    target = "out" if same_as == "--output" else "d.csv"
    extra = ["--output", target] if same_as == "--output" else []
    assert main(["solve", "d.csv", "--method", "dp", "--max-depth", "1", "--proof", target, *extra]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and "internal error" not in captured.err
    assert "--proof" in captured.err or "proof directory" in captured.err
    assert (tmp_path / "d.csv").is_file() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("objective", ["depth", "size"])
def test_a_drup_certificate_unsat_by_unit_propagation_is_accepted(tmp_path, objective):
    """Two rows of two classes: "no tree of depth 0" is UNSAT by unit propagation, and Glucose logs no lemma at
    all; the proof must still end with the empty clause, which the checker requires (it refused the certificate
    the producer had just written: "the last is not the empty clause")."""
    from satdt.estimators import ConsistentTreeClassifier
    from satdt.proof import write_certificate

    X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1])
    model = ConsistentTreeClassifier(objective=objective).fit(X, y)
    write_certificate(tmp_path / "c", model.tree_, prepare(X, y), objective, route="drup")
    assert "(DRUP)" in check(tmp_path / "c")


def test_a_lam_past_the_integers_is_refused_by_producer_and_checker(certificate, tmp_path):
    """The costs are integers ``q errors + lc leaves`` (lam = p / q, lc = p n): the core's are below 2^53 and the
    checker's int64 arrays must not wrap. A lam of 2^-58 was a TypeError from the core's constructor in the
    producer; a manifest whose lam puts the costs past 2^62 is refused before any claim is read (a wrapped cost
    could pass a raised bound)."""
    rng = np.random.default_rng(5)
    data = prepare(rng.integers(0, 4, size=(60, 3)).astype(float), rng.integers(0, 3, size=60))
    res = solve_regularized_dp(Binarizer("all").problem(data), max_depth=2, lam=2.0 ** -58)
    assert res.status == "OPTIMAL"
    with pytest.raises(ValueError, match="64-bit"):  # (the checker's limit, shared: trusted.past_int64)
        certify_result(res, data, tmp_path / "tiny", max_depth=2)
    with pytest.raises(ValueError, match=r"exceeds 2\^53"):  # (the core's own, before its constructor)
        CoreSearch(Binarizer("all").problem(data), Deadline(None), 0.0, q=2 ** 58, leaf_cost=60)
    bad = tmp_path / "bad"
    shutil.copytree(certificate, bad)
    n = int(_man_value(bad, "n_rows"))
    _manifest(bad, objective="regularized", lam=f"1/{2 ** 62 // n}")
    with pytest.raises(Invalid, match="past 64-bit costs"):
        check(bad)
    _manifest(bad, lam=f"1/{2 ** 50 // n}")  # (within the integers: refused for its tree's cost, not its lam)
    with pytest.raises(Invalid, match="tree"):
        check(bad)


@pytest.mark.parametrize("end", [float("nan"), float("-inf")])
def test_a_range_entry_with_a_non_finite_end_is_not_a_candidate(tmp_path, capsys, end):
    """A forged split claim (review44): a range ``[f, NaN, hi, left, right]`` (json reads NaN) put every row of
    the set on its left side, pointing at the set's own leaf claim, and its coverage of -1 passed as covered: a
    single leaf of 3 errors was accepted as optimal where one split makes 1 error. A non-finite threshold is no
    candidate (in a path step too), and a gap counted below zero is not covered."""
    (tmp_path / "d.csv").write_text("x0,y\n0,A\n0,B\n1,A\n1,A\n2,B\n2,B\n")
    good, bad = tmp_path / "good", tmp_path / "bad"
    assert main(["solve", str(tmp_path / "d.csv"), "--method", "dp", "--max-depth", "1", "--proof", str(good)]) == 0
    check(good)
    shutil.copytree(good, bad)
    _manifest(bad, value=3, errors=3, leaves=1)
    (bad / "tree.json").write_text(json.dumps({"classes": ["A", "B"], "root": {"class": "A"}}))
    claims = [{"id": 0, "path": [], "depth": 0, "bound": 3, "rule": "leaf"},
              {"id": 1, "path": [[0, 0.0, "L"]], "depth": 0, "bound": 1, "rule": "leaf"},
              {"id": 2, "path": [[0, 0.0, "R"]], "depth": 0, "bound": 2, "rule": "leaf"},
              {"id": 3, "path": [], "depth": 1, "bound": 3, "rule": "split",
               "tests": [[0, 0.0, 1, 2], [0, end, 0.0, 0, 2]]}]
    _text_gz(bad, "claims.jsonl.gz", "\n".join(map(json.dumps, claims)) + "\n")
    with pytest.raises(Invalid, match="not finite"):
        check(bad)
    claims[1]["path"] = [[0, end, "L"]]  # (a path step past every value)
    claims[3]["tests"] = [[0, 0.0, 1, 2]]
    _text_gz(bad, "claims.jsonl.gz", "\n".join(map(json.dumps, claims)) + "\n")
    with pytest.raises(Invalid, match="not finite"):
        check(bad)
    capsys.readouterr()


@pytest.mark.parametrize("test", [{"feature": 1, "threshold": float("nan")}, {"feature": 1, "threshold": float("inf")},
                                  {"feature": 0.5, "threshold": -1.0}])
def test_a_tree_test_not_a_candidate_is_refused(tmp_path, test):
    """review44b: the tree file's tests are the search space's too: a NaN / infinite threshold (every row on one
    side, the tree's cost unchanged) or a feature 0.5 (read as 0) made a tree outside the space "optimal"."""
    from satdt.estimators import DPTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(80, 2)).astype(float)
    good, bad = tmp_path / "good", tmp_path / "bad"
    DPTreeClassifier(max_depth=2, proof=str(good)).fit(X, (X[:, 0] > 1).astype(int))  # (a depth-1 tree suffices)
    check(good)
    shutil.copytree(good, bad)
    tree = json.loads((bad / "tree.json").read_text())
    root = tree["root"]
    side = {"left": root, "right": {"class": 0}} if test["threshold"] == float("inf") else \
        {"left": {"class": 1}, "right": root}  # (the rows all go to the original tree: the same cost)
    (bad / "tree.json").write_text(json.dumps({**tree, "root": {**test, **side}}))
    with pytest.raises(Invalid, match="tree: "):
        check(bad)


def test_a_lam_whose_costs_pass_the_checkers_integers_gets_no_certificate(tmp_path):
    """The producer and the checker share one limit (trusted.past_int64): a lam with many digits on 200,000 rows
    (q n + lc (n + 2) >= 2^62, yet the tree's costs fit at depth 1) was written, then refused by the checker
    (review44b); it is checked now, and a lam past the limit is refused by the producer, not written."""
    from fractions import Fraction

    from satdt.estimators import DPTreeClassifier
    from satdt.proof import write_certificate

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200_000, 1)).astype(float)
    y = ((X[:, 0] > 0) ^ (rng.random(200_000) < 0.1)).astype(int)
    DPTreeClassifier(max_depth=1, lam=0.0123456789, proof=str(tmp_path / "c"), time_limit=120).fit(X, y)
    check(tmp_path / "c")
    data = prepare(X[:1000], y[:1000])
    tree = DPTreeClassifier(max_depth=1).fit(X[:1000], y[:1000]).tree_
    with pytest.raises(ValueError, match="64-bit"):
        write_certificate(tmp_path / "d", tree, data, "regularized", max_depth=1, lam=Fraction(2 ** 52, 3))
    assert not (tmp_path / "d").exists()


def _wide(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """12 rows of 800 columns of 0-2 (h45r): the boxes' count over them passes the floats' range."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, (12, 800)).astype(float), rng.integers(0, 2, 12)


def test_a_certificate_on_wide_data_prints_no_numpy_warning(tmp_path):
    """DT_size on 800 columns: the producer's enumeration and box rules estimated their work by a product over the
    columns that overflowed, and numpy's 'overflow encountered in reduce' reached stderr (the certificate was fine)."""
    from satdt.estimators import ConsistentTreeClassifier

    X, y = _wide()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ConsistentTreeClassifier(objective="size", max_depth=4, engine="dp", proof=str(tmp_path / "c")).fit(X, y)
    assert check(tmp_path / "c").startswith("size 5:")


def test_a_box_claim_on_wide_data_is_refused_in_one_line(tmp_path, capsys):
    """A box claim over 800 columns is past the rule's cap: refused in one line, no numpy warning on stderr."""
    from satdt.estimators import DPTreeClassifier

    X, y = _wide()
    d = tmp_path / "c"
    DPTreeClassifier(max_depth=3, proof=str(d)).fit(X, y)
    _text_gz(d, "claims.jsonl.gz", json.dumps({"id": 0, "path": [], "depth": 3, "bound": _man_value(d, "value"),
                                               "rule": "box"}) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["check", str(d)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid certificate: claim 0" in err
