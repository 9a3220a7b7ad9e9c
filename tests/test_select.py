"""satdt.select: cross-validated choice of lambda or depth, and `satdt select`."""

import json
import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_score

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.cli import main
from satdt.data import load_dataset, prepare
from satdt.estimators import DPTreeClassifier
from satdt.select import TreeSelectorCV, choose, select_complexity


def small_data(seed: int = 3, n: int = 36):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 3)).astype(float)
    y = ((X[:, 0] + X[:, 1] > 2) ^ (rng.random(n) < 0.15)).astype(int)
    return X, y


def test_lambda_path_against_brute_force_cv():
    """Every fold fit is optimal (exhaustive enumeration on the fold's training rows), the held-out
    accuracies are those of a plain loop over the same folds, and the choice is their argmax."""
    X, y = small_data()
    lams = [0.0, 0.02, 0.05, 0.3]
    sel = TreeSelectorCV("dp", lams=lams, max_depth=2, folds=3).fit(X, y)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    assert [(list(a), list(b)) for a, b in sel.splits_] == [(list(a), list(b)) for a, b in folds]
    means = []
    for lam, row in zip(lams, sel.cv_results_):
        accuracies = []
        for f, (train, test) in enumerate(folds):
            problem = Binarizer("all").problem(prepare(X[train], y[train]))
            optimum, _ = bruteforce.min_regularized(problem, lam, 2)
            assert row["fold_objectives"][f] == pytest.approx(optimum, abs=1e-9)
            model = DPTreeClassifier(max_depth=2, lam=lam).fit(X[train], y[train])
            accuracies.append(model.score(X[test], y[test]))
        assert row["fold_accuracies"] == pytest.approx(accuracies)
        assert row["mean_accuracy"] == pytest.approx(np.mean(accuracies))
        assert row["std_accuracy"] == pytest.approx(np.std(accuracies, ddof=1))
        means.append(np.mean(accuracies))
    best = max(means)
    expected = max(i for i, m in enumerate(means) if m >= best - 1e-12)   # ties: the larger lam
    assert sel.best_index_ == expected and sel.best_params_ == {"lam": lams[expected]}
    refit = DPTreeClassifier(max_depth=2, lam=lams[expected]).fit(X, y)
    assert np.array_equal(sel.predict(X), refit.predict(X))
    assert sel.result_.objective == pytest.approx(refit.result_.objective)


def test_depth_range_matches_cross_val_score():
    data = load_dataset("iris")
    cv = StratifiedKFold(4, shuffle=True, random_state=1)
    sel = TreeSelectorCV("dp", depths=[1, 2, 3], folds=4, random_state=1).fit(data.X, data.labels)
    for row in sel.cv_results_:
        ref = cross_val_score(DPTreeClassifier(max_depth=row["max_depth"]), data.X, data.labels, cv=cv)
        assert row["mean_accuracy"] == pytest.approx(ref.mean())
        assert row["statuses"] == ["OPTIMAL"] * 4 and row["mean_depth"] <= row["max_depth"]
    assert sel.param_ == "max_depth" and sel.tree_.depth() <= sel.best_params_["max_depth"]
    assert sel.score(data.X, data.labels) == sel.best_estimator_.score(data.X, data.labels)
    assert clone(sel).get_params()["depths"] == [1, 2, 3]
    assert sel.to_sklearn().predict(data.X).tolist() == sel.predict(data.X).tolist()


def test_one_standard_error_rule_picks_the_simplest_close_setting():
    def row(param, value, mean, se):
        return {param: value, "mean_accuracy": mean, "se_accuracy": se}

    table = [row("lam", 0.001, 0.80, 0.02), row("lam", 0.01, 0.82, 0.03), row("lam", 0.05, 0.795, 0.01),
             row("lam", 0.1, 0.70, 0.01)]
    assert choose(table, "lam") == 1
    assert choose(table, "lam", one_se=True) == 2          # 0.795 >= 0.82 - 0.03; 0.70 is not
    depths = [row("max_depth", d, m, 0.02) for d, m in ((2, 0.78), (3, 0.80), (4, 0.81), (5, 0.81))]
    assert choose(depths, "max_depth") == 2                 # tie 0.81: the smaller depth
    assert choose(depths, "max_depth", one_se=True) == 1
    nan = row("lam", 0.5, math.nan, math.nan)
    assert choose(table + [nan], "lam") == 1
    with pytest.raises(ValueError, match="no setting"):
        choose([nan], "lam")


def test_infeasible_settings_are_kept_in_the_table_and_never_chosen():
    X = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 3, dtype=float)
    y = (X[:, 0].astype(int) ^ X[:, 1].astype(int))          # XOR: depth 2 needed
    out = select_complexity(X, y, "sat-size", depths=[1, 2, 3], folds=3)
    assert out["table"][0]["statuses"] == ["INFEASIBLE"] * 3 and math.isnan(out["table"][0]["mean_accuracy"])
    assert out["table"][1]["mean_accuracy"] == 1.0 and out["chosen_index"] == 1


@pytest.mark.parametrize("kwargs, message", [
    ({}, "exactly one"), ({"lams": [0.1], "depths": [2]}, "exactly one"), ({"lams": []}, "empty"),
    ({"lams": [-1.0]}, ">= 0"), ({"depths": [1.5]}, "integers"), ({"depths": [2], "folds": 1}, "folds"),
])
def test_bad_settings_are_refused(kwargs, message):
    X, y = small_data()
    with pytest.raises(ValueError, match=message):
        select_complexity(X, y, "dp", **kwargs)
    with pytest.raises(ValueError, match="no complexity penalty"):
        select_complexity(X, y, "maxsat", lams=[0.1])


@pytest.mark.slow
def test_parallel_folds_give_the_serial_table():
    X, y = small_data(n=48)
    serial = TreeSelectorCV("dp", lams=[0.0, 0.05], max_depth=2, folds=3).fit(X, y)
    parallel = TreeSelectorCV("dp", lams=[0.0, 0.05], max_depth=2, folds=3, n_jobs=2).fit(X, y)
    for a, b in zip(serial.cv_results_, parallel.cv_results_):
        assert a["fold_accuracies"] == b["fold_accuracies"] and a["fold_objectives"] == b["fold_objectives"]


def test_cli_select_json_and_text(capsys):
    code = main(["select", "iris", "--method", "dp", "--depths", "1,2,3", "--folds", "3", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    summary = json.loads(out)
    assert {"chosen", "table", "tree", "param", "folds", "rule", "refit"} <= set(summary)
    assert summary["param"] == "max_depth" and len(summary["table"]) == 3
    chosen = summary["chosen"]["max_depth"]
    best = max(r["mean_accuracy"] for r in summary["table"])
    assert summary["chosen"]["mean_accuracy"] == best and chosen in (1, 2, 3)
    assert summary["refit"]["depth"] <= chosen and summary["tree"]["root"]
    code = main(["select", "monk2", "--method", "dp", "--lams", "0.005,0.05", "--max-depth", "3",
                 "--folds", "3", "--one-se"])
    out, _ = capsys.readouterr()
    assert code == 0 and "3-fold cross-validation over lam" in out
    assert "chosen: lam = " in out and "one standard error" in out and "|---" in out


@pytest.mark.parametrize("argv, code", [
    (["select", "iris", "--method", "maxsat", "--lams", "0.1"], 1),
    (["select", "iris", "--method", "dp", "--lams", "0.1", "--depths", "2"], 2),
    (["select", "iris", "--method", "dp", "--depths", "2", "--folds", "1"], 2),
    (["select", "iris", "--method", "dp"], 2),
    (["select", "iris", "--method", "dp", "--lams", "x"], 2),
])
def test_cli_select_errors(capsys, argv, code):
    assert main(argv) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error" in err


def test_heuristic_rows_on_the_same_folds():
    from sklearn.tree import DecisionTreeClassifier

    data = load_dataset("wine")
    sel = TreeSelectorCV("dp", depths=[1, 2], folds=3, heuristics=("cart", "dpdt")).fit(data.X, data.labels)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    cart = sel.heuristics_["cart"]
    assert cart["param"] == "max_depth" and sel.heuristics_["dpdt"]["param"] == "max_depth"
    for row in cart["table"]:
        ref = cross_val_score(DecisionTreeClassifier(max_depth=row["max_depth"], random_state=0),
                              data.X, data.labels, cv=cv)
        assert row["fold_accuracies"] == pytest.approx(list(ref))
    for row in sel.heuristics_["dpdt"]["table"]:
        assert row["mean_depth"] <= row["max_depth"] and not math.isnan(row["mean_accuracy"])
    assert sel.best_params_["max_depth"] in (1, 2)          # chosen among the exact method's rows only
    lam_path = select_complexity(data.X, data.labels, "dp", lams=[0.01, 0.1], folds=3,
                                 options={"max_depth": 2}, heuristics=("cart", "dpdt"))
    assert lam_path["heuristics"]["cart"]["param"] == "ccp_alpha"
    assert lam_path["heuristics"]["dpdt"]["param"] == "alpha"
    with pytest.raises(ValueError, match="unknown heuristic"):
        select_complexity(data.X, data.labels, "dp", depths=[1], folds=3, heuristics=("gosdt",))


def test_share_of_the_time_left():
    import time

    from satdt.select import _share

    end = time.time() + 10.0
    assert _share(None, 0, 9, 1) is None
    assert _share(end, 0, 9, 1) == pytest.approx(10.0 / 10, abs=0.01)     # 9 rounds + the refit
    assert _share(end, 8, 9, 1) == pytest.approx(10.0 / 2, abs=0.01)      # the last fit and the refit
    assert _share(end, 0, 9, 3) == pytest.approx(10.0 / 4, abs=0.01)      # 3 rounds on 3 workers + refit
    assert _share(time.time() - 1.0, 0, 9, 1) == 0.0


def test_whole_fit_time_limit_holds_and_unrun_fits_are_reported():
    """time_limit bounds the whole fit: folds share it, fits past it are NOT_RUN (not chosen)."""
    import time

    from satdt.result import NoTreeFoundError

    X, y = small_data(n=300)
    sel = TreeSelectorCV("dp", depths=[1, 2, 3], folds=3, time_limit=1e-4)
    t0 = time.perf_counter()
    with pytest.raises(NoTreeFoundError, match="no setting produced a tree on every fold"):
        sel.fit(X, y)
    assert time.perf_counter() - t0 < 1.0
    assert sel.best_index_ is None and {s for r in sel.cv_results_ for s in r["statuses"]} == {"NOT_RUN"}
    events = []
    sel = TreeSelectorCV("dp", depths=[1, 2], folds=3, time_limit=30, progress=events.append).fit(X, y)
    assert sel.best_index_ in (0, 1) and sel.result_.status == "OPTIMAL"
    kinds = [(e.engine, e.kind) for e in events]
    assert kinds[0] == ("select", "start") and ("select", "done") in kinds
    assert sum(k == ("select", "tick") for k in kinds) == 2          # one line per setting


def test_cli_select_time_limit_and_progress(capsys):
    code = main(["select", "iris", "--method", "dp", "--depths", "1,2", "--folds", "3", "--time-limit", "0.001",
                 "--json"])
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert code == 0 and err == "" and summary["status"] == "UNKNOWN" and summary["tree"] is None
    assert summary["chosen"] is None and summary["table"][0]["statuses"] == ["NOT_RUN"] * 3
    code = main(["select", "iris", "--method", "dp", "--depths", "1,2", "--folds", "3", "--time-limit", "60",
                 "--progress"])
    out, err = capsys.readouterr()
    assert code == 0 and "chosen: max_depth = " in out
    assert "[select" in err and "mean held-out accuracy" in err
