"""The rows' bound (satdt/solvers/dp/rows_bound.py): the optimum on a growing sample of the rows
is a lower bound of the optimum on all of them, and a proof once it reaches the incumbent."""

from __future__ import annotations

import numpy as np
import pytest

from satdt import bruteforce
from satdt.deadline import Deadline
from satdt.solvers.dp import rows_bound, solve_max_accuracy_dp
from satdt.solvers.dp.accuracy import new_search

from conftest import FakeClock, random_problem

slow = pytest.mark.slow
BIG = 2 ** 40


def _instance(seed: int):
    return random_problem(seed, n_rows=40 + seed % 30, n_features=2 + seed % 3, n_classes=2 + seed % 2,
                          binary=seed % 4 == 0, max_value=6)


def _steps(bound: rows_bound.RowsBound, ub: float, ref: float) -> rows_bound.RowsStep:
    """Steps until a proof; every bound on the way at most ``ref`` and never falling."""
    last = -1.0
    for _ in range(1000):
        step = bound.step(ub, 60.0)
        assert step.bound is not None and last <= step.bound <= ref
        last = step.bound
        if step.optimal or step.beyond:
            return step
    raise AssertionError("no proof after 1000 steps")


@pytest.mark.parametrize("seed", [s if s < 15 else pytest.param(s, marks=slow) for s in range(60)])
def test_the_samples_optimum_bounds_the_optimum_and_ends_in_its_proof(seed, monkeypatch):
    """From a sample of three distinct rows growing by one or two (so that it grows many times on
    these small problems): every bound at most the brute-force optimum, and the last one equal to
    it, on a tree that misclassifies no row outside the sample (optimal: re-scored on all rows)
    or, with the optimum as upper bound (the incumbent is optimal), possibly on the proof that
    no tree on the sample costs less; never that proof with an upper bound above the optimum."""
    monkeypatch.setattr(rows_bound, "FIRST_ROWS", 3)
    monkeypatch.setattr(rows_bound, "MIN_GROWTH", 1 + seed % 2)
    problem = _instance(seed)
    depth = 2 + seed % 2
    ref = float(bruteforce.min_errors(problem, depth)[0])
    for ub in (BIG, ref, ref + 1):
        search = new_search(problem, Deadline(None), None)
        bound = rows_bound.RowsBound(search, depth, seed=seed)
        step = _steps(bound, ub, ref)
        assert step.bound == ref
        assert step.optimal != step.beyond
        if step.optimal:  # a tree of the optimum's cost that gets no row outside the sample wrong
            assert search.tree_cost(step.node) == ref
        else:  # no tree on the sample below the upper bound: only when that is the optimum
            assert ub == ref


def test_a_weighted_sample_bounds_the_weighted_optimum(monkeypatch):
    """Distinct rows carry their duplicates' (and class weights') counts: the sample's optimum is
    a bound of the weighted optimum too."""
    monkeypatch.setattr(rows_bound, "FIRST_ROWS", 4)
    for seed in range(6):
        problem = _instance(200 + seed)
        rng = np.random.default_rng(seed)
        problem.counts = problem.counts * rng.integers(1, 5, size=(problem.n_distinct, 1))
        ref = float(bruteforce.min_errors(problem, 2)[0])
        search = new_search(problem, Deadline(None), None)
        step = _steps(rows_bound.RowsBound(search, 2, seed=seed), BIG, ref)
        assert step.optimal and step.bound == ref == search.tree_cost(step.node)


@pytest.mark.parametrize("seed", range(8))
def test_a_sample_bounds_the_cost_with_a_leaf_cost(seed, monkeypatch):
    """The regularized objective's integer cost q * errors + leaf_cost * leaves: every leaf costs
    the same on the sample, so its optimum is a bound too (brute force over the same cost)."""
    monkeypatch.setattr(rows_bound, "FIRST_ROWS", 3)
    problem = _instance(300 + seed)
    q, leaf_cost, depth = 1 + seed % 3, 1 + seed % 4, 2 + seed % 2
    ref = bruteforce.best_tree(problem, depth, lambda c: q * float(c.sum() - c.max()) + leaf_cost)[0]
    search = new_search(problem, Deadline(None), None, q=q, leaf_cost=leaf_cost)
    step = _steps(rows_bound.RowsBound(search, depth, seed=seed), BIG, ref)
    assert step.optimal and step.bound == ref == search.tree_cost(step.node)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_rows_bound_proves_the_optimum_in_the_complete_searchs_turns(seed, n_jobs, monkeypatch):
    """The schedule (one thread: turns; two: the lanes) with the complete search held back (it
    proves nothing, its bound stays at the floor): the rows' bound, which takes every other turn
    of the complete search then, is the only proof there is; the answer is OPTIMAL at the
    brute-force optimum, its bound included, and its tree re-scored on the rows."""
    import time

    from satdt.solvers.dp import anytime

    monkeypatch.setattr(rows_bound, "FIRST_ROWS", 4)
    monkeypatch.setattr(anytime, "ROWS_MAX_GAP", 10 ** 6)
    # the heuristics never run out of widths (one thread: then the complete search would take the rest)
    monkeypatch.setattr(anytime, "WIDTHS", (1,) * 10 ** 6)
    problem = random_problem(800 + seed, n_rows=60 + 10 * seed, n_features=3, n_classes=2,
                             binary=False, max_value=5)
    depth = anytime.LOCAL_DEPTH + 1
    ref = bruteforce.min_errors(problem, depth)[0]
    held = []

    def complete(self, cap, **kw):
        held.append(cap)
        self.stats["complete_slices"] += 1
        time.sleep(0.005)
        return False

    monkeypatch.setattr(anytime._State, "complete", complete)
    res = solve_max_accuracy_dp(problem, max_depth=depth, time_limit=20, n_jobs=n_jobs)
    assert held  # the complete search was asked, and proved nothing
    assert res.status == "OPTIMAL" and res.objective == ref == res.bound
    assert res.stats["anytime"]["rows_steps"] >= 1
    errors = int((res.tree.predict_index(problem.data.X) != problem.data.y).sum())
    assert errors == ref


def test_the_rows_bound_waits_for_a_small_gap_and_a_complete_search_at_the_floor():
    """rows_due: only while the complete search's own bound is at the floor and the incumbent
    within ROWS_MAX_GAP errors of it (a bound from the rows' bound itself does not count)."""
    from satdt.solvers.dp import anytime

    problem = random_problem(900, n_rows=60, n_features=3, binary=False, max_value=5)
    search = new_search(problem, Deadline(None), None)
    floor = 3.0
    for cost, searched, expect in ((floor + 5, None, True), (floor + 5, floor, True),
                                   (floor + 5, floor + 1, False), (floor + anytime.ROWS_MAX_GAP + 1, None, False),
                                   (floor, None, False)):
        state = anytime._State(search, 4, anytime._Incumbent(None, cost, "test", None, float))
        state.searched_bound = searched
        state.raise_bound(floor + 4)  # the rows' bound's own
        assert state.rows_due(floor) is expect, (cost, searched)


class _FakeRows:
    """RowsBound's interface with steps of given lengths on the fake clock (cut when longer than
    their cap, doubling ``cap_factor`` as RowsBound does)."""

    def __init__(self, clock: FakeClock, lengths: list[float]):
        self.clock, self.lengths, self.caps = clock, list(lengths), []
        self.cap_factor, self.rows = 1.0, np.arange(5)

    def step(self, ub: float, cap: float) -> rows_bound.RowsStep:
        length = self.lengths.pop(0)
        self.caps.append(cap)
        if length > cap * self.cap_factor:
            self.clock.now += cap * self.cap_factor
            self.cap_factor *= 2
        else:
            self.clock.now += length
            self.cap_factor = 1.0
        return rows_bound.RowsStep(0.0)


@pytest.mark.parametrize("lengths, steps, cut", [
    ([0.05, 0.3, 9.0], 2, False),  # two steps fit; the third would need 0.45 of the 0.05 left: not started
    ([0.3, 9.0], 1, False),        # 0.1 left after the first, below 1.5 x 0.3: the next turn
    ([0.1, 0.11, 9.0], 3, False),  # the third starts with 0.19 left and is cut by the turn's end: not a cut
    ([9.0], 1, True),              # cut with the whole turn: cut by its time (the turns back off)
])
def test_a_turn_of_the_rows_bound_does_not_count_its_ends_cut_as_the_samples(lengths, steps, cut):
    """_State.rows_bound: a step after the turn's first starts only with ROWS_STEP_ROOM x the last
    step's time left, and a step cut with less than half the turn leaves cap_factor at 1, so
    _RowsTurns backs off only after steps the sample made too long."""
    from satdt.solvers.dp import anytime

    problem = random_problem(901, n_rows=40, n_features=3, binary=False, max_value=5)
    search = new_search(problem, Deadline(None), None)
    state = anytime._State(search, 4, anytime._Incumbent(None, 10.0, "test", None, float))
    clock = FakeClock()
    state.search = type("S", (), {"deadline": clock})()
    turns = anytime._RowsTurns(search, 4)
    turns.rows = fake = _FakeRows(clock, lengths)
    assert turns.run(state, 0.4) is False
    assert len(fake.caps) == steps == state.stats["rows_steps"]
    assert (fake.cap_factor > 1) is cut and turns.cuts == int(cut) and turns.wait == 2 ** int(cut)
