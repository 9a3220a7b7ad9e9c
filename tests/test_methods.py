"""The method registry (satdt.methods) against the estimators it describes."""

import subprocess
import sys

import pytest

from satdt import fit, methods
from satdt.estimators import METHODS as ESTIMATORS, make_estimator

# registry option -> the estimator parameter it sets
PARAM = {"max_depth": "max_depth", "lam": "lam", "alpha": "alpha", "cart_depth": "cart_depth",
         "binarization": "binarization", "n_thresholds": "n_thresholds", "solver": ("solver", "backend"),
         "engine": "engine", "min_leaf": "min_leaf", "warm_start": "warm_start", "n_jobs": "n_jobs"}


def test_registry_names_the_estimators_methods():
    assert set(methods.METHODS) == set(ESTIMATORS)
    for name, spec in methods.METHODS.items():
        assert spec.default_depth == ESTIMATORS[name][1]


@pytest.mark.parametrize("name", sorted(methods.METHODS))
def test_registry_options_are_the_estimators_parameters(name):
    """An option the registry accepts is a parameter of the method's estimator; one it refuses is not."""
    cls = ESTIMATORS[name][0]
    params = set(cls().get_params())
    if name == "rdt":
        params.add("max_depth")  # its depth parameter is `depth`
    for option, param in PARAM.items():
        names = param if isinstance(param, tuple) else (param,)
        has = any(p in params for p in names)
        if option in methods.METHODS[name].options:
            assert has, (name, option)
        elif option not in ("lam", "alpha"):  # oct's alpha is its own; dpdt's alpha is its own
            assert not has or name in ("maxsat",), (name, option)


def test_registry_refusals_match_make_estimator():
    """What make_estimator refuses, the registry refuses too (before any import)."""
    assert methods.option_errors("binoct", {"min_leaf": 3})
    with pytest.raises(ValueError):
        make_estimator("binoct", min_leaf=3)
    assert methods.option_errors("dpdt", {"warm_start": "cart"})
    with pytest.raises(ValueError):
        make_estimator("dpdt", warm_start="cart")


def test_registry_imports_nothing_heavy():
    code = "import sys, satdt.methods; print(sorted(m for m in ('numpy', 'sklearn', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # satdt/__init__ may import numpy; the registry itself adds no scikit-learn or pandas
    assert "sklearn" not in out and "pandas" not in out


# ---------------------------------------------------------------------------- the registry as the one source
def _tiny():
    """A small dataset every method answers in well under a second (iris' first rows, 2 classes)."""
    from satdt.data import load_dataset, prepare

    iris = load_dataset("iris")
    keep = iris.y < 2
    return prepare(iris.X[keep][::5], iris.labels[keep][::5])


@pytest.mark.parametrize("name", sorted(methods.METHODS))
def test_every_registry_method_reaches_the_parser_and_the_factory(name):
    """Each spec is a --method choice, passes the parser's option check with its defaults, and
    make_estimator builds the spec's estimator class with the spec's fixed parameters."""
    from satdt.cli.parser import build_parser, check_solve_options

    parser = build_parser()
    a = parser.parse_args(["solve", "iris", "--method", name])
    check_solve_options(parser, a)
    s = methods.spec(name)
    model = make_estimator(name)
    assert type(model).__name__ == s.estimator
    params = model.get_params()
    assert all(params[k] == v for k, v in s.fixed.items())
    depth_param = s.params.get("max_depth", "max_depth")
    assert params[depth_param] == (s.default_depth if s.default_depth is not None else params[depth_param])
    assert ESTIMATORS[name] == (type(model), s.default_depth)
    assert methods.engine_function(s).__name__ == s.engine.rsplit(":", 1)[1]


@pytest.mark.parametrize("name", sorted(methods.METHODS))
def test_fit_problem_runs_every_registry_method(name):
    """The one fit path answers every method from its spec alone: a tree that re-evaluates to the
    result's objective for the accuracy methods, runtime on the clock given."""
    from satdt.deadline import Deadline

    data = _tiny()
    s = methods.spec(name)
    options = {"max_depth": 2} if name not in ("sat-depth", "sat-size") else {}
    if name == "rdt":
        options = {"depth": 2, "epochs": 2}
    if name == "adapttree":
        options["n_episodes"] = 5
    if name == "cpsat":
        options["lam"] = s.defaults["lam"]
    clock = Deadline(None)
    result = fit.fit_problem(s, data, clock, **options)
    assert result.tree is not None and result.status in ("OPTIMAL", "FEASIBLE", "HEURISTIC")
    if s.exact:
        assert result.objective_name == methods.result_objective(s, options.get("lam"))
    assert 0 < result.runtime <= clock.elapsed()
    if s.exact and result.objective_name == "errors":
        assert result.objective == int((result.tree.predict_index(data.X) != data.y).sum())
    if s.exact:
        assert result.status == "OPTIMAL"


def test_verify_engines_are_registry_methods():
    from satdt import verify

    for (objective, engine), name in verify._ENGINE_METHODS.items():
        assert methods.spec(name).exact or name == "dpdt"
    assert set(verify.CONSISTENT_ENGINES) | {"auto"} == set(methods.spec("sat-depth").engines)


def _new_spec(monkeypatch, name, like):
    from dataclasses import replace

    monkeypatch.setitem(methods.METHODS, name, replace(methods.METHODS[like], name=name))


def test_a_new_spec_reaches_the_cli_light_path(monkeypatch, capsys):
    """A spec added to the registry, and nothing else, is a `satdt solve` method (the light path:
    the fit path called directly) and a make_estimator name."""
    import json

    from satdt.cli import main

    _new_spec(monkeypatch, "dp-copy", "dp")
    assert "dp-copy" in ESTIMATORS and type(make_estimator("dp-copy")).__name__ == "DPTreeClassifier"
    assert main(["solve", "iris", "--method", "dp-copy", "--max-depth", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "dp-copy" and out["status"] == "OPTIMAL" and out["errors"] == 6
    assert main(["solve", "iris", "--method", "dp-copy", "--alpha", "0.1"]) == 2  # its spec's options
    assert "--alpha does not apply to dp-copy" in capsys.readouterr().err


def test_a_new_spec_reaches_the_cli_estimator_path(monkeypatch, capsys):
    import json

    from satdt.cli import main

    _new_spec(monkeypatch, "maxsat-copy", "maxsat")
    assert main(["solve", "iris", "--method", "maxsat-copy", "--max-depth", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "maxsat-copy" and out["status"] == "OPTIMAL" and out["errors"] == 50


def test_the_cli_has_no_second_road():
    """`satdt solve` keeps no method table of its own: the registry is read instead."""
    from satdt.cli import solve

    for gone in ("_light_solve", "_LIGHT_METHODS", "_METHOD_MODULES", "_OBJECTIVE"):
        assert not hasattr(solve, gone), gone
    assert "SimpleNamespace" not in open(solve.__file__).read()
