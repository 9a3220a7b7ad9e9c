"""satdt.verify: certificates for given trees, checked against the brute-force reference."""

import json

import joblib
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.cli import main
from satdt.data import load_dataset, prepare
from satdt.estimators import ConsistentTreeClassifier, CPSATTreeClassifier
from satdt.verify import as_tree, certify, tree_value


def random_data(seed, n=40, p=3, classes=2, values=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(float)
    y = rng.integers(0, classes, size=n)
    return prepare(X, y)


def test_sklearn_tree_routes_like_sklearn_even_at_float32_edges():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(300, 3))
    # values a hair apart in float64 that float32 cannot tell apart
    X = np.vstack([base, base[:50] + 1e-9])
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    y[::7] = 1 - y[::7]
    data = prepare(X, y)
    model = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    tree = as_tree(model, data)
    assert np.array_equal(data.classes[tree.predict_index(data.X)], model.predict(X))
    assert tree.depth() == model.get_depth()


@pytest.mark.parametrize("seed", range(40))
def test_accuracy_certificate_matches_brute_force(seed):
    data = random_data(seed)
    model = DecisionTreeClassifier(max_depth=2, random_state=seed).fit(data.X, data.y)
    cert = certify(model, data, objective="accuracy")
    optimum, _ = bruteforce.min_errors(Binarizer("all").problem(data), model.get_depth())
    cart_errors = int((model.predict(data.X) != data.y).sum())
    assert cert.tree_value == cart_errors and cert.optimum == optimum
    assert cert.status == ("OPTIMAL" if cart_errors == optimum else "NOT_OPTIMAL")
    assert cert.gap_errors == cart_errors - optimum == cert.gap == cert.max_gap
    if cert.status == "NOT_OPTIMAL":
        better = cert.better_tree
        assert better.depth() <= 2
        assert int((better.predict_index(data.X) != data.y).sum()) == optimum


def test_planted_suboptimal_tree_gap():
    data = load_dataset("iris")
    best = CPSATTreeClassifier(lam=0.0, max_depth=2).fit(data.X, data.labels)
    assert certify(best, data, objective="accuracy").status == "OPTIMAL"
    planted = best.tree_.copy()
    leaf = next(n for n in planted.root.walk() if n.is_leaf and n.counts.max() > 0)
    wrong = int(np.argsort(leaf.counts)[0])
    loss = int(leaf.counts[leaf.label] - leaf.counts[wrong])
    leaf.label = wrong
    cert = certify(planted, data, objective="accuracy")
    assert cert.status == "NOT_OPTIMAL" and cert.gap_errors == loss and cert.gap == loss
    assert cert.optimum == 6  # iris, depth 2, every threshold (issue 3)


def test_depth_and_size_certificates():
    data = load_dataset("mouse")
    shallow = ConsistentTreeClassifier(objective="depth").fit(data.X, data.labels)
    cert = certify(shallow, data, objective="depth")
    assert cert.status == "OPTIMAL" and cert.tree_value == cert.optimum == 4
    small = ConsistentTreeClassifier(objective="size").fit(data.X, data.labels)
    assert certify(small, data, objective="size").status == "OPTIMAL"
    deep = DecisionTreeClassifier(random_state=0).fit(data.X, data.y)  # grown until pure
    cert = certify(deep, data, objective="size")
    assert cert.tree_value == deep.tree_.node_count
    assert cert.status == ("OPTIMAL" if deep.tree_.node_count == cert.optimum else "NOT_OPTIMAL")
    assert cert.optimum <= cert.tree_value
    with pytest.raises(ValueError, match="misclassifies"):
        certify(DecisionTreeClassifier(max_depth=1).fit(data.X, data.y), data, objective="depth")
    for objective in ("depth", "size"):  # DP (default) and SAT engines certify alike
        by_dp = certify(deep, data, objective=objective)
        by_sat = certify(deep, data, objective=objective, engine="sat")
        assert (by_dp.status, by_dp.optimum) == (by_sat.status, by_sat.optimum)
        assert by_dp.engine.method.startswith("dp-") and by_sat.engine.method.startswith("sat-")
    with pytest.raises(ValueError, match="depth objective is solved by dp or sat"):
        certify(shallow, data, objective="depth", engine="maxsat")


@pytest.mark.parametrize("seed", range(15))
def test_regularized_and_dpdt_certificates_match_brute_force(seed):
    data = random_data(100 + seed, n=30)
    problem = Binarizer("all").problem(data)
    model = DecisionTreeClassifier(max_depth=2 + seed % 2, random_state=0).fit(data.X, data.y)
    depth = model.get_depth()
    lam, alpha = 0.02, 0.03
    cert = certify(model, data, objective="regularized", lam=lam)
    assert cert.optimum == pytest.approx(bruteforce.min_regularized(problem, lam, depth)[0])
    assert cert.tree_value == pytest.approx(tree_value(as_tree(model, data), data, "regularized", lam=lam))
    assert (cert.status == "OPTIMAL") == (cert.tree_value <= cert.optimum + 1e-9)
    assert cert.gap_errors is None   # errors are traded for leaves: no error gap for this objective
    assert cert.gap == pytest.approx(cert.max_gap) == pytest.approx(cert.tree_value - cert.optimum)
    cert = certify(model, data, objective="dpdt", alpha=alpha)
    assert cert.optimum == pytest.approx(bruteforce.min_dpdt(problem, alpha, depth)[0])
    assert (cert.status == "OPTIMAL") == (cert.tree_value <= cert.optimum + 1e-9)


def test_json_tree_and_bad_arguments():
    data = load_dataset("iris")
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(data.X, data.labels)
    as_json = as_tree(tree, data).to_dict()
    assert certify(as_json, data).tree_value == 6
    with pytest.raises(ValueError, match="unknown objective"):
        certify(as_json, data, objective="beauty")
    with pytest.raises(ValueError, match="needs lam"):
        certify(as_json, data, objective="regularized")
    with pytest.raises(ValueError, match="not a class of the data"):
        certify(DecisionTreeClassifier(max_depth=1).fit(data.X, data.y + 7), data)


def test_cli_verify_round_trip(tmp_path, capsys):
    data = load_dataset("iris")
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(data.X, data.labels)
    path = tmp_path / "cart.joblib"
    joblib.dump(model, path)
    assert main(["verify", "iris", "--sklearn", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "NOT_OPTIMAL" and out["tree_value"] == 4 and out["optimum"] == 1
    assert out["gap_errors"] == 3 and out["better_tree"] is not None
    # the better tree, exported as JSON, is certified optimal
    better = tmp_path / "better.json"
    better.write_text(json.dumps(out["better_tree"]))
    assert main(["verify", "iris", "--tree", str(better), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "OPTIMAL"


def test_certify_many_shares_one_engine_run():
    from satdt.verify import certify_many

    data = load_dataset("iris")
    trees = [DecisionTreeClassifier(max_depth=2, criterion=c, random_state=0).fit(data.X, data.labels)
             for c in ("gini", "entropy")]
    certs = certify_many(trees, data, objective="accuracy")
    assert certs[0].engine is certs[1].engine
    assert [c.optimum for c in certs] == [6, 6]
    assert [c.tree_value for c in certs] == [6, 6] and all(c.status == "OPTIMAL" for c in certs)
    with pytest.raises(ValueError, match="no tree"):
        certify_many([], data)


def test_regularized_engines_agree_on_a_bundled_dataset():
    data = load_dataset("monk3")
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(data.X, data.labels)
    by_dp = certify(tree, data, objective="regularized", lam=0.01)
    by_cpsat = certify(tree, data, objective="regularized", lam=0.01, engine="cpsat")
    assert by_dp.optimum == pytest.approx(by_cpsat.optimum)
    assert by_dp.status == by_cpsat.status
    with pytest.raises(ValueError, match="regularized objective is solved by"):
        certify(tree, data, objective="regularized", lam=0.01, engine="maxsat")


def test_unproven_certificate_encloses_the_loss():
    """On a time limit the certificate says what is known: the tree loses at least ``gap`` (a
    better tree was found) and at most ``max_gap`` (nothing beats the bound)."""
    data = load_dataset("tic-tac-toe")
    model = DecisionTreeClassifier(max_depth=4, random_state=0).fit(data.X, data.y)
    cert = certify(model, data, objective="accuracy", time_limit=0.5, engine="binoct")
    assert cert.status in ("UNKNOWN", "NOT_OPTIMAL")
    assert cert.optimum is None and cert.bound is not None
    assert cert.max_gap == cert.tree_value - cert.bound
    assert 0 <= cert.gap <= cert.max_gap
    assert cert.gap_errors == cert.gap


def test_certify_reports_an_empty_search_space_as_infeasible():
    from satdt.estimators import ConsistentTreeClassifier

    data = load_dataset("monk3")
    tree = ConsistentTreeClassifier(engine="dp").fit(data.X, data.labels).tree_    # depth 6, error-free
    for engine in ("dp", "sat"):
        cert = certify(tree, data, objective="size", max_depth=5, engine=engine)
        assert cert.status == "INFEASIBLE" and cert.better_tree is None and cert.optimum is None
        assert "minimum depth is at least 6" in cert.proof
        assert cert.to_dict()["depth_bound"] == 6 and cert.to_dict()["status"] == "INFEASIBLE"


def test_one_status_vocabulary_and_objective_names():
    """Certificates and results share one str-valued Status (JSON and string comparisons as
    before); a certificate's objective answers to its SolveResult name as well."""
    from satdt.result import OBJECTIVE_NAMES, Status
    from satdt.verify import CERTIFIED, NOT_OPTIMAL, UNDECIDED, objective_of

    data = load_dataset("iris")
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(data.X, data.labels)  # 4 errors, optimum 1
    cert = certify(cart, data, objective="accuracy")
    assert cert.status is Status.NOT_OPTIMAL and cert.status == "NOT_OPTIMAL" == NOT_OPTIMAL
    assert json.loads(json.dumps(cert.to_dict()))["status"] == "NOT_OPTIMAL"
    assert cert.engine.status is Status.OPTIMAL and f"{cert.engine.status}" == "OPTIMAL"
    assert cert.engine.objective_name == OBJECTIVE_NAMES["accuracy"] == "errors"
    assert (CERTIFIED, UNDECIDED) == (Status.OPTIMAL, Status.UNKNOWN)
    same = certify(cart, data, objective="errors")
    assert same.objective == "accuracy" and same.optimum == cert.optimum
    assert objective_of("nodes") == "size"
    with pytest.raises(ValueError, match="unknown objective 'width'"):
        objective_of("width")


def test_missing_values_are_refused_as_judging_needs_complete_data(tmp_path, capsys):
    """``certify`` and ``satdt verify`` judge a given tree on complete data: a NaN's message says so, not the fit's
    hint (missing='learn', ``satdt solve --missing learn``), which does not apply to judging a tree."""
    from satdt.data import DataError
    from satdt.verify import certify

    leaf = {"classes": ["A", "B"], "root": {"class": "A"}}
    with pytest.raises(DataError, match="judge a tree on complete data") as err:
        certify(leaf, np.array([[1.0], [np.nan], [2.0]]), ["A", "B", "A"])
    assert "missing='learn'" not in str(err.value)
    (tmp_path / "d.csv").write_text("a,y\n1,A\n,B\n2,A\n")
    (tmp_path / "t.json").write_text(json.dumps(leaf))
    assert main(["verify", str(tmp_path / "d.csv"), "--tree", str(tmp_path / "t.json")]) == 1
    err = capsys.readouterr().err
    assert "judge a tree on complete data" in err and "--missing learn" not in err
    with pytest.raises(DataError, match="--missing learn"):  # (the fit's message keeps its hint)
        prepare(np.array([[1.0], [np.nan]]), ["A", "B"])
