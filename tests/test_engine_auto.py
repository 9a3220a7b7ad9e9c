"""``engine="auto"`` for DT_depth / DT_size: the documented rule, the same optimum as both engines,
and ``stats`` saying which engine ran and why (CLI, estimator, certify)."""

from __future__ import annotations

import json

import pytest

from satdt import Binarizer, load_dataset
from satdt.cli import main
from satdt.estimators import ConsistentTreeClassifier
from satdt.solvers.engine_choice import choose_engine, solve_consistent
from satdt.verify import certify

# (dataset, objective, engine auto picks, algorithm of the DP when it runs, optimum)
CASES = [
    ("monk2", "size", "dp", "boxes", 67),          # few boxes (1.9e4): the box DP
    ("car", "depth", "dp", "boxes", 8),             # 2.2e5 boxes: SAT does not finish in 60 s
    ("iris", "depth", "dp", "search", 4),           # 3.8e10 boxes: the DP's branch and bound
    ("lung-cancer", "size", "dp", "search", 7),
    ("monk1-onehot", "depth", "dp", "search", 4),   # 1.4e7 boxes in 15 two-rank chains: the search
]


def test_few_long_chains_take_the_boxes_for_size_only():
    problem = _problem("bmi")  # 3.4e7 boxes in 3 chains
    assert choose_engine(problem, "size")[2]["algorithm"] == "boxes"
    assert choose_engine(problem, "depth")[2]["algorithm"] == "search"


def _problem(name):
    return Binarizer("all").problem(load_dataset(name))


@pytest.mark.parametrize("name, objective, engine, algorithm, optimum", CASES)
def test_auto_picks_as_documented_and_says_why(name, objective, engine, algorithm, optimum):
    problem = _problem(name)
    picked, reason, figures = choose_engine(problem, objective)
    assert picked == engine and reason
    assert reason.startswith("few boxes") == (algorithm == "boxes")
    assert figures["binary_columns"] == problem.n_binary and figures["boxes"] > 0
    res = solve_consistent(problem, objective, engine="auto")
    assert res.status == "OPTIMAL" and res.objective == optimum
    assert res.stats["engine"] == engine and res.stats["engine_reason"] == "auto: " + reason
    if engine == "dp":
        assert res.stats["algorithm"] == algorithm == res.stats["engine_figures"]["algorithm"]


@pytest.mark.parametrize("name, objective", [("iris", "depth"), ("lung-cancer", "size"), ("monk1", "size"),
                                             ("mouse", "depth"), ("mouse", "size")])
def test_auto_finds_the_optimum_of_both_engines(name, objective):
    problem = _problem(name)
    auto = solve_consistent(problem, objective)
    by_sat = solve_consistent(problem, objective, engine="sat")
    by_dp = solve_consistent(problem, objective, engine="dp")
    assert auto.status == by_sat.status == by_dp.status == "OPTIMAL"
    assert auto.objective == by_sat.objective == by_dp.objective
    assert by_sat.stats["engine"] == "sat" and by_dp.stats["engine"] == "dp"
    assert by_sat.stats["engine_reason"] == "engine='sat' requested"


def test_box_figures_match_the_dp_chains():
    from satdt.solvers import dp

    for name in ("monk1", "car", "balance-scale"):
        res = dp.solve_min_depth_dp(_problem(name))
        assert res.stats["algorithm"] == "boxes"
        assert choose_engine(_problem(name), "depth")[2]["boxes"] == res.stats["boxes"]


def test_estimator_default_is_auto_with_stats():
    data = load_dataset("monk1")
    model = ConsistentTreeClassifier(objective="size")
    assert model.get_params()["engine"] == "auto"
    model.fit(data.X, data.labels)
    assert model.result_.objective == 15 and model.result_.stats["engine"] == "dp"
    assert model.result_.stats["engine_reason"].startswith("auto: few boxes")
    with pytest.raises(ValueError, match="engine must be 'auto', 'sat' or 'dp'"):
        ConsistentTreeClassifier(engine="cp").fit(data.X, data.labels)


def test_cli_default_engine_is_auto_and_reported(capsys):
    assert main(["solve", "monk1", "--method", "sat-depth", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["objective"] == 5 and out["stats"]["engine"] == "dp" and out["stats"]["engine_reason"]
    assert main(["solve", "monk1", "--method", "sat-depth", "--engine", "sat", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["objective"] == 5 and out["stats"]["engine"] == "sat"
    # --solver names a SAT backend: it implies the SAT engine; a typo is a one-line error
    assert main(["solve", "monk1", "--method", "sat-depth", "--solver", "cadical153", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["engine"] == "sat"
    assert main(["solve", "monk1", "--method", "sat-depth", "--solver", "nosuch"]) == 1
    assert "unknown SAT solver" in capsys.readouterr().err


def test_certify_depth_and_size_default_to_auto():
    data = load_dataset("monk1")
    model = ConsistentTreeClassifier(objective="size", engine="sat").fit(data.X, data.labels)
    for objective in ("depth", "size"):
        cert = certify(model, data, objective=objective)
        assert cert.status == "OPTIMAL" and cert.params["engine"] == "auto"
        assert cert.engine.stats["engine"] == "dp" and cert.engine.stats["engine_reason"].startswith("auto:")
        by_sat = certify(model, data, objective=objective, engine="sat")
        assert by_sat.optimum == cert.optimum and by_sat.engine.stats["engine"] == "sat"
    assert certify(model, data, objective="accuracy").engine.method.startswith("dp")  # auto: the DP
