"""The compiled DP search on threads (``n_jobs``): the optimum of one thread and of brute force,
the same tree on every run for a given ``n_jobs``, and time limits, the deadline's stop and
Ctrl-C still honoured while the threads run.

Two ways of using the threads: the big depth-two kernels (the same tree as one thread), and at
depth >= 3 the top node's roots in waves (parallel roots: a fixed tree for each ``n_jobs``, which
may be another optimal tree than one thread's; with waves of one root, exactly one thread's
search). Most instances are small: there the core's thread thresholds are set to 0
(``_core.Search.set_thread_work``) so that every depth-two scan root and every pair solve runs
its parts on the threads, whatever its size."""

from __future__ import annotations

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import load_dataset, prepare
from satdt.deadline import Deadline
from satdt.solvers.dp import solve_dp, solve_max_accuracy_dp, solve_regularized_dp
from satdt.solvers.dp.search import CoreSearch, resolve_n_jobs
from satdt.solvers.common import n_cores

from conftest import ctrl_c_after, random_problem

slow = pytest.mark.slow


def _shape(node):
    """A tree over the original features as nested tuples (feature, threshold, left, right) / label."""
    if node.is_leaf:
        return int(node.label)
    return (int(node.feature), float(node.threshold), _shape(node.left), _shape(node.right))


def _forced(problem, n_jobs, pair_ops, q=1, leaf_cost=0, wave=None):
    """A compiled search on n_jobs threads whose every kernel runs on the threads."""
    search = CoreSearch(problem, Deadline(None), pair_ops, q=q, leaf_cost=leaf_cost, n_jobs=n_jobs)
    assert search._core.threads == n_jobs
    search._core.set_thread_work(0, 0)
    if wave is not None:
        search._core.set_root_wave(wave)
    return search


def _problem(seed):
    """Binary features, short integer chains and long chains (the depth-two scan), 2-3 classes,
    merged duplicate rows with other labels."""
    return _sized_problem(seed, rows=(12, 40), features=(2, 5), highs=(2, 4, 40), n_classes=2 + int(seed % 5 == 4))


def _sized_problem(seed, rows, features, highs, n_classes):
    """:func:`conftest.random_problem` with its rows and features drawn in ``rows`` / ``features``
    (half-open ranges) and its values below ``highs[seed % 3]`` (binary, small or wide integers)."""
    rng = np.random.default_rng(seed)
    high = highs[seed % 3]
    return random_problem(seed, n_rows=int(rng.integers(*rows)), n_features=int(rng.integers(*features)),
                          n_classes=n_classes, binary=high == 2, max_value=high)


# 30 instances x depths 2 and 3 x three depth-two paths x n_jobs 1, 2, 3: the optimum of one
# thread and of brute force; at depth 2 (kernels on the threads) the tree of one
# thread, at depth 3 (the top node's roots in waves) the same tree and the same search nodes on a
# second run (the serial search against brute force on 600 more: tests/test_dp.py)
@slow
@pytest.mark.parametrize("block", range(3))
def test_threads_equal_serial_and_bruteforce(block):
    runs_on_threads = waves = 0
    for seed in range(10 * block, 10 * block + 10):
        problem = _problem(seed)
        for depth in (2, 3):
            ref = bruteforce.min_errors(problem, depth)[0]
            for pair_ops in (0.0, 1e12, -1.0):  # scan / root search only, pair solver always, the rule
                runs = []
                for n_jobs in (1, 2, 3):
                    for repeat in range(1 if n_jobs == 1 or depth == 2 else 2):
                        search = _forced(problem, n_jobs, pair_ops) if n_jobs > 1 else \
                            CoreSearch(problem, Deadline(None), pair_ops, n_jobs=1)
                        res = solve_max_accuracy_dp(problem, max_depth=depth, _search=search)
                        assert res.status == "OPTIMAL" and res.objective == res.bound == ref, (seed, depth, n_jobs)
                        assert int((res.tree.predict_index(problem.data.X) != problem.data.y).sum()) == ref
                        runs.append((n_jobs, _shape(res.tree.root), res.stats["nodes"]))
                        runs_on_threads += res.stats["thread_runs"] if n_jobs > 1 else 0
                        waves += res.stats["root_waves"]
                if depth == 2:
                    assert runs[0][1:] == runs[1][1:] == runs[2][1:], (seed, depth, pair_ops)
                else:  # n_jobs 1, 2, 2, 3, 3: the same tree and nodes on both runs of each n_jobs
                    assert runs[1] == runs[2] and runs[3] == runs[4], (seed, depth, pair_ops)
    assert runs_on_threads > 0  # the kernels did run on the threads
    assert waves > 0  # and so did the roots


@pytest.mark.parametrize("seed", range(8))
def test_threads_regularized_equal_serial(seed, monkeypatch):
    """The regularized objective (leaf cost) through solve_regularized_dp, every kernel on the
    threads: the brute-force optimum and one tree for n_jobs 1, 2, 3."""
    from fractions import Fraction

    monkeypatch.setattr(CoreSearch, "THREAD_WORK", (0.0, 0.0))
    problem = random_problem(500 + seed, n_rows=14 + seed, n_features=3, n_classes=2 + seed % 2,
                             binary=seed % 2 == 0, max_value=8)
    n = problem.n_rows
    for lam in (0.01, 0.05):
        ref = bruteforce.best_tree(problem, 3, lambda c: Fraction(int(c.sum() - c.max()), n) + Fraction(lam))[0]
        for n_jobs in (1, 2, 3):
            shapes = []
            for repeat in range(2):
                res = solve_regularized_dp(problem, lam=lam, max_depth=3, n_jobs=n_jobs)
                assert res.status == "OPTIMAL"
                assert res.objective == pytest.approx(float(ref), abs=1e-12)
                shapes.append((_shape(res.tree.root), res.stats["nodes"]))
            assert shapes[0] == shapes[1]


def _continuous(n=6000, f=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, f))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return Binarizer("all").problem(prepare(X, y))


def test_threads_default_thresholds_same_tree_and_deterministic():
    """A problem big enough for the default thresholds (6,000 rows, 8 continuous features:
    depth-two scans on the threads): one thread and two give the same optimum and tree, and two
    runs on two threads the same tree."""
    problem = _continuous()
    shapes = []
    for n_jobs in (1, 2, 2):
        res = solve_max_accuracy_dp(problem, max_depth=2, n_jobs=n_jobs)
        assert res.status == "OPTIMAL"
        assert (res.stats["thread_runs"] > 0) == (n_jobs > 1)
        shapes.append((res.objective, _shape(res.tree.root)))
    assert shapes[0] == shapes[1] == shapes[2]


def test_compas_depth3_same_tree_on_threads():
    """compas (binary features after `all`; the roots in waves at depth 3): one thread's optimum,
    and the same tree and search nodes on every run with two threads."""
    problem = Binarizer("all").problem(load_dataset("compas"))
    out = [solve_max_accuracy_dp(problem, max_depth=3, n_jobs=n_jobs) for n_jobs in (1, 2, 2, 2)]
    assert all(r.status == "OPTIMAL" for r in out)
    assert out[0].objective == out[1].objective == out[2].objective == out[3].objective
    assert out[1].stats["root_waves"] > 0
    runs = [(_shape(r.tree.root), r.stats["nodes"], r.stats["root_waves"]) for r in out[1:]]
    assert runs[0] == runs[1] == runs[2]


# -------------------------------------------------------------- parallel roots (waves of the top node)
def _wave_problem(seed):
    return _sized_problem(1000 + seed, rows=(15, 40), features=(3, 5), highs=(2, 5, 30),
                          n_classes=2 + int(seed % 4 == 3))


# waves of 1 to 4 roots on 2 and 3 threads, depths 3 and 4: brute force's optimum (depth 3) and the
# numpy reference's (depth 4); waves of one root give exactly one thread's tree and nodes
@pytest.mark.parametrize("seed", [s if s < 4 else pytest.param(s, marks=slow) for s in range(10)])
def test_root_waves_exact(seed):
    problem = _wave_problem(seed)
    for depth in (3, 4):
        if depth == 3:
            ref = bruteforce.min_errors(problem, depth)[0]
        else:
            ref = solve_max_accuracy_dp(problem, max_depth=depth, engine="reference").objective
        serial = solve_max_accuracy_dp(problem, max_depth=depth,
                                       _search=CoreSearch(problem, Deadline(None), -1.0, n_jobs=1))
        assert serial.objective == ref
        for n_jobs, wave in ((2, 1), (2, 2), (2, 3), (3, 3), (3, 4)):
            res = solve_max_accuracy_dp(problem, max_depth=depth, _search=_forced(problem, n_jobs, -1.0, wave=wave))
            assert res.status == "OPTIMAL" and res.objective == res.bound == ref, (seed, depth, n_jobs, wave)
            assert int((res.tree.predict_index(problem.data.X) != problem.data.y).sum()) == ref
            assert res.stats["root_waves"] > 0 or serial.stats["nodes"] <= 1
            if wave == 1:
                assert _shape(res.tree.root) == _shape(serial.tree.root), (seed, depth)
                assert res.stats["nodes"] == serial.stats["nodes"]


# the pipeline of roots (depth >= 4, no wave size set): lags 1 to 3 and the default on 2 and 3
# threads, every kernel on the threads: the optimum of the numpy reference (depth 4) or of one
# thread (depth 5, itself checked against the reference above and in tests/test_dp.py), re-scored
# on the rows; a second run with the same threads and lag gives the same tree and node count
@pytest.mark.parametrize("seed", [s if s in (0, 1, 6) else pytest.param(s, marks=slow) for s in range(10)])
def test_root_pipeline_exact_and_deterministic(seed):
    problem = _wave_problem(seed)
    pipelines = 0
    for depth in (4, 5):
        serial = solve_max_accuracy_dp(problem, max_depth=depth,
                                       _search=CoreSearch(problem, Deadline(None), -1.0, n_jobs=1))
        ref = serial.objective
        if depth == 4:
            assert ref == solve_max_accuracy_dp(problem, max_depth=depth, engine="reference").objective
        for n_jobs, lag in ((2, 0), (2, 1), (2, 3), (3, 0), (3, 2)):
            twice = _twice_exact_and_alike(problem, depth, ref, n_jobs, lag, None, (seed, depth, n_jobs, lag))
            pipelines += sum(res.stats["root_waves"] for res in twice)
    assert pipelines > 0 or serial.stats["nodes"] <= 1


# the pool's claims (core/pool.h: the caller waits for the tasks, not for a worker to wake, and a
# late worker never runs a task of the next run with the old job): 300 small fits at depths 2-4 on
# two threads, every kernel on the threads, pair paths in turn, against one thread: with waves of one
# root the same tree and nodes; with the default waves / pipeline the same optimum, and the same
# tree, nodes and roots on a second run. 10 blocks, the first in the fast suite; the whole loop
# also meant for `taskset -c 0` and a loaded machine (benchmarks/results/weights.md, h45p)
@pytest.mark.parametrize("block", [b if b == 0 else pytest.param(b, marks=slow) for b in range(10)])
def test_pool_stress_two_threads_equal_one(block):
    runs_on_threads = 0
    for seed in range(5 * block, 5 * block + 5):
        problem = _sized_problem(5000 + seed, rows=(10, 60), features=(2, 6), highs=(2, 4, 30),
                                 n_classes=2 + int(seed % 3 == 2))
        pair_ops = (0.0, 1e12, -1.0)[seed % 3]
        for depth in (2, 3, 4):
            serial = solve_max_accuracy_dp(problem, max_depth=depth,
                                           _search=CoreSearch(problem, Deadline(None), pair_ops, n_jobs=1))
            one = solve_max_accuracy_dp(problem, max_depth=depth, _search=_forced(problem, 2, pair_ops, wave=1))
            where = (seed, depth)
            assert one.objective == one.bound == serial.objective, where
            assert (_shape(one.tree.root), one.stats["nodes"]) == (_shape(serial.tree.root), serial.stats["nodes"]), where
            runs_on_threads += one.stats["thread_runs"]
            if depth > 2:
                for res in _twice_exact_and_alike(problem, depth, serial.objective, 2, 0, None, where):
                    runs_on_threads += res.stats["thread_runs"]
    assert runs_on_threads > 0


def _twice_exact_and_alike(problem, depth, ref, n_jobs, lag, level, where):
    """Two runs of a forced ``n_jobs`` search (root lag ``lag``, root level ``level`` when given):
    each OPTIMAL at ``ref``, its tree re-scored on the rows; the same tree, nodes and roots on both."""
    twice = []
    for repeat in range(2):
        search = _forced(problem, n_jobs, -1.0)
        if level is not None:
            search._core.set_root_level(level)
        if lag:
            search._core.set_root_lag(lag)
        res = solve_max_accuracy_dp(problem, max_depth=depth, _search=search)
        assert res.status == "OPTIMAL" and res.objective == res.bound == ref, where
        assert int((res.tree.predict_index(problem.data.X) != problem.data.y).sum()) == ref
        twice.append(res)
    runs = [(_shape(res.tree.root), res.stats["nodes"], res.stats["wave_roots"]) for res in twice]
    assert runs[0] == runs[1], where
    return twice


def _cut_calls_keep_the_invariant(problem, depth, opt, settings) -> int:
    """Each (time cap, core setting) on a fresh two-thread search from the greedy tree: a call that
    says it finished has the optimum (or proves nothing below the upper bound, which must then be
    at most the optimum), one that did not a bound <= the optimum and a tree no better. Returns
    the calls cut."""
    from satdt.solvers.dp.accuracy import CORE_PAIR_OPS

    S, cuts = np.arange(problem.n_distinct), 0
    for cap, setup in settings:
        search = CoreSearch(problem, Deadline(None), CORE_PAIR_OPS, n_jobs=2)
        setup(search._core)
        ub, _ = search.greedy(S, depth)
        out = search.run(depth, ub, time_cap=float(cap))
        if out.finished:
            assert (out.node is not None and out.cost == opt) or (out.node is None and ub <= opt), cap
        else:
            cuts += 1
            assert out.bound is None or out.bound <= opt
            assert out.cost is None or out.cost >= opt
    return cuts


def _slices_end_with_the_optimum(problem, depth, opt, max_slices):
    """Slices of 0.02 s resumed on one two-thread search end with the optimum: (slices, search)."""
    from satdt.solvers.dp.accuracy import CORE_PAIR_OPS

    search = CoreSearch(problem, Deadline(None), CORE_PAIR_OPS, n_jobs=2)
    ub, _ = search.greedy(np.arange(problem.n_distinct), depth)
    for slices in range(max_slices):
        out = search.run(depth, ub, time_cap=0.02)
        if out.finished:
            break
        if out.node is not None:
            ub = min(ub, out.cost)
    assert out.finished and (out.cost if out.node is not None else ub) == opt
    return slices, search


# the roots of nodes below the top on the threads (set_root_level; the default at depth >= 6: the
# nodes of depth 4): levels 1-3 at depths 4-6 and the default at depth 6, on 2 and 3 threads,
# every kernel on the threads: one thread's optimum (itself checked against the numpy reference at
# depth 4), re-scored on the rows; a second run gives the same tree, nodes and roots; some node
# below the top ran its roots on the threads
@pytest.mark.parametrize("seed", [s if s in (0, 2) else pytest.param(s, marks=slow) for s in range(8)])
def test_root_level_exact_and_deterministic(seed):
    problem = _wave_problem(seed)
    below = 0
    for depth, level in ((4, 1), (5, 1), (5, 2), (6, -1), (6, 3)):
        serial = solve_max_accuracy_dp(problem, max_depth=depth,
                                       _search=CoreSearch(problem, Deadline(None), -1.0, n_jobs=1))
        ref = serial.objective
        if depth == 4:
            assert ref == solve_max_accuracy_dp(problem, max_depth=depth, engine="reference").objective
        for n_jobs, lag in ((2, 0), (2, 1), (3, 0)):
            twice = _twice_exact_and_alike(problem, depth, ref, n_jobs, lag, level, (seed, depth, level, n_jobs, lag))
            below += sum(res.stats["root_waves"] > 1 for res in twice)  # a pipeline or waves at more than one node
    assert below > 0 or serial.stats["nodes"] <= 1
    # the regularized objective (a leaf cost) at depth 6, the default level: one thread's optimum,
    # one tree and node count on two runs
    one = solve_regularized_dp(problem, lam=0.01, max_depth=6, n_jobs=1).objective
    runs = []
    for repeat in range(2):
        res = solve_regularized_dp(problem, lam=0.01, max_depth=6, n_jobs=2)
        assert res.status == "OPTIMAL" and res.objective == pytest.approx(one, abs=1e-12), seed
        runs.append((_shape(res.tree.root), res.stats["nodes"]))
    assert runs[0] == runs[1], seed


@slow
def test_root_level_cut_by_time_caps_resumes_to_the_optimum():
    """Time caps that stop a search whose nodes of depth 4 run their roots on the threads (depth 6,
    the default level): a cut call never claims more than it has (its bound <= the optimum, its
    tree no better than the optimum), and slices resumed on one search end with the optimum."""
    rng = np.random.default_rng(6)  # random labels: 2 errors at depth 6, ~0.5 s on two threads
    problem = Binarizer("all").problem(prepare(rng.normal(size=(200, 2)), rng.integers(0, 2, 200)))
    opt = solve_max_accuracy_dp(problem, max_depth=6, n_jobs=1).objective
    assert _cut_calls_keep_the_invariant(problem, 6, opt, [(c, lambda core: None) for c in np.linspace(0.005, 0.1, 6)]) > 0
    slices, search = _slices_end_with_the_optimum(problem, 6, opt, 1000)
    assert slices > 0 and search.stats["root_waves"] > 1


def test_root_pipeline_deterministic_under_contention():
    """A problem whose roots take long enough for the threads to overlap (depth 4, continuous
    features): three runs on two threads and two on three give one tree, one node count, one
    number of roots, and one thread's optimum."""
    problem = _continuous(n=200, f=3, seed=6)
    ref = solve_max_accuracy_dp(problem, max_depth=4, n_jobs=1).objective
    for n_jobs in (2, 3):
        runs = []
        for _ in range(3 if n_jobs == 2 else 2):
            res = solve_max_accuracy_dp(problem, max_depth=4, n_jobs=n_jobs)
            assert res.status == "OPTIMAL" and res.objective == ref
            runs.append((_shape(res.tree.root), res.stats["nodes"], res.stats["wave_roots"]))
        assert runs[0][2] > 1
        assert all(r == runs[0] for r in runs), n_jobs


@slow
def test_root_pipeline_cut_by_a_time_cap_never_claims_an_answer():
    """Time caps that stop the pipeline of roots at every stage (two threads, depth 4, lags 1 and
    the default): a call that says it finished has the optimum (or proves nothing below the upper
    bound, which must then be at most the optimum), one that did not has a bound <= the optimum
    and a tree no better than the optimum; slices resumed on one search end with the optimum.
    (A review found that a time-out seen by the calling thread while it waited, with every root
    still running ending unhurt, let the pipeline return as if no root were left; fixed. This
    test did not reproduce that race in six runs of the unfixed code: its window is narrow. It
    checks the invariant every cut must keep.)"""
    problem = _continuous(n=200, f=3, seed=6)
    opt = solve_max_accuracy_dp(problem, max_depth=4, n_jobs=1).objective
    # lag 1: one root at a time, the other thread waits
    _cut_calls_keep_the_invariant(problem, 4, opt, [(c, lambda core, lag=lag: core.set_root_lag(lag))
                                                    for c in np.linspace(0.005, 0.2, 10) for lag in (0, 1)])
    _slices_end_with_the_optimum(problem, 4, opt, 400)


@slow
def test_root_waves_deterministic_under_contention():
    """1,500 rows, depth 3, two and three threads: three runs each give one tree, one node count,
    one number of waves (nothing depends on which thread ran a root, or when)."""
    problem = _continuous(n=1500, f=5, seed=4)
    for n_jobs in (2, 3):
        runs = []
        for _ in range(3):
            res = solve_max_accuracy_dp(problem, max_depth=3, n_jobs=n_jobs)
            assert res.status == "OPTIMAL"
            runs.append((res.objective, _shape(res.tree.root), res.stats["nodes"], res.stats["root_waves"],
                         res.stats["wave_roots"]))
        assert runs[0][3] > 0
        assert all(r == runs[0] for r in runs), n_jobs
    assert runs[0][0] == solve_max_accuracy_dp(problem, max_depth=3, n_jobs=1).objective


@pytest.mark.parametrize("depth", [3, 4])
def test_progress_called_from_the_calling_thread_only(depth):
    """The progress callback (Python) runs on the calling thread while the roots run on two (in
    waves at depth 3, in the pipeline at depth 4)."""
    import threading

    problem = _continuous(n=1500 if depth == 3 else 200, f=5 if depth == 3 else 3, seed=5)
    me = threading.get_ident()
    seen = []
    res = solve_dp(problem, max_depth=depth, n_jobs=2, progress=lambda *a, **k: seen.append(threading.get_ident()))
    assert res.status == "OPTIMAL" and res.stats["root_waves"] > 0
    assert seen and set(seen) == {me}


def test_time_limit_with_threads():
    problem = _continuous(seed=1)
    res = solve_max_accuracy_dp(problem, max_depth=4, time_limit=1.5, n_jobs=2)
    assert res.runtime <= 1.5 + 1.0
    assert res.status == "FEASIBLE"
    assert int((res.tree.predict_index(problem.data.X) != problem.data.y).sum()) == res.objective
    assert problem.min_errors <= res.bound <= res.objective


def test_interrupt_with_threads():
    """satdt.deadline.interrupt (the deadline's stop, polled from the calling thread) and Ctrl-C
    stop a search whose kernels run on two threads."""
    import threading
    import time

    from satdt.deadline import clear_interrupt, interrupt

    problem = _continuous(seed=2)
    timer = threading.Timer(1.0, interrupt)
    start = time.perf_counter()
    timer.start()
    try:
        res = solve_max_accuracy_dp(problem, max_depth=4, time_limit=120, n_jobs=2)
    finally:
        timer.cancel()
        clear_interrupt()
    assert time.perf_counter() - start < 1.0 + 1.5
    assert res.status == "FEASIBLE"
    start = time.perf_counter()
    with ctrl_c_after(0.5):
        solve_dp(problem, max_depth=4, time_limit=120, n_jobs=2)
    assert time.perf_counter() - start < 0.5 + 1.5


def test_n_jobs_convention():
    assert resolve_n_jobs(None) == resolve_n_jobs(-1) == n_cores()
    assert resolve_n_jobs(1) == 1 and resolve_n_jobs(3) == 3
    assert resolve_n_jobs(-n_cores() - 5) == 1
    for bad in (0, 1.5, "2", True):
        with pytest.raises(ValueError):
            resolve_n_jobs(bad)
    problem = random_problem(0)
    with pytest.raises(ValueError, match="n_jobs"):
        solve_max_accuracy_dp(problem, max_depth=2, n_jobs=0)
    search = CoreSearch(problem, Deadline(None), -1.0, n_jobs=None)
    assert search._core.threads == n_cores()


def test_estimator_and_cli_take_n_jobs(tmp_path, capsys):
    from satdt.cli import main
    from satdt.estimators import DPTreeClassifier

    problem = random_problem(3, n_rows=40, n_features=4, binary=False)
    data = problem.data
    a = DPTreeClassifier(max_depth=2, n_jobs=1).fit(data.X, data.y)
    b = DPTreeClassifier(max_depth=2, n_jobs=2).fit(data.X, data.y)
    assert a.get_params()["n_jobs"] == 1
    assert a.result_.objective == b.result_.objective
    assert _shape(a.tree_.root) == _shape(b.tree_.root)
    with pytest.raises(ValueError, match="n_jobs"):
        DPTreeClassifier(max_depth=2, n_jobs=0).fit(data.X, data.y)
    path = tmp_path / "d.csv"
    rows = np.column_stack([data.X, data.y])
    path.write_text("a,b,c,d,y\n" + "\n".join(",".join(str(v) for v in r) for r in rows) + "\n")
    assert main(["solve", str(path), "--method", "dp", "--max-depth", "2", "--n-jobs", "2"]) == 0
    assert "OPTIMAL" in capsys.readouterr().out
    assert main(["solve", str(path), "--method", "cpsat", "--n-jobs", "2"]) == 2
    assert "--n-jobs does not apply to cpsat" in capsys.readouterr().err


def test_a_search_leaving_a_thread_to_another_keeps_its_answers():
    """``set_solo`` (the anytime schedule's complete lane beside the heuristic one): on two
    threads the search runs on the calling thread alone (no wave, no kernel on a worker), on
    three on two of them (waves of two roots); either way the brute-force optimum and a fixed
    tree and node count on a second run."""
    waves = 0
    for seed in range(700, 706):
        problem = _sized_problem(seed, rows=(12, 30), features=(2, 4), highs=(2, 4, 40), n_classes=2)
        ref = bruteforce.min_errors(problem, 3)[0]
        for n_jobs in (2, 3):
            runs = []
            for repeat in range(2):
                search = _forced(problem, n_jobs, -1.0)
                search.set_solo(True)
                res = solve_max_accuracy_dp(problem, max_depth=3, _search=search)
                assert res.status == "OPTIMAL" and res.objective == res.bound == ref, (seed, n_jobs)
                runs.append((_shape(res.tree.root), res.stats["nodes"]))
                if n_jobs == 2:
                    assert res.stats["root_waves"] == 0 and res.stats["worker_tasks"] == 0
                else:
                    waves += res.stats["root_waves"]
            assert runs[0] == runs[1], (seed, n_jobs)
    assert waves > 0  # three threads, one left to the other lane: the roots still went in waves
