"""Max-accuracy trees of depth d with weighted MaxSAT (RC2) against the brute-force enumerator."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from satdt import load_dataset
from satdt.binarize import Binarizer
from satdt.bruteforce import min_errors
from satdt.encodings.maxsat import MaxSatEncoding
from satdt.result import FEASIBLE, OPTIMAL, UNKNOWN
from satdt.solvers.maxsat import MAXSAT_SOLVERS, PYSAT_TESTED, check_rc2_hook, solve_max_accuracy
from satdt.solvers.sat import solve_min_depth

from conftest import random_problem
from known_optima import rows


def _instance(seed: int):
    """Small, often conflicting problems: 8-16 rows, 3-4 features, 2-3 classes."""
    rng = np.random.default_rng(20_000 + seed)
    return random_problem(seed, n_rows=int(rng.integers(8, 17)), n_features=int(rng.integers(3, 5)),
                          n_classes=int(rng.integers(2, 4)), consistent=False, binary=bool(seed % 2),
                          max_value=3)


def _check(problem, result):
    data = problem.data
    assert result.tree is not None
    assert result.objective == int((result.tree.predict_index(data.X) != data.y).sum())


@pytest.mark.parametrize("block", [0] + [pytest.param(b, marks=pytest.mark.slow) for b in range(1, 10)])
def test_matches_bruteforce_depths_1_to_3(block):
    """100 instances x depths 1, 2, 3 = 300 cross-checks (block 0 in the fast subset)."""
    for seed in range(block * 10, block * 10 + 10):
        problem = _instance(seed)
        for depth in (1, 2, 3):
            r = solve_max_accuracy(problem, max_depth=depth, stratified=bool(seed % 2),
                                   warm_start=bool(seed % 3), phases=seed % 4 == 1)
            assert (r.stats.get("phases", 0) > 0) == (seed % 4 == 1 and seed % 3 != 0
                                                     and "maxsat_time_s" in r.stats)
            best, _ = min_errors(problem, depth)
            assert r.status == OPTIMAL and r.objective == best == r.bound, (seed, depth)
            assert r.tree.depth() <= depth
            _check(problem, r)


def test_agrees_with_dt_depth():
    """Where DT_depth says consistent at k: 0 errors at depth k, more than 0 at k - 1."""
    for seed in range(300, 340):
        problem = random_problem(seed, n_rows=14, n_features=4, n_classes=2, consistent=True)
        k = solve_min_depth(problem).objective
        at_k = solve_max_accuracy(problem, max_depth=k)
        assert at_k.status == OPTIMAL and at_k.objective == 0
        if k > 0:
            below = solve_max_accuracy(problem, max_depth=k - 1)
            assert below.status == OPTIMAL and below.objective > 0


@pytest.mark.parametrize("backend", MAXSAT_SOLVERS)
def test_every_oracle_agrees(backend):
    for seed in range(400, 405):
        problem = _instance(seed)
        r = solve_max_accuracy(problem, max_depth=2, solver=backend, time_limit=60)
        assert r.objective == min_errors(problem, 2)[0] and r.status == OPTIMAL


def test_depth_zero_and_conflicts():
    problem = _instance(5)
    r = solve_max_accuracy(problem, max_depth=0)
    assert r.status == OPTIMAL and r.tree.n_nodes == 1 and r.objective == min_errors(problem, 0)[0]


@pytest.mark.parametrize("name, depth, errors", [
    pytest.param(o.dataset, o.depth, int(o.value), marks=[pytest.mark.slow] if (o.dataset, o.depth) == ("monk1", 3) else [])
    for o in rows("errors", datasets=("iris", "monk1", "monk3"))])
def test_known_optima(name, depth, errors):
    problem = Binarizer("all").problem(load_dataset(name))
    r = solve_max_accuracy(problem, max_depth=depth, time_limit=120)
    assert (r.status, r.objective) == (OPTIMAL, errors)
    _check(problem, r)


def test_time_limit_is_honoured():
    problem = Binarizer("all").problem(load_dataset("monk2"))
    r = solve_max_accuracy(problem, max_depth=4, time_limit=1.0)
    assert r.runtime <= 1.0 + 1.0   # docs/architecture.md, "Contracts": within max(1 s, 5 %)
    assert r.status in (FEASIBLE, UNKNOWN)
    if r.tree is not None:
        _check(problem, r)
        assert r.bound <= r.objective


@pytest.mark.parametrize("kwargs, message", [
    ({"max_depth": -1}, "max_depth"), ({"max_depth": None}, "max_depth"),
    ({"max_depth": 2, "solver": "nosuch"}, "glucose4"), ({"max_depth": 2, "time_limit": 0}, "time_limit"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve_max_accuracy(_instance(1), **kwargs)


def test_soft_clauses_carry_counts():
    problem = _instance(2)
    enc = MaxSatEncoding(problem.X, problem.counts, 2)
    enc.hard_clauses()
    lits, weights = enc.soft_clauses()
    assert weights.sum() == problem.n_rows and lits.size == (problem.counts > 0).sum()


# ------------------------------------------------------------------ the RC2 hook of the deadline
def test_rc2_hook_present_in_the_pinned_pysat():
    from pysat.examples.rc2 import RC2, RC2Stratified
    check_rc2_hook(RC2, RC2Stratified)   # no error


class _NoHook:
    """An RC2 look-alike from a PySAT release that renamed the hook."""

    def compute(self, expect_interrupt=False):
        return self._oracle_call()

    def compute_(self):
        return self._oracle_call()

    def minimize_core(self):
        return self._oracle_call()

    def exhaust_core(self, tobj):
        return self._oracle_call()

    def interrupt(self):
        pass

    def _oracle_call(self, assumptions=(), expect_interrupt=False):
        return True


class _HookNotCalled(_NoHook):
    """The hook exists but the core heuristics no longer go through it."""

    def _call_oracle(self, assumptions=[], expect_interrupt=False):  # noqa: B006
        return True


class _OldSignature(_NoHook):
    """The hook exists and is called, without the ``expect_interrupt`` flag."""

    def _call_oracle(self, assumptions=[]):  # noqa: B006
        return True

    def compute_(self):
        return self._call_oracle()

    def minimize_core(self):
        return self._call_oracle()

    def exhaust_core(self, tobj):
        return self._call_oracle()


@pytest.mark.parametrize("cls, problem", [(_NoHook, "no method _call_oracle"),
                                          (_HookNotCalled, "exhaust_core does not call _call_oracle"),
                                          (_OldSignature, "_call_oracle has no parameter expect_interrupt")])
def test_rc2_hook_missing_is_a_clear_import_error(cls, problem):
    with pytest.raises(ImportError, match=f"python-sat=={PYSAT_TESTED}") as err:
        check_rc2_hook(cls)
    assert problem in str(err.value)


def test_import_fails_clearly_without_the_hook():
    """The check runs when satdt.solvers.maxsat is imported (a fresh interpreter, RC2 replaced)."""
    code = ("import pysat.examples.rc2 as rc2\n"
            "class RC2(rc2.RC2):\n"
            "    _call_oracle = None\n"
            "rc2.RC2 = RC2\n"
            "import satdt.solvers.maxsat\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "ImportError" in out.stderr and f"python-sat=={PYSAT_TESTED}" in out.stderr
    assert "no method _call_oracle" in out.stderr
