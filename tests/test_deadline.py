"""One clock per call (satdt.deadline): a Deadline handed to a solve function, the fit path or an
estimator is the clock its result's runtime is read from, and the time it has used counts against
its limit; "time is up" is one exception family."""

from __future__ import annotations

import numpy as np
import pytest

from satdt import fit, methods
from satdt.binarize import Binarizer
from satdt.data import load_dataset
from satdt.deadline import Deadline, DeadlineExpired

EARLIER = 50.0  # seconds the clock has run before the call (its start moved back: no waiting)


def _clock(limit: float | None = None) -> Deadline:
    clock = Deadline(limit)
    clock.start -= EARLIER
    return clock


@pytest.fixture(scope="module")
def problem():
    from satdt.data import prepare

    iris = load_dataset("iris")
    return Binarizer("all").problem(prepare(iris.X[::3], iris.labels[::3]))


@pytest.mark.parametrize("engine, options", [
    ("satdt.solvers.dp:solve_dp", {"max_depth": 2}),
    ("satdt.solvers.dp:solve_dp", {"max_depth": 2, "lam": 0.01}),
    ("satdt.solvers.dp:solve_min_depth_dp", {}),
    ("satdt.solvers.sat:solve_min_depth", {}),
    ("satdt.solvers.consistent:solve_consistent", {"objective": "size", "engine": "sat"}),
    ("satdt.solvers.maxsat:solve_max_accuracy", {"max_depth": 1}),
    ("satdt.solvers.cpsat:solve_regularized", {"max_depth": 1, "lam": 0.01}),
    ("satdt.solvers.mip:solve_binoct", {"max_depth": 1}),
])
def test_a_deadline_passed_in_is_the_results_clock(problem, engine, options):
    import importlib

    module, name = engine.split(":")
    solve = getattr(importlib.import_module(module), name)
    clock = _clock()
    result = solve(problem, time_limit=clock, **options)
    assert result.status == "OPTIMAL"
    assert EARLIER <= result.runtime <= clock.elapsed()


def test_the_time_used_before_counts_against_the_limit(problem):
    """A clock whose limit has passed: the engine does not get a fresh limit of its own."""
    from satdt.solvers.dp import solve_dp

    clock = Deadline(EARLIER + 1.0)
    clock.start -= EARLIER + 0.9  # 0.1 s left
    result = solve_dp(problem, max_depth=4, time_limit=clock)
    assert result.runtime >= EARLIER + 0.9
    assert result.runtime <= EARLIER + 1.0 + clock.tolerance()


def test_fit_problem_and_the_estimator_read_the_clock_they_are_given():
    from satdt.estimators import DPTreeClassifier

    data = load_dataset("iris")
    clock = _clock()
    result = fit.fit_problem("dp", data, clock, max_depth=2)
    assert EARLIER <= result.runtime <= clock.elapsed()
    assert result.stats["engine_s"] < EARLIER  # the engine's own part, on its own
    clock = _clock(EARLIER + 60.0)
    model = DPTreeClassifier(max_depth=2, time_limit=clock).fit(data.X, data.y)
    assert EARLIER <= model.result_.runtime <= clock.elapsed()
    model = DPTreeClassifier(max_depth=2, time_limit=30.0).fit(data.X, data.y)  # seconds: a clock of its own
    assert model.result_.runtime < EARLIER


def test_an_expired_clock_gives_a_result_not_an_exception():
    """The fit path's answer when the time is up before the engine: CART's tree (better than the
    majority leaf) for an accuracy method, no tree (UNKNOWN) for a consistent-tree one; runtime
    on the same clock."""
    data = load_dataset("iris")
    clock = Deadline(EARLIER)
    clock.start -= EARLIER + 1.0
    cart = fit.fit_problem("dp", data, clock, max_depth=2)
    assert cart.status == "FEASIBLE" and cart.stats["timeout_in"] and cart.stats["tree_source"] == "greedy"
    assert cart.tree.depth() <= 2 and cart.objective == 6 < 100  # iris: CART 6 errors, the leaf 100
    assert cart.runtime >= EARLIER + 1.0
    none = fit.fit_problem("sat-depth", data, clock)
    assert none.status == "UNKNOWN" and none.tree is None and none.objective_name == "depth"


def test_one_exception_family():
    from satdt.encodings.cpsat_regularized import BuildInterrupted

    assert issubclass(DeadlineExpired, TimeoutError)
    from satdt.heuristics.greedy import cart_tree
    from satdt.solvers.dp.search import CoreSearch, SearchTimeout

    assert issubclass(BuildInterrupted, DeadlineExpired) and issubclass(BuildInterrupted, RuntimeError)
    assert issubclass(SearchTimeout, DeadlineExpired)
    # the DP's search and CART's greedy tree out of time: members of the family
    problem = Binarizer("all").problem(load_dataset("iris"))
    with pytest.raises(DeadlineExpired):
        CoreSearch(problem, _clock(EARLIER - 1.0), 0.0).greedy(np.arange(problem.n_distinct), 2)
    assert cart_tree(load_dataset("iris"), 2, deadline=_clock(EARLIER - 1.0)) is None
    clock = Deadline(1.0)
    clock.start -= 2.0
    with pytest.raises(TimeoutError, match="time limit of 1 s reached during a step"):
        clock.check("a step")


def test_a_clock_from_now_ends_with_its_parent():
    parent = _clock(EARLIER + 10.0)
    step = parent.from_now()
    assert step.elapsed() < 1.0 and abs((step.start + step.time_limit) - (parent.start + parent.time_limit)) < 1e-9
    assert abs(step.remaining() - parent.remaining()) < 0.05
    late = _clock(EARLIER - 1.0).from_now()  # the parent's end has passed: expired at once
    assert late.expired() and late.remaining() == 0.0
    assert Deadline(None).from_now().remaining() is None


def test_solve_runtime_is_the_fits_and_its_limit_the_commands(capsys):
    """`satdt solve`: runtime_s counts the fit (as an estimator's), wall_s the whole command."""
    import json

    from satdt.cli import main

    for method in ("dp", "maxsat"):  # the fit path called directly, and through the estimator
        assert main(["solve", "iris", "--method", method, "--max-depth", "1", "--time-limit", "60", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["status"] == "OPTIMAL" and 0 < out["runtime_s"] <= out["wall_s"]


def test_a_sooner_clock_ends_that_much_earlier():
    from satdt.deadline import Deadline

    d = Deadline(10.0)
    early = d.sooner(2.5)
    assert early.start == d.start and early.time_limit == 7.5
    assert Deadline(None).sooner(1.0).time_limit is None
    assert d.sooner(20.0).expired() and not d.expired()


def test_the_dp_keeps_a_reserve_for_its_answer():
    """Under a limit the anytime search ends early enough for the answer's finalization: the
    reserve is positive, measured on the first incumbent, at most a quarter of the time left;
    none without a limit."""
    import numpy as np

    from satdt.binarize import Binarizer
    from satdt.data import prepare
    from satdt.deadline import Deadline
    from satdt.solvers.dp.accuracy import ANSWER_RESERVE_SHARE, _answer_reserve, new_search
    from satdt.tree import Tree

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    problem = Binarizer("all").problem(prepare(X, y))
    search = new_search(problem, Deadline(1.0), None, "core")
    tree = Tree(root=search.greedy(np.arange(problem.n_distinct, dtype=np.int64), 3)[1], classes=problem.classes)
    reserve = _answer_reserve(problem, tree, search)
    assert 0.1 <= reserve <= ANSWER_RESERVE_SHARE * 1.0
    assert _answer_reserve(problem, tree, new_search(problem, Deadline(None), None, "core")) == 0.0
