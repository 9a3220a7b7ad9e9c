"""The method registry (satdt.methods) against the estimators it describes."""

import subprocess
import sys

import pytest

from satdt import methods
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
