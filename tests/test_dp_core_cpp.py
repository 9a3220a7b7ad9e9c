"""The compiled DP core by component: the C++ test programs (the search; the thread pool), and
the numpy statement of the core's depth-two scan.

``test_core_without_python`` builds tests/core/test_core.cpp against the core's component sources
(satdt/solvers/dp/core/, each compiled on its own, no pybind11) and runs it: the search against
optima from satdt's brute force (tests/core/known.h) and a brute force of its own on random
instances, with each depth-two solver, upper bound and memo use toggled (see its header).
Skipped only when no C++ compiler is on PATH. ``test_pool_without_python`` builds
tests/core/test_pool.cpp (the thread pool alone, pool.h) and runs it.

``test_reference_scan_*``: ConTree's depth-two scan as the numpy reference states it
(:meth:`~satdt.solvers.dp.reference.ReferenceSearch.depth2_scan`) against the brute force and the
core (same optimum; at depth two the same number of roots evaluated), and turned off.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import prepare
from satdt.solvers.dp import reference, solve_max_accuracy_dp, solve_regularized_dp
from satdt.tree import Tree

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "satdt" / "solvers" / "dp" / "core"
TESTS = ROOT / "tests" / "core"
# the search's components: everything but bindings.cpp (Python) and unity.cpp (their sum)
COMPONENTS = ["search", "roots", "waves", "view", "depth2", "scan", "greedy"]
COMPILER = next((c for c in ("c++", "g++", "clang++") if shutil.which(c)), None)


def _build(out: Path) -> Path:
    """Each component and the test to an object file (in parallel), then the program."""
    flags = ["-O2", "-std=c++17", "-Wall", f"-I{CORE}", f"-I{TESTS}"]
    sources = [CORE / f"{name}.cpp" for name in COMPONENTS] + [TESTS / "test_core.cpp"]
    jobs = []
    for src in sources:
        obj = out / (src.stem + ".o")
        jobs.append((src, obj, subprocess.Popen([COMPILER, *flags, "-c", str(src), "-o", str(obj)],
                                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for src, _, job in jobs:
        log, _ = job.communicate(timeout=600)
        assert job.returncode == 0, f"{src.name} does not compile on its own:\n{log}"
    exe = out / "test_core"
    link = subprocess.run([COMPILER, *[str(obj) for _, obj, _ in jobs], "-o", str(exe)],
                          capture_output=True, text=True, timeout=600)
    assert link.returncode == 0, link.stdout + link.stderr
    return exe


@pytest.mark.slow  # builds the C++ program (~15-30 s)
@pytest.mark.skipif(COMPILER is None, reason="no C++ compiler (c++, g++ or clang++) on PATH: "
                                              "tests/core/test_core.cpp cannot be built")
def test_core_without_python(tmp_path):
    exe = _build(tmp_path)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    m = re.search(r"core test: (\d+) known, (\d+) random, (\d+) large instance-depths; (\d+) checks, (\d+) failed",
                  run.stdout)
    assert m is not None, run.stdout + run.stderr
    known, random_, large, checks, failed = map(int, m.groups())
    assert failed == 0 and known >= 21 and random_ >= 500 and large >= 12 and checks >= 50_000, run.stdout


@pytest.mark.skipif(COMPILER is None, reason="no C++ compiler (c++, g++ or clang++) on PATH: "
                                              "tests/core/test_pool.cpp cannot be built")
@pytest.mark.parametrize("tsan", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_pool_without_python(tmp_path, tsan):
    """tests/core/test_pool.cpp: 100,000 runs of a few tiny tasks on the core's thread pool (2 and 3
    threads), every task once, on a thread that takes part (pool.h's claims tagged with the run);
    ``tsan``: 20,000 runs built with ThreadSanitizer, which must report no data race (it reports
    one in every run for a worker reading the job's task count before its claim)."""
    exe = tmp_path / "test_pool"
    flags = ["-O1", "-g", "-fsanitize=thread"] if tsan else ["-O2"]
    build = subprocess.run([COMPILER, *flags, "-std=c++17", "-Wall", "-pthread", f"-I{CORE}",
                            str(TESTS / "test_pool.cpp"), "-o", str(exe)], capture_output=True, text=True, timeout=600)
    if tsan and build.returncode != 0:
        pytest.skip("no ThreadSanitizer with this compiler: " + build.stderr[-300:])
    assert build.returncode == 0, build.stdout + build.stderr
    run = subprocess.run([str(exe), "10000" if tsan else "50000"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "ThreadSanitizer" not in run.stderr, run.stdout + run.stderr
    m = re.search(r"pool test: (\d+) runs, (\d+) tasks on the workers, (\d+) failed", run.stdout)
    assert m is not None and int(m.group(3)) == 0 and int(m.group(1)) == (20_000 if tsan else 100_000), run.stdout


def test_known_optima_header_is_current():
    """tests/core/known.h is what tests/core/gen_known.py writes today: the hard-coded optima are
    satdt's brute force on those instances, in the core's input form."""
    spec = importlib.util.spec_from_file_location("gen_known", TESTS / "gen_known.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (TESTS / "known.h").read_text() == gen.render()


def _numeric_problem(seed: int):
    """Integer features (long chains), some rows repeated with other labels, 2 or 3 classes."""
    rng = np.random.default_rng(9100 + seed)
    m, f, C = int(rng.integers(15, 40)), int(rng.integers(2, 4)), 2 + seed % 2
    X = rng.integers(0, 10, size=(m, f)).astype(float)
    if seed % 4 == 0:
        X = np.vstack([X, X[: m // 3]])
    y = rng.integers(0, C, size=len(X))
    y[:C] = np.arange(C)
    return Binarizer("all").problem(prepare(X, y))


@pytest.mark.parametrize("seed", [s if s < 12 else pytest.param(s, marks=pytest.mark.slow) for s in range(60)])
def test_reference_scan_equals_bruteforce_and_core(seed):
    problem = _numeric_problem(seed)
    scans = 0
    for depth in (2, 3):
        best = bruteforce.min_errors(problem, depth)[0]
        ref = solve_max_accuracy_dp(problem, max_depth=depth, pair_ops=0.0, engine="reference")
        core = solve_max_accuracy_dp(problem, max_depth=depth, pair_ops=0.0)
        assert ref.status == core.status == "OPTIMAL"
        assert ref.objective == core.objective == best, (depth, ref.objective, core.objective, best)
        scans += ref.stats["depth2_scans"]
        if depth == 2:  # one node, the same scan: the same roots
            assert ref.stats["depth2_scans"] == core.stats["depth2_scans"]
            assert ref.stats["roots_evaluated"] == core.stats["roots_evaluated"]
    ref = solve_regularized_dp(problem, lam=0.02, max_depth=3, pair_ops=0.0, engine="reference")
    core = solve_regularized_dp(problem, lam=0.02, max_depth=3, pair_ops=0.0)
    assert ref.stats["engine_objective"] == core.stats["engine_objective"]
    assert scans > 0  # the instance reached the scan


@pytest.mark.parametrize("seed", range(6))
def test_reference_scan_off_gives_the_same_optimum(seed, monkeypatch):
    problem = _numeric_problem(seed)
    on = [solve_max_accuracy_dp(problem, max_depth=d, pair_ops=0.0, engine="reference") for d in (2, 3)]
    monkeypatch.setattr(reference, "_SCAN_COLUMNS_PER_CHAIN", float("inf"))
    off = [solve_max_accuracy_dp(problem, max_depth=d, pair_ops=0.0, engine="reference") for d in (2, 3)]
    assert [r.objective for r in on] == [r.objective for r in off]
    assert sum(r.stats["depth2_scans"] for r in on) > 0 and sum(r.stats["depth2_scans"] for r in off) == 0


@pytest.mark.parametrize("seed", range(4))
def test_satisficing_search_answers_as_the_exact_search_and_leaves_its_memo_exact(seed):
    """``run(satisfice=True)``, the satisficing search (core/search.cpp, ``t_satisfice``; the DT_size
    questions of satdt/proof/witness.py): a tree below ``ub`` exactly when the exact search finds
    one (re-costed on the rows: below ``ub``, depth <= d), else a proven bound >= ``ub`` (or the
    optimum, when it is >= ``ub``); and the
    exact calls made on the same search in between (its memo shared) give a fresh search's answers."""
    from satdt.deadline import Deadline
    from satdt.solvers.dp.accuracy import new_search

    rng = np.random.default_rng(700 + seed)
    n, p, C = 40 + 10 * seed, 3 + seed % 3, 2 + seed % 2
    X = rng.integers(0, 4 + seed, size=(n, p)).astype(float)
    y = (X[:, 0] + (X[:, 1] > 1) + rng.integers(0, 2, size=n) * (rng.random(n) < 0.3)) % C
    problem = Binarizer("all").problem(prepare(X, y.astype(int)))
    m_rows = problem.n_distinct
    yes = no = 0
    for q, lc in ((1, 0), (8, 1), (5, 2)):
        shared = new_search(problem, Deadline.of(None), None, "core", q=q, leaf_cost=lc, n_jobs=1)
        for _ in range(25):
            d = int(rng.integers(2, 5))
            rows = np.sort(rng.choice(m_rows, size=int(rng.integers(2, m_rows + 1)), replace=False))
            fresh = new_search(problem, Deadline.of(None), None, "core", q=q, leaf_cost=lc, n_jobs=1)
            exact = fresh.run(d, 1e18, rows=rows)  # the optimum
            ub = float(exact.cost + rng.integers(-3 * q, 3 * q + 2))
            sat = shared.run(d, ub, rows=rows, satisfice=True)
            assert sat.finished
            if exact.cost < ub:
                assert sat.node is not None and sat.cost < ub, (seed, q, lc, d, ub, exact.cost, sat)
                assert shared.subtree_cost(sat.node, rows) == sat.cost
                assert Tree(sat.node, classes=np.arange(C)).depth() <= d and sat.cost >= exact.cost
                yes += 1
            else:  # a bound >= ub, or (as the exact search may: depth two, memo hits) the optimum >= ub
                assert sat.bound >= ub and (sat.node is None or sat.cost == exact.cost), (seed, q, lc, d, ub, sat)
                no += 1
            again = shared.run(d, 1e18, rows=rows)  # exact, on the memo the satisficing runs filled
            assert again.cost == exact.cost, (seed, q, lc, d, again.cost, exact.cost)
    assert yes >= 20 and no >= 20, (yes, no)
