"""Shared fixtures: small random problems for cross-checks against the brute-force enumerator."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from satdt.binarize import Binarizer, BinaryProblem
from satdt.data import prepare


def random_problem(seed: int, n_rows: int = 20, n_features: int = 4, n_classes: int = 2,
                   consistent: bool = False, binary: bool = True, max_value: int = 4) -> BinaryProblem:
    """A random problem with the ``all`` binarization.

    ``binary`` draws 0/1 features, otherwise integers in [0, max_value). With ``consistent``,
    rows that repeat with another label are relabelled so that some tree fits every row.
    """
    rng = np.random.default_rng(seed)
    high = 2 if binary else max_value
    X = rng.integers(0, high, size=(n_rows, n_features)).astype(float)
    y = rng.integers(0, n_classes, size=n_rows)
    y[:n_classes] = np.arange(n_classes)  # every class occurs
    if consistent:
        first: dict[bytes, int] = {}
        for i, row in enumerate(X):
            y[i] = y[first.setdefault(row.tobytes(), i)]
        if len(np.unique(y)) < 2:
            y[np.argmax((X != X[0]).any(axis=1))] = 1 - y[0]
    return Binarizer("all").problem(prepare(X, y))


class FakeClock:
    """A deadline's clock that moves only when a test moves it (``now``): the anytime schedule's
    slices and the rows' bound's turns timed without sleeping."""

    def __init__(self):
        self.now = 0.0

    def elapsed(self) -> float:
        return self.now

    def expired(self) -> bool:
        return False


@pytest.fixture
def make_problem():
    return random_problem


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """Every test leaves SIGINT / SIGTERM as it found them (a command run in-process installs its
    signal policy; a later test's simulated Ctrl-C must meet Python's own handler)."""
    import signal

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for signum, handler in saved.items():
        if signal.getsignal(signum) is not handler and handler is not None:
            signal.signal(signum, handler)


@contextlib.contextmanager
def ctrl_c_after(seconds: float):
    """A simulated Ctrl-C ``seconds`` after entering the block, under Python's own SIGINT handler
    (whatever handler was set before is put back after): the block must end in KeyboardInterrupt."""
    import _thread
    import signal
    import threading

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            yield
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


# The heaviest tests outside `slow` (3-8 s each on one core, `pytest -m "not slow" --durations`,
# 2026-11-27), marked slow here so that `make test-fast` stays under two minutes; `make test`
# runs them all. Each is a node id (parameters included) or its prefix.
_EDIT_LOOP_SLOW = (
    "tests/test_fuzz.py::test_fuzz_fast_subset",
    "tests/test_limits.py::test_a_signal_stops_any_engine_with_its_best_tree[maxsat-SIGTERM]",
    "tests/test_progress.py::test_mip_reports_engine_incumbents_and_ticks",
    "tests/test_missing.py::test_core_missing_pairs_regularized_match_brute_force[0]",
    "tests/test_sat.py::test_progress_events[size]",
    "tests/test_dp_threads.py::test_root_waves_exact[1]",
    # 1.5-2.6 s each (stop 34: test-fast at 121-128 s); most have a fast sibling of the same check
    "tests/test_dp_threads.py::test_root_pipeline_deterministic_under_contention",
    "tests/test_sat.py::test_repair_is_deterministic",
    "tests/test_proof_witness.py::test_witnesses_are_minimal_and_no_larger_than_the_old_search[boxes-size]",
    "tests/test_progress.py::test_mip_events[oct]",
    "tests/test_mip.py::test_time_limit[solve_oct]",
    "tests/test_sat.py::test_time_limit_is_honoured[cadical195]",
    "tests/test_sat.py::test_canonical_splits_from_the_first_depth_match_bruteforce",
    "tests/test_limits.py::test_maxsat_loads_its_clauses_in_slices",
    "tests/test_plot.py::test_picture_shows_tests_in_original_units_and_leaf_counts",
    "tests/test_missing.py::test_consistent_tree_with_missing_values_has_brute_force_depth",
    "tests/test_proof_categorical.py::test_mutated_category_tests_are_rejected",
    # stop 42 (test-fast at 132-140 s): the rows' bound proving the optimum keeps seed 0 for each
    # n_jobs in the loop; the RL command line keeps adapttree; the regularized limit and the threads'
    # interrupt have their siblings (test_time_limit_honoured, test_time_limit_with_threads)
    *(f"tests/test_rows_bound.py::test_the_rows_bound_proves_the_optimum_in_the_complete_searchs_turns[{j}-{s}]"
      for j in (1, 2) for s in (1, 2, 3)),
    "tests/test_rl.py::test_cli_rl_methods[rdt]",
    "tests/test_dp.py::test_regularized_time_limit_honoured",
    "tests/test_dp_threads.py::test_interrupt_with_threads",
    # scikit-learn's dtype-object check waits out the 2 s limit of the quantile-binarized engines
    "tests/test_estimators.py::test_sklearn_compatible[BinOCTClassifier(binarization='quantile',n_thresholds=3,time_limit=2)-check_dtype_object]",
    "tests/test_estimators.py::test_sklearn_compatible[OCTClassifier(binarization='quantile',n_thresholds=3,time_limit=2)-check_dtype_object]",
    "tests/test_estimators.py::test_sklearn_compatible[MaxSATTreeClassifier(binarization='quantile',max_depth=2,n_thresholds=3,time_limit=2)-check_dtype_object]",
    "tests/test_estimators.py::test_sklearn_compatible[CPSATTreeClassifier(binarization='quantile',max_depth=2,n_thresholds=3,time_limit=2)-check_dtype_object]",
)


# Parametrized cross-checks whose first instances stay in the edit loop and the rest run in
# `make test` only (stop 42: test-fast at 132 s on a quiet machine): family -> instances kept.
_EDIT_LOOP_FIRST = {
    "tests/test_anytime.py::test_complete_search_resumed_across_slices_is_exact[": 8,
    "tests/test_anytime.py::test_the_two_lanes_keep_exactness[": 6,
    "tests/test_dp_core_cpp.py::test_reference_scan_equals_bruteforce_and_core[": 4,
    "tests/test_sat.py::test_every_backend_agrees[": 4,
    "tests/test_bounds_tried.py::test_the_interval_bound_rises_to_the_optimum_and_never_above_it[": 4,
    "tests/test_dp_distributed.py::test_each_part_is_the_best_tree_with_its_roots[": 4,
    "tests/test_dp.py::test_core_equals_reference[": 10,
    "tests/test_bruteforce.py::test_memoized_search_equals_explicit_enumeration[": 4,
}


def pytest_collection_modifyitems(config, items):
    seen: dict[str, int] = {}
    for item in items:
        family = next((f for f in _EDIT_LOOP_FIRST if item.nodeid.startswith(f)), None)
        if family is not None:
            seen[family] = seen.get(family, 0) + 1
        if item.nodeid.startswith(_EDIT_LOOP_SLOW) or (family is not None and seen[family] > _EDIT_LOOP_FIRST[family]):
            item.add_marker(pytest.mark.slow)
