"""The faster certificate rules (issue 23): the checker's depth-2 branch and bound with a target,
the one-class runs of child thresholds, the split rule's range entries (and their mutations), and
the box rule (its optimum against the brute force, box claims and their mutations, DT_size / DT_depth
certificates of one box claim)."""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.cli import main
from satdt.data import load_dataset, prepare
from satdt.proof import certify_result, check, lower, trusted, write_certificate
from satdt.proof.check import Invalid, _Costs, opt_box, opt_enum, opt_small
from satdt.result import keeping_work
from satdt.solvers.dp import solve_max_accuracy_dp, solve_min_depth_dp, solve_min_size_dp, solve_regularized_dp

from proof_cases import write_iris_over_listed_thresholds

CHECK = sys.modules["satdt.proof.check"]


def _naive(cst: _Costs, S: np.ndarray, k: int, allowed) -> int:
    """Plain recursion over every test that splits S (every gap, or every listed threshold)."""
    best = cst.leaf(S) if S.size else cst.lc
    if k == 0 or S.size < 2:
        return best
    for f in range(cst.X.shape[1]):
        v = np.unique(cst.X[S, f])
        ts = (v[:-1] + v[1:]) / 2 if allowed is None else allowed.get(f, np.empty(0))
        for t in ts:
            go = cst.X[S, f] <= t
            if go.any() and not go.all():
                best = min(best, _naive(cst, S[go], k - 1, allowed) + _naive(cst, S[~go], k - 1, allowed))
    return best


def _instance(seed: int):
    rng = np.random.default_rng(seed)
    n, p, C = int(rng.integers(4, 26)), int(rng.integers(1, 4)), int(rng.integers(2, 5))
    X = rng.integers(0, int(rng.integers(2, 12)), size=(n, p)).astype(float)
    y = rng.integers(0, C, size=n)
    if seed % 3 == 0:  # long one-class runs along x0 (the runs merge them)
        y = np.where(rng.random(n) < 0.1, rng.integers(0, C, size=n), (X[:, 0] > X[:, 0].mean()) * (C - 1))
    q, lc = (1, 0) if seed % 2 else (int(rng.integers(1, 4)), int(rng.integers(0, 2 * n)))
    allowed = None
    if seed % 4 == 3:
        allowed = {f: np.unique(rng.integers(0, 10, size=3) + 0.5) for f in range(p) if rng.random() < 0.8}
    S = np.arange(n) if seed % 5 else np.sort(rng.choice(n, size=max(1, n // 2), replace=False))
    return _Costs(X, y, C, q, lc), S, allowed


@pytest.mark.parametrize("batch,dense,narrow", [(4_000_000, 200, 2 ** 15), (4_000_000, 0, 2 ** 15),
                                                (4_000_000, 0, 0), (40, 0, 2 ** 15), (40, 0, 0), (1, 0, 2 ** 15)])
def test_opt_small_with_a_target_matches_plain_recursion(batch, dense, narrow, monkeypatch):
    monkeypatch.setattr(CHECK, "BATCH", batch)  # tiny batches: every root feature split in pieces
    monkeypatch.setattr(CHECK, "DENSE", dense)  # 0: the branch and bound, never the plain enumeration
    monkeypatch.setattr(CHECK, "SMALL", CHECK.SMALL if dense else -1)
    monkeypatch.setattr(CHECK, "PAIRS", CHECK.PAIRS if dense else 0)  # (nor the block pairs)
    monkeypatch.setattr(CHECK, "NARROW", narrow)  # 0: the counts in int32, as on 2^15 rows or more
    for seed in range(60 if batch > 1 else 25):
        cst, S, allowed = _instance(seed)
        for k in (0, 1, 2):
            ref = _naive(cst, S, k, allowed)
            assert opt_small(cst, S, k, allowed) == ref, (seed, k)
            for t in (ref - 1, ref, ref + 1):
                assert opt_small(cst, S, k, allowed, t) == min(t, ref), (seed, k, t)


@pytest.mark.parametrize("seed", range(6))
def test_opt_small_matches_the_brute_force_regularized(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(22, 2)).round(1)
    y = (X[:, 0] + rng.normal(scale=0.5, size=22) > 0).astype(int)
    data = prepare(X, y)
    lam = Fraction(1, 20)
    cst = _Costs(data.X, data.y, 2, lam.denominator, lam.numerator * 22)
    for k in (1, 2):
        obj, _ = bruteforce.min_regularized(Binarizer("all").problem(data), float(lam), k)
        assert opt_small(cst, np.arange(22), k) == round(obj * 22 * lam.denominator)


@pytest.mark.parametrize("dense", [200, 0])
def test_opt_small_has_no_int32_overflow_for_large_lam_denominators(dense, monkeypatch):
    monkeypatch.setattr(CHECK, "DENSE", dense)
    monkeypatch.setattr(CHECK, "SMALL", CHECK.SMALL if dense else -1)
    monkeypatch.setattr(CHECK, "PAIR_ROWS", 10 ** 9 if dense else 0)  # the block pairs on every set, or never
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 6, size=(40, 2)).astype(float), rng.integers(0, 2, size=40)
    S, q = np.arange(40), 3_000_000_000  # q * errors passes 2^31: the counts are widened first
    for k in (1, 2):
        assert opt_small(_Costs(X, y, 2, q, 0), S, k) == q * opt_small(_Costs(X, y, 2, 1, 0), S, k)


@pytest.mark.parametrize("narrow", [2 ** 15, 0])
def test_dense_enumeration_with_run_gaps_equals_the_branch_and_bound(narrow, monkeypatch):
    """The plain enumeration (its depth-1 tests only the gaps between one-class runs, counts in int16
    below NARROW rows, root tests whose two-leaf bound reaches the target skipped) against the branch
    and bound over every gap, on larger sets with 2-6 classes,
    long runs, ties, listed thresholds and the regularized cost; and against plain recursion on
    the smaller ones."""
    monkeypatch.setattr(CHECK, "NARROW", narrow)
    monkeypatch.setattr(CHECK, "PAIRS", 0)  # (the block pairs: their own test)
    for seed in range(40):
        rng = np.random.default_rng(1000 + seed)
        n, p, C = int(rng.integers(2, 90)), int(rng.integers(1, 4)), int(rng.integers(2, 7))
        X = rng.integers(0, int(rng.integers(2, 40)), size=(n, p)).astype(float)
        y = rng.integers(0, C, size=n) if seed % 3 else np.minimum(X[:, 0] // 7, C - 1).astype(int)
        y = np.where(rng.random(n) < 0.05, rng.integers(0, C, size=n), y)
        if seed % 6 == 1:  # a depth-2 tree's labels: the optimum meets the two-leaf bound at one root
            X = np.column_stack([X[:, 0], rng.integers(0, 30, size=(n, 2))]).astype(float)
            p, C, y = 3, 4, np.where(X[:, 0] < 20, X[:, 1] < 15, 2 + (X[:, 2] < 10)).astype(int)
        q, lc = (1, 0) if seed % 2 else (int(rng.integers(1, 4)), int(rng.integers(0, 2 * n)))
        allowed = {f: np.unique(rng.integers(0, 40, size=6) + 0.5) for f in range(p)} if seed % 4 == 3 else None
        cst = _Costs(X, y, C, q, lc)
        S = np.arange(n) if seed % 5 else np.sort(rng.choice(n, size=max(1, n // 2), replace=False))
        for k in (1, 2):
            monkeypatch.setattr(CHECK, "DENSE", 10 ** 6)  # always the plain enumeration (at most SMALL tests: every
            monkeypatch.setattr(CHECK, "SMALL", -1 if seed % 2 else 24)  # gap a depth-1 test; else the run gaps)
            dense = opt_small(cst, S, k, allowed)
            for t in (dense - q, dense - 1, dense, dense + 1):  # a target: the roots that cannot beat it skipped
                assert opt_small(cst, S, k, allowed, t) == min(t, dense), (seed, k, t)
            monkeypatch.setattr(CHECK, "DENSE", 0)  # never
            monkeypatch.setattr(CHECK, "SMALL", -1)
            assert dense == opt_small(cst, S, k, allowed), (seed, k)
            if S.size <= 24:
                assert dense == _naive(cst, S, k, allowed), (seed, k)


def test_blocks_by_codes_equal_the_blocks_by_sorting():
    """_blocks ranks each row's precomputed code among the codes S holds (no sort): the same blocks
    as sorting S's values (or their allowed intervals), on random sets with ties and one row."""
    rng = np.random.default_rng(7)
    for seed in range(200):
        n, p = int(rng.integers(1, 50)), int(rng.integers(1, 5))
        X = rng.integers(0, int(rng.integers(1, 9)), size=(n, p)) + (rng.random((n, p)).round(1) if seed % 3 else 0.0)
        cst = _Costs(X, rng.integers(0, 3, size=n), 3, 1, 0)
        allowed = {f: np.sort(rng.random(3) * 9) for f in range(p) if rng.random() < 0.7} if seed % 2 else None
        for _ in range(4):
            S = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
            V = X[S] if allowed is None else \
                np.stack([np.searchsorted(allowed.get(f, np.empty(0)), X[S, f]) for f in range(p)], 1)
            ref = np.stack([np.unique(V[:, f], return_inverse=True)[1].reshape(-1) for f in range(p)], 1)
            R, u = CHECK._blocks(cst, S, allowed)
            assert np.array_equal(R, ref) and np.array_equal(u, ref.max(0) + 1), seed


# ---------------------------------------------------------------- range entries of the split rule
def _continuous(seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)).round(2)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.3) ^ (rng.random(n) < 0.15)).astype(int)
    return prepare(X, y)


def _cert(data, d: int, tmp: Path) -> Path:
    res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=d)
    out = tmp / f"c{len(list(tmp.iterdir()))}"
    certify_result(res, data, out, max_depth=d)
    return out


def _claims(d: Path) -> list[dict]:
    with gzip.open(d / "claims.jsonl.gz", "rt") as fh:
        return [json.loads(line) for line in fh]


def _rejected(d: Path, tmp: Path, claims: list[dict]) -> bool:
    try:
        _check_mutant(d, tmp, claims)
    except Invalid:
        return True
    return False


def _range_mutants(claims: list[dict], X: np.ndarray, rng: np.random.Generator):
    """Corruptions of one range entry, each of which must be rejected."""
    spots = [(i, j) for i, c in enumerate(claims) if c["rule"] == "split"
             for j, e in enumerate(c["tests"]) if len(e) == 5]
    i, j = spots[int(rng.integers(len(spots)))]
    e = claims[i]["tests"][j]
    S = np.arange(X.shape[0])
    for f, t, side in claims[i]["path"]:
        S = S[X[S, f] <= t] if side == "L" else S[X[S, f] > t]
    v = np.unique(X[S, e[0]])
    lo, hi = int((v <= e[1]).sum()), int((v <= e[2]).sum())  # gaps of the two ends

    def edit(fn):
        c = json.loads(json.dumps(claims))
        fn(c[i]["tests"][j], c[i]["tests"])
        return c

    yield "drop the range", edit(lambda e, tests: tests.pop(j))
    if hi < v.size - 1:  # cover one more gap with the same claims (the right side grew)
        yield "stretch the top", edit(lambda e, tests: e.__setitem__(2, float(v[hi])))
    if lo > 1:
        yield "stretch the bottom", edit(lambda e, tests: e.__setitem__(1, float(v[lo - 2])))
    yield "swap the ends", edit(lambda e, tests: e.__setitem__(slice(1, 3), [e[2], e[1]]))
    yield "swap the claims", edit(lambda e, tests: e.__setitem__(slice(3, 5), [e[4], e[3]]))
    yield "shrink to the low end", edit(lambda e, tests: tests.__setitem__(j, [e[0], e[1], e[3], e[4]]))
    yield "raise the split's bound", [dict(c, bound=c["bound"] + 1) if k == i else c for k, c in enumerate(claims)]


def test_range_entries_are_produced_accepted_and_their_mutations_rejected(tmp_path, monkeypatch):
    monkeypatch.setattr(lower, "ENUM_ROWS", 0)  # (these sets fit the enumeration rule)
    rng = np.random.default_rng(0)
    ranges = mutants = 0
    for seed in range(6):
        data = _continuous(seed)
        d = _cert(data, 3, tmp_path)
        assert "optimal" in check(d)
        claims = _claims(d)
        found = sum(len(e) == 5 for c in claims if c["rule"] == "split" for e in c["tests"])
        ranges += found
        if not found:
            continue
        for _ in range(3):
            for kind, bad in _range_mutants(claims, data.X, rng):
                assert _rejected(d, tmp_path, bad), kind
                mutants += 1
    assert ranges >= 6 and mutants >= 60


@pytest.mark.slow
def test_hundreds_of_range_mutations_are_rejected(tmp_path, monkeypatch):
    monkeypatch.setattr(lower, "ENUM_ROWS", 0)
    monkeypatch.setattr(lower, "TRIPLES", 0)  # (the depth-3 roots would be one depth3 claim: no range)
    rng = np.random.default_rng(1)
    count = 0
    for seed in range(100, 140):
        data = _continuous(seed, n=30 + seed % 20)
        d = _cert(data, 2 + seed % 2, tmp_path)
        check(d)
        claims = _claims(d)
        if not any(len(e) == 5 for c in claims if c["rule"] == "split" for e in c["tests"]):
            continue
        for _ in range(3):
            for kind, bad in _range_mutants(claims, data.X, rng):
                assert _rejected(d, tmp_path, bad), kind
                count += 1
    assert count >= 300


def test_consistent_dag_on_the_witness_rows_and_its_manifest_mutations(tmp_path):
    from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp

    rng = np.random.default_rng(3)
    count = 0
    for seed in range(4):
        X = rng.permutation(np.arange(16 * 2, dtype=float)).reshape(16, 2)
        y = rng.integers(0, 2, size=16)
        y[:2] = [0, 1]
        data = prepare(X, y)
        problem = Binarizer("all").problem(data)
        for name, res in (("depth", solve_min_depth_dp(problem)), ("size", solve_min_size_dp(problem))):
            d = tmp_path / f"{name}{seed}"
            info = certify_result(res, data, d, route="dag")
            man = json.loads((d / "manifest.json").read_text())
            assert man["claims_rows"] == "witness" and f"these {len(info['witness_rows'])} rows" in check(d)
            rows = man["witness_rows"]  # minimal: without any one row a smaller tree exists, no DAG can hold
            edits = [dict(man, witness_rows=rows[1:]), dict(man, witness_rows=rows[:-1]),
                     dict(man, witness_rows=rows[:len(rows) // 2] + rows[len(rows) // 2 + 1:]),
                     dict(man, witness_rows=rows + [rows[0]])]
            for bad_man in edits:
                bad = tmp_path / "bad"
                shutil.rmtree(bad, ignore_errors=True)
                shutil.copytree(d, bad)
                (bad / "manifest.json").write_text(json.dumps(bad_man))
                with pytest.raises(Invalid):
                    check(bad)
                count += 1
    assert count == 32



def test_witness_dag_by_the_compiled_dp_equals_the_checkers_rule(tmp_path, monkeypatch):
    """DT_size's DAG over the witness rows takes its depth-2 bounds from the compiled DP on those rows
    past lower.CORE_LATER of them (satdt.proof._core_optima on the witness rows' own data): each equals
    the checker's own opt_small on the same rows, and the claims are those of the producer without the
    core, line for line (accepted)."""
    import satdt.proof as proof
    from satdt.solvers.dp import solve_min_size_dp

    monkeypatch.setattr(lower, "TRIPLES", 0)  # (its depth-3 sets would be depth3 claims: no depth-2 claim)
    calls, plain_core = [], proof._core_optima

    def compared(data, q, lc):
        core, cst = plain_core(data, q, lc), _Costs(np.asarray(data.X, float), np.asarray(data.y), 2, q, lc)
        opt = core.opt

        def both(S, k):
            calls.append((b := opt(S, k), opt_small(cst, S, k)))
            return b
        core.opt = both
        return core

    rng, depth2 = np.random.default_rng(11), 0
    for seed in range(4):  # (continuous columns: too many tests for one enum claim at depth >= 3)
        n = 30 + 5 * seed
        X = rng.random((n, 4))
        y = ((X[:, 0] + X[:, 1] > 1) ^ (X[:, 2] > 0.7)).astype(int)
        data = prepare(X, y)
        res = solve_min_size_dp(Binarizer("all").problem(data))
        lines = []
        for name, make in (("core", compared), ("plain", lambda *a: None)):
            monkeypatch.setattr(proof, "_core_optima", make)
            d = tmp_path / f"{name}{seed}"
            certify_result(res, data, d, route="dag")
            assert "lower-bound DAG" in check(d)
            lines.append([json.loads(line) for line in gzip.open(d / "claims.jsonl.gz", "rt")])
        assert lines[0] == lines[1], seed
        depth2 += sum(c["rule"] == "depth2" for c in lines[0])
    assert depth2 - 4 * lower.CORE_LATER == len(calls) >= 50, (depth2, len(calls))
    assert all(b == o for b, o in calls), [c for c in calls if c[0] != c[1]][:3]


def test_similarity_bounds_by_counted_ranks_equal_the_product(tmp_path, monkeypatch):
    """The producer's similarity bounds from one count of a side's value ranks (``PRODUCT = 0``: on every node) and
    from the node's table of rows left of two candidates (``PAIR_TABLE`` too) give the claims of the (rows x
    candidates) product (``PRODUCT`` huge), on random instances with ties, duplicate rows, 2-3 classes, errors and
    regularized costs, listed thresholds, depth 3 and 4; the certificates (with the table) are accepted."""
    monkeypatch.setattr(lower, "ENUM_ROWS", 0)  # (else small sets are one enum claim: no similarity)
    similar = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        n, p, C = int(rng.integers(40, 120)), int(rng.integers(2, 5)), int(rng.integers(2, 4))
        X = rng.integers(0, int(rng.integers(3, 15)), size=(n, p)).astype(float)
        y = np.where(rng.random(n) < 0.3, rng.integers(0, C, size=n), (X[:, 0] > X[:, 0].mean()) * (C - 1))
        q, lc = (1, 0) if seed % 2 else (int(rng.integers(1, 4)), int(rng.integers(0, n)))
        allowed = {f: np.unique(rng.integers(0, 15, size=4) + 0.5) for f in range(p)} if seed % 4 == 3 else None
        claims = []
        for product, table in ((10 ** 12, 0), (0, 0), (0, 1 << 22)):  # the product, counted ranks, the pair table
            monkeypatch.setattr(lower, "PRODUCT", product)
            monkeypatch.setattr(lower, "PAIR_TABLE", table)
            prover = lower.Prover(X, y, C, q, lc, allowed)
            prover.prove(np.arange(n), [], 3 + seed % 2, 2 ** 40)
            claims.append(prover.claims)
        assert claims[0] == claims[1] == claims[2], seed
        similar += sum(c["rule"] == "similar" for c in claims[0])
        if seed < 6:  # a whole certificate with the counted ranks, checked
            data = prepare(X, y)
            res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=3)
            certify_result(res, data, tmp_path / f"c{seed}")
            assert check(tmp_path / f"c{seed}").startswith("accuracy")
    assert similar >= 30, similar


# ---------------------------------------------------------------- the enumeration rule (<= 64 rows)
def test_opt_enum_matches_plain_recursion():
    for seed in range(30):
        cst, S, allowed = _instance(seed)
        S = S[:11]
        for k in range(4):
            assert opt_enum(cst, S, k, allowed) == _naive(cst, S, k, allowed), (seed, k)


def test_opt_enum_only_splitting_tests_on_sets_no_test_splits():
    """opt_enum recurses over the tests that split each set only: sets with duplicate rows (no test
    splits them: their optimum is a leaf's), single rows, deeper than |S|, and mixed, against the plain
    recursion, with and without leaf costs."""
    rng = np.random.default_rng(11)
    for seed in range(40):
        n = int(rng.integers(2, 14))
        base = rng.integers(0, 3, size=(int(rng.integers(1, 4)), 2)).astype(float)
        X = base[rng.integers(0, base.shape[0], size=n)]  # few distinct rows, many duplicates
        y = rng.integers(0, 3, size=n)
        cst = _Costs(X, y, 3, *((1, 0) if seed % 2 else (2, 3)))
        for S in (np.arange(n), np.arange(1), np.flatnonzero((X == X[0]).all(1))):
            for k in (1, 2, 5):
                assert opt_enum(cst, S, k) == _naive(cst, S, k, None), (seed, k, S.size)


def test_opt_enum_on_64_rows_and_its_limits(monkeypatch):
    rng = np.random.default_rng(5)
    X, y = rng.integers(0, 4, size=(70, 3)).astype(float), rng.integers(0, 3, size=70)
    cst = _Costs(X, y, 3, 2, 3)
    S = np.arange(64)  # the last row is bit 63
    for k in (0, 1, 2):
        assert opt_enum(cst, S, k) == opt_small(cst, S, k)
    assert opt_enum(cst, np.arange(65), 1) is None  # more rows than bits
    assert opt_enum(cst, S[:9], 10 ** 9) == opt_enum(cst, S[:9], 9)  # depth past |S|: no endless loop
    monkeypatch.setattr(CHECK, "ENUM_CAP", 50)
    assert opt_enum(cst, S, 2) is None  # past the cap: the checker does not enumerate


def _enum_cert(tmp: Path):
    rng = np.random.default_rng(7)
    X = rng.integers(0, 5, size=(90, 3)).astype(float)
    y = ((X[:, 0] > 1) ^ (X[:, 1] > 2) ^ (rng.random(90) < 0.1)).astype(int)
    data = prepare(X, y)
    d = _cert(data, 4, tmp)
    claims = _claims(d)
    return d, data, claims, [i for i, c in enumerate(claims) if c["rule"] == "enum"]


def test_enum_claims_are_produced_accepted_and_their_mutations_rejected(tmp_path, monkeypatch):
    monkeypatch.setattr(lower, "BOX_WORK", 0)  # (these sets fit the box rule: the root would be one box claim)
    d, data, claims, enums = _enum_cert(tmp_path)
    assert enums and claims[-1]["rule"] == "split" and "optimal" in check(d)
    edit = lambda i, **kw: [dict(c, **kw) if k == i else c for k, c in enumerate(claims)]  # noqa: E731
    for i in enums:
        c = claims[i]
        assert _rejected(d, tmp_path, edit(i, bound=c["bound"] + 1)), "raise an enum bound"
        assert _rejected(d, tmp_path, edit(i, depth=c["depth"] - 1)), "lower its depth below the split's need"
        if c["depth"] > 2:
            assert _rejected(d, tmp_path, edit(i, rule="depth2")), "depth2 above depth 2"
        assert _rejected(d, tmp_path, edit(i, path=[])), "on every row (> 64)"
    root = claims[-1]  # the root as one enumeration over all 90 rows: refused (more than 64 rows)
    assert _rejected(d, tmp_path, claims[:-1] + [{k: v for k, v in root.items() if k != "tests"} | {"rule": "enum"}])
    monkeypatch.setattr(CHECK, "ENUM_CAP", 10)  # a checker with a smaller cap refuses to enumerate
    with pytest.raises(Invalid, match="enum"):
        check(d)


@pytest.mark.parametrize("seed", range(3))
def test_core_optima_equal_the_checkers_depth2_optima(seed):
    """The producer's depth-<=2 bounds by the compiled DP (lower.CoreOptima) equal the checker's
    opt_small (and a plain recursion) on the row sets paths reach, for errors and regularized
    costs, with duplicate rows and a categorical column; a set that splits copies of a row, and
    weighted data, get None (the producer then runs opt_small)."""
    import pandas as pd

    rng = np.random.default_rng(40 + seed)
    n = 60 + 20 * seed
    X = rng.integers(0, 5, size=(n, 3)).astype(float)
    X[:, 2] += (rng.random(n) < 0.3) * 0.5  # (few values: many copies of rows)
    cat = rng.choice(["a", "b", "c"], size=n)
    y = ((X[:, 0] > 1) + (cat == "b") + (rng.random(n) < 0.2)) % 3
    data = prepare(pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "c": cat}), y)
    Xe, _ = trusted.expand(np.asarray(data.X, float), {3: np.asarray([str(c) for c in data.schema.categories[3]],
                                                                     dtype=object)[data.X[:, 3].astype(int)].tolist()})
    compared = 0
    for q, lc in ((1, 0), (7, 3)):
        core, cst = lower.CoreOptima(data, q, lc), _Costs(Xe, np.asarray(data.y), 3, q, lc)
        assert core.ok
        for _ in range(12):
            S = _random_path_rows(rng, Xe)
            for k in (1, 2):
                b = core.opt(S, k)
                assert b == opt_small(cst, S, k) == (_naive(cst, S, k, None) if S.size <= 40 else b), (seed, q, lc, k)
                compared += 1
            assert core.opt(S, 3) == CHECK.opt_depth3(cst, S, 3), (seed, q, lc)  # (the producer's depth3 bounds)
        dup = np.flatnonzero(core.copies[core.row_of] > 1)  # a row with copies: the set without one copy
        assert dup.size and core.opt(np.delete(np.arange(n), dup[0]), 2) is None
    assert compared == 48
    weighted = dataclasses.replace(prepare(X, y), weight=np.full(n, 2, dtype=np.int64))
    assert lower.CoreOptima(weighted, 1, 0).opt(np.arange(n), 2) is None


def _random_path_rows(rng, Xe: np.ndarray) -> np.ndarray:
    """The rows of a random path of 0-2 tests on the expanded data ``Xe``."""
    S = np.arange(Xe.shape[0])
    for _ in range(int(rng.integers(0, 3))):
        f = int(rng.integers(0, Xe.shape[1]))
        go = Xe[S, f] <= rng.choice(Xe[S, f])
        S = S[go] if rng.random() < 0.5 or go.all() else S[~go]
    return S


def _reused(core, search) -> bool:
    """Whether CoreOptima took the solve's ``search`` (at its first set asked)."""
    core.opt(np.arange(core.row_of.size), 1)
    return core.search is search


@pytest.mark.parametrize("seed", range(4))
def test_core_optima_from_the_solves_memo_equal_the_checkers_optima(seed):
    """CoreOptima reading the DP solve's memo (SolveResult.work(): its problem and search, kept inside
    keeping_work) answers as the checker's opt_small / opt_depth3 on path sets and random sets, errors and other
    costs, duplicate rows and a categorical column; it takes the solve's search only when it asks the same
    question: not a quantile binarization's, not tests fit on other data, not other costs (and then its own search
    answers alike). A regularized solve keeps nothing (its integer costs are never the certificate's)."""
    rng = np.random.default_rng(70 + seed)
    n = 50 + 15 * seed
    X = rng.integers(0, 4 + seed, size=(n, 3)).astype(float)
    X[:, 1] += (rng.random(n) < 0.4) * 0.5
    x3 = rng.permutation(4 + seed)[X[:, 0].astype(int)].astype(float)  # (x0's values in another order)
    cat = rng.choice(["a", "b", "c"], size=n)
    y = ((X[:, 0] > 1) + (cat == "b") + (rng.random(n) < 0.25)) % 3
    frame = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2], "x3": x3, "c": cat})
    data = prepare(frame, y)
    Xe, _ = trusted.expand(np.asarray(data.X, float), {4: np.asarray([str(c) for c in data.schema.categories[4]],
                                                                     dtype=object)[data.X[:, 4].astype(int)].tolist()})
    # tests fit on other data: x0 cut at 0.5 only, x3 keeps the rows apart (the same distinct rows, fewer splits)
    other = prepare(frame.assign(x0=np.minimum(X[:, 0], 1)), y)
    lam = Fraction(1, 40)
    solves = [  # (problem, how solved, costs asked, reused?)
        (Binarizer("all").problem(data), "acc", (1, 0), True),
        (Binarizer("all").problem(data), "reg", None, False),  # not kept
        (Binarizer("all").problem(data), "acc", (7, 3), False),  # other costs
        (Binarizer("all").problem(data), "acc", (lam.denominator, lam.numerator * n), False),  # a certificate's
        (Binarizer("quantile", n_thresholds=1).problem(data), "acc", (1, 0), False),  # fewer tests
        (Binarizer("all").fit(other).problem(data, fit=False), "acc", (1, 0), False),  # another data's tests
    ]
    assert np.array_equal(solves[-1][0].row_of, solves[0][0].row_of)  # (the splits tell them apart)
    compared = 0
    for problem, how, costs, reused in solves:
        with keeping_work():
            res = (solve_max_accuracy_dp(problem, max_depth=3) if how == "acc" else
                   solve_regularized_dp(problem, lam=float(lam), max_depth=3))
        if how == "reg":
            assert str(res.status) == "OPTIMAL" and res.work() is None
            continue
        assert res.work() is not None and solve_max_accuracy_dp(problem, max_depth=3).work() is None  # (outside)
        q, lc = costs
        core, cst = lower.CoreOptima(data, q, lc, res.work()), _Costs(Xe, np.asarray(data.y), 3, q, lc)
        assert _reused(core, res.work()[1]) == reused, (how, q, lc, res.work()[1].q, res.work()[1].lc)
        for trial in range(14):
            S = _random_path_rows(rng, Xe)
            if trial % 3 == 2:  # any set of rows (None when it splits copies of a row)
                S = np.sort(rng.choice(n, size=int(rng.integers(2, n)), replace=False))
            for k in (1, 2, 3):
                b = core.opt(S, k)
                assert b is None or b == (opt_small(cst, S, k) if k < 3 else CHECK.opt_depth3(cst, S, 3)), \
                    (seed, how, q, lc, k)
                compared += b is not None
    assert compared >= 150


def test_certificate_from_the_solves_memo_is_the_same(tmp_path):
    """certify_result with the solve's kept search writes the same claims as without it, accepted; a copy or a
    pickle of the result keeps no search, nor a fitted estimator's result."""
    import copy
    import pickle

    from satdt.estimators import DPTreeClassifier

    data = load_dataset("zoo")
    for depth in (2, 3):
        with keeping_work():
            res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=depth)
        assert res.work() is not None
        assert pickle.loads(pickle.dumps(res)).work() is None and copy.deepcopy(res).work() is None
        claims = []
        for solved in (res.work(), None):
            d = tmp_path / f"cert{depth}{solved is None}"
            write_certificate(d, res.tree, data, "accuracy", max_depth=depth, solved=solved)
            check(d)
            claims.append(gzip.open(d / "claims.jsonl.gz", "rt").read())
        assert claims[0] == claims[1], depth
    model = DPTreeClassifier(max_depth=2).fit(np.asarray(data.X, float), data.y)
    assert str(model.result_.status) == "OPTIMAL" and model.result_.work() is None


def test_core_optima_without_copies_equal_the_checkers_depth2_optima():
    """CoreOptima on data where no two rows are alike (its short way: a set's distinct rows are its
    rows, sorted; no check of the copies) against the checker's opt_small, on row sets paths reach
    and on random ones (unsorted); with copies in the data it takes the long way."""
    rng = np.random.default_rng(47)
    n = 90
    X = rng.random((n, 3)).round(2)
    X[:, 2] = np.arange(n) % 4  # (one column of few values: many ties, no two rows alike)
    y = ((X[:, 0] > 0.5) + (X[:, 2] == 1) + (rng.random(n) < 0.2)) % 3
    data = prepare(X, y)
    assert np.unique(X, axis=0).shape[0] == n
    compared = 0
    for q, lc in ((1, 0), (5, 2)):
        core, cst = lower.CoreOptima(data, q, lc), _Costs(np.asarray(data.X, float), np.asarray(data.y), 3, q, lc)
        assert core.ok and core.single
        for trial in range(10):
            S = np.arange(n)
            for _ in range(int(rng.integers(0, 3))):  # the rows of a random path
                f = int(rng.integers(0, 3))
                go = X[S, f] <= rng.choice(X[S, f])
                S = S[go] if rng.random() < 0.5 or go.all() else S[~go]
            if trial % 2:  # any set of rows, in any order
                S = rng.permutation(rng.choice(n, size=int(rng.integers(2, n)), replace=False))
            for k in (1, 2):
                assert core.opt(S, k) == opt_small(cst, np.sort(S), k), (q, lc, k, S.tolist())
                compared += 1
    assert compared == 40
    assert not lower.CoreOptima(prepare(np.vstack([X, X[:1]]), np.append(y, y[0])), 1, 0).single


def _duplicated(seed: int, conflicts: bool):
    """Rows with copies (few values); with ``conflicts`` some copies of a row have another class."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(30, 2)).astype(float)
    _, g = np.unique(X, axis=0, return_inverse=True)
    y = (rng.integers(0, 3, size=g.max() + 1)[g.reshape(-1)] if not conflicts else rng.integers(0, 3, size=30))
    return X, y.astype(int)


def test_leaf_rule_equals_its_definition_with_and_without_conflicts():
    """``leaf_rule`` (its shortcut on data whose identical rows share their class, ``pure``) against
    ``min(leaf, q conflicts + 2 lc)`` counted per distinct row, on random row sets."""
    rng = np.random.default_rng(4)
    seen = set()
    for seed in range(40):
        X, y = _duplicated(seed, conflicts=seed % 2 == 1)
        q, lc = (1, 0) if seed % 3 else (3, 2)
        cst = _Costs(X, y, 3, q, lc)
        groups = [tuple(r) for r in X]
        pure = all(len({int(y[i]) for i in range(30) if groups[i] == g}) == 1 for g in set(groups))
        assert cst.pure == pure
        seen.add(pure)
        for _ in range(5):
            S = np.sort(rng.choice(30, size=int(rng.integers(1, 31)), replace=False))
            leaf = q * (S.size - np.bincount(y[S]).max()) + lc
            conflicts = sum(len(m) - max(m.count(c) for c in set(m)) for m in
                            ([int(y[i]) for i in S if groups[i] == g] for g in {groups[i] for i in S}))
            assert cst.leaf_rule(S, 0) == leaf
            for k in (1, 2):
                assert cst.leaf_rule(S, k) == min(leaf, q * conflicts + 2 * lc), (seed, S.tolist())
    assert seen == {True, False}


def test_producers_leaf_rule_by_row_weights_equals_the_checkers_on_path_sets():
    """The producer's leaf rule (each row 1 when its class is not its identical rows' most common one, counted over a
    set) equals the checker's ``leaf_rule`` on the sets paths of random tests reach (they hold every copy of a row),
    with and without conflicting copies, errors and regularized costs; on a set that splits identical rows it need
    not (which is why only path sets are asked)."""
    rng, compared, differ = np.random.default_rng(9), 0, 0
    for seed in range(40):
        X, y = _duplicated(seed, conflicts=seed % 4 != 0)
        q, lc = (1, 0) if seed % 3 else (3, 2)
        prover = lower.Prover(X, y, 3, q, lc)
        for _ in range(8):
            S = np.arange(X.shape[0])
            for _ in range(int(rng.integers(0, 3))):
                f, t = int(rng.integers(0, 2)), rng.choice([0.5, 1.5])
                S = S[X[S, f] <= t] if rng.random() < 0.5 else S[X[S, f] > t]
            for k in (0, 1, 2):
                assert prover.leaf_rule(S, k, prover.cst.leaf(S)) == prover.cst.leaf_rule(S, k), (seed, S.tolist())
                compared += 1
        S = np.flatnonzero(rng.random(X.shape[0]) < 0.5)  # (not a path's set)
        differ += prover.leaf_rule(S, 1, prover.cst.leaf(S)) != prover.cst.leaf_rule(S, 1)
    assert compared == 960 and differ > 0


def test_leaf_claims_at_the_rules_value_are_accepted_and_above_it_rejected(tmp_path):
    """Certificates on data with and without conflicting copies: each claim at depth >= 1 rewritten
    as a leaf claim with bound ``min(leaf, conflicts)`` + 1 (counted by its definition) is rejected,
    and with its own bound when that is at most this value, accepted (the leaf rule's shortcut on
    conflict-free data included)."""
    rejected, accepted = {True: 0, False: 0}, {True: 0, False: 0}
    for seed in range(24):
        conf = seed % 2 == 1
        X, y = _duplicated(seed, conflicts=conf)
        d = _cert(prepare(X, y), 2 + seed // 2 % 2, tmp_path)
        assert "optimal" in check(d)
        claims, groups = _claims(d), [tuple(r) for r in X]
        for i in [i for i, c in enumerate(claims) if c["depth"] >= 1][:6]:
            S = np.arange(X.shape[0])
            for f, t, side in claims[i]["path"]:
                S = S[X[S, f] <= t] if side == "L" else S[X[S, f] > t]
            conflicts = sum(len(m) - max(m.count(c) for c in set(m)) for m in
                            ([int(y[r]) for r in S if groups[r] == g] for g in {groups[r] for r in S}))
            v = min(S.size - int(np.bincount(y[S]).max()), conflicts)
            bad = [dict(c, rule="leaf", bound=v + 1) if j == i else c for j, c in enumerate(claims)]
            assert _rejected(d, tmp_path, [{k: x for k, x in c.items() if k not in ("tests", "from")}
                                           if j == i else c for j, c in enumerate(bad)])
            rejected[conf] += 1
            if claims[i]["bound"] <= v:
                good = [{"id": i, "path": c["path"], "depth": c["depth"], "bound": c["bound"], "rule": "leaf"}
                        if j == i else c for j, c in enumerate(claims)]
                assert not _rejected(d, tmp_path, good)
                accepted[conf] += 1
    assert min(rejected.values()) >= 10 and min(accepted.values()) >= 3, (rejected, accepted)


def test_batched_depth2_optima_equal_plain_recursion():
    """The depth2 claims on data of at most 64 tests are checked in batches: the sets' counts on all the data's
    tests at once (``_many``: each (set, class)'s rows padded to the batch's largest, one stacked product), then one
    vectorized ``_best``; equal to plain recursion on random sets of every size (the empty set and every row too),
    depth 1 and 2 mixed, errors and regularized costs, listed thresholds, 2-4 classes."""
    for seed in range(40):
        cst, _, allowed = _instance(seed)
        G = CHECK._left(*CHECK._blocks(cst, np.arange(cst.n), allowed))
        rng = np.random.default_rng(seed)
        sets = [np.flatnonzero(rng.random(cst.n) < rng.random()) for _ in range(8)] + [np.arange(cst.n), np.arange(0)]
        ks = rng.integers(1, 3, size=len(sets))
        got = CHECK._best(cst, *CHECK._many(cst, G, [(None, S, k, None) for S, k in zip(sets, ks)]))
        assert got.tolist() == [_naive(cst, S, int(k), allowed) for S, k in zip(sets, ks)]


@pytest.mark.parametrize("lam", [None, 0.02])
def test_batched_depth2_claims_are_accepted_and_each_raised_bound_rejected(lam, tmp_path, monkeypatch):
    """A certificate on 4 features of 4 values (12 tests: its ~190-200 depth2 claims all go to the batches, of 64 here;
    opt_small is never called) is accepted; a depth2 bound raised by 1 is rejected, naming that claim, in the first,
    a middle and the last batch."""
    monkeypatch.setattr(lower, "BOX_WORK", 0)  # (4 features of 4 values: the root would be one box claim)
    monkeypatch.setattr(lower, "TRIPLES", 0)  # (and its depth-3 sets depth3 claims)
    rng = np.random.default_rng(7)
    X = rng.integers(0, 4, size=(150, 4)).astype(float)
    data = prepare(X, ((X[:, 0] > 1) ^ (X[:, 1] > 2) ^ (rng.random(150) < 0.25)).astype(int) + (X[:, 2] > 2))
    problem = Binarizer("all").problem(data)
    res = solve_max_accuracy_dp(problem, max_depth=4) if lam is None else solve_regularized_dp(problem, lam=lam, max_depth=4)
    d = tmp_path / "cert"
    certify_result(res, data, d, max_depth=4)
    monkeypatch.setattr(CHECK, "CLAIMS", 30_000)  # (sets x classes x their most rows x 12 tests a batch)
    monkeypatch.setattr(CHECK, "opt_small", lambda *a, **k: pytest.fail("a depth2 claim outside the batches"))
    batches, many = [], CHECK._many
    monkeypatch.setattr(CHECK, "_many", lambda cst, G, part: batches.append(len(part)) or many(cst, G, part))
    assert "optimal" in check(d)
    assert len(batches) > 4 and len(batches) < sum(batches)
    claims = _claims(d)
    depth2 = [i for i, c in enumerate(claims) if c["rule"] == "depth2"]
    assert len(depth2) > 2 * 64
    for i in depth2[:2] + depth2[100:102] + depth2[-2:]:
        c = claims[i]
        bad = [dict(c, bound=c["bound"] + 1) if j == i else e for j, e in enumerate(claims)]
        with pytest.raises(Invalid, match=rf"^claim {i} \(depth {c['depth']}, bound {c['bound'] + 1}, depth2\)"):
            _check_mutant(d, tmp_path, bad)


def _check_mutant(d: Path, tmp: Path, claims: list[dict]) -> None:
    """Check the certificate ``d`` with its claims replaced by ``claims`` (raises Invalid)."""
    bad = tmp / "bad"
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(d, bad)
    with gzip.open(bad / "claims.jsonl.gz", "wt") as fh:
        fh.write("".join(json.dumps(c) + "\n" for c in claims))
    check(bad)


def _pairs_instance(seed: int):
    """Small random data for the block pairs: ties, duplicate rows of several classes, 1-4 features, 2-5 classes, errors
    or regularized costs, listed thresholds on some features, and a set: every row, a subset or one row."""
    rng = np.random.default_rng(5000 + seed)
    n, p, C = int(rng.integers(1, 40)), int(rng.integers(1, 5)), int(rng.integers(2, 6))
    X = rng.integers(0, int(rng.integers(1, 12)), size=(n, p)).astype(float)
    X = np.vstack([X, X[: n // 4]])  # copies, their classes drawn anew (conflicts)
    y = rng.integers(0, C, size=X.shape[0]) if seed % 3 else np.minimum(X[:, 0] // 3, C - 1).astype(int)
    q, lc = (1, 0) if seed % 2 else (int(rng.integers(1, 4)), int(rng.integers(0, 2 * n)))
    allowed = {f: np.unique(rng.integers(0, 12, size=3) + 0.5) for f in range(p) if rng.random() < 0.7} \
        if seed % 4 == 3 else None
    S = [np.arange(X.shape[0]), np.flatnonzero(rng.random(X.shape[0]) < 0.5), np.array([int(rng.integers(X.shape[0]))])]
    return _Costs(X, y, C, q, lc), S[seed % 5 % 3], allowed


def test_depth2_by_block_pairs_equals_plain_recursion(monkeypatch):
    """``_pairs`` (the class counts of every pair of blocks of two features, then 2-D running sums restarted per
    feature) forced on every set: ``_best`` on its counts, and opt_small with a target, equal plain recursion over every
    test on 300 random instances."""
    monkeypatch.setattr(CHECK, "PAIR_ROWS", 10 ** 9)  # (else only sets of many rows a block pair)
    used = 0
    for seed in range(300):
        cst, S, allowed = _pairs_instance(seed)
        ref = _naive(cst, S, 2, allowed)
        counts = CHECK._pairs(cst, S, allowed)
        used += counts is not None
        assert counts is None or min(cst.leaf(S), int(CHECK._best(cst, *counts, 2)[0])) == ref, seed
        for t in (ref - 1, ref, ref + 1):
            assert opt_small(cst, S, 2, allowed, t) == min(t, ref), (seed, t)
    assert used == 300


def test_block_pairs_only_where_they_pay_and_fit(monkeypatch):
    """None (the other routes) on a set of few rows for the data's blocks, on data of more blocks than PAIRS allows,
    and on a set of more distinct (row, class) pairs than PAIRS allows; the cache follows the listed thresholds."""
    X = np.column_stack([np.arange(100) % 5, np.arange(100) % 5]).astype(float)  # 2 x (6 + 6)^2 <= 8 x 3 pairs x rows
    cst = _Costs(X, np.arange(100) % 2, 2, 1, 0)
    assert CHECK._pairs(cst, np.arange(100), None) is not None and CHECK._pairs(cst, np.arange(10), None) is None
    assert CHECK._pairs(cst, np.arange(100), {0: np.array([1.5])})[3].shape[-1] == 3  # blocks: 2 of x0, 1 of x1
    big = np.arange(800, dtype=float).reshape(400, 2)  # 2 x 802^2 > PAIRS
    assert CHECK._pairs(_Costs(big, np.arange(400) % 2, 2, 1, 0), np.arange(400), None) is None
    X = np.array([[a, b, c] for a in range(4) for b in range(4) for c in range(4)] * 2, dtype=float)
    monkeypatch.setattr(CHECK, "PAIRS", 500)  # 2 x 15^2 = 450 blocks^2; 128 (row, class) pairs x 6 pairs = 768
    cst = _Costs(X, np.arange(128) // 64, 2, 1, 0)
    assert CHECK._pairs(cst, np.arange(128), None) is None and CHECK._pairs(cst, np.arange(64), None) is not None


def test_depth2_claims_by_block_pairs_are_accepted_and_raised_bounds_rejected(tmp_path, monkeypatch):
    """A depth-3 certificate on 1,200 rows, 3 integer features of 25-30 values (more than 64 tests: no batches): its
    depth2 claims (bounds by the compiled DP) go to the block pairs, the certificate is accepted, and a depth2 bound
    raised by 1 is rejected, naming that claim."""
    rng = np.random.default_rng(11)
    X = np.column_stack([rng.integers(0, 30, 1200), rng.integers(0, 25, 1200), rng.integers(0, 28, 1200)]).astype(float)
    data = prepare(X, ((X[:, 0] > 12) ^ (X[:, 1] > 9) ^ (rng.random(1200) < 0.2) ^ (X[:, 2] > 20)).astype(int))
    res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=3)
    d = tmp_path / "cert"
    certify_result(res, data, d, max_depth=3)
    calls, pairs = [], CHECK._pairs
    monkeypatch.setattr(CHECK, "_pairs", lambda *a: calls.append(out := pairs(*a)) or out)
    assert "optimal" in check(d)
    claims = _claims(d)
    depth2 = [i for i, c in enumerate(claims) if c["rule"] == "depth2" and c["depth"] == 2]
    assert len(depth2) >= 10 and sum(c is not None for c in calls) >= len(depth2) // 2, (len(depth2), calls.count(None))
    for i in depth2[:3] + depth2[-3:]:
        c = claims[i]
        bad = [dict(c, bound=c["bound"] + 1) if j == i else e for j, e in enumerate(claims)]
        with pytest.raises(Invalid, match=rf"^claim {i} \(depth 2, bound {c['bound'] + 1}, depth2\)"):
            _check_mutant(d, tmp_path, bad)


# ---------------------------------------------------------------- the box rule (a DP over the boxes of the rows)
def _box_instance(seed: int):
    """Integer features of few values (ties), 2-4 classes, errors or q / lc costs (DT_size's q = m + 2, lc = 1 too),
    listed thresholds on one instance in four, a subset of the rows on one in five."""
    rng = np.random.default_rng(seed)
    n, p, C = int(rng.integers(1, 24)), int(rng.integers(1, 4)), int(rng.integers(2, 5))
    X = rng.integers(0, int(rng.integers(1, 6)), size=(n, p)).astype(float)
    y = rng.integers(0, C, size=n)
    q, lc = [(1, 0), (int(rng.integers(2, 6)), 1), (int(rng.integers(1, 4)), int(rng.integers(0, 2 * n)))][seed % 3]
    allowed = None
    if seed % 4 == 3:
        allowed = {f: np.unique(rng.integers(0, 5, size=2) + 0.5) for f in range(p) if rng.random() < 0.8}
    S = np.arange(n) if seed % 5 else np.sort(rng.choice(n, size=max(1, n // 2), replace=False))
    return _Costs(X, y, C, q, lc), S, allowed


def test_opt_box_equals_the_enumeration_and_plain_recursion():
    for seed in range(150):
        cst, S, allowed = _box_instance(seed)
        for k in range(6):
            got = opt_box(cst, S, k, allowed)
            assert got == opt_enum(cst, S, k, allowed), (seed, k)
            if k <= 3 and S.size <= 12:
                assert got == _naive(cst, S, k, allowed), (seed, k)


@pytest.mark.parametrize("seed", range(10))
def test_opt_box_equals_the_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, p, C = 30 + seed, 2 + seed % 3, 2 + seed % 3
    X, y = rng.integers(0, 3 + seed % 3, size=(n, p)).astype(float), rng.integers(0, C, size=n)
    y[:C] = np.arange(C)
    data = prepare(X, y)
    problem = Binarizer("all").problem(data)
    q, lc = [(1, 0), (5, 1), (3, 7)][seed % 3]  # errors, DT_size's (m + 2) errors + leaves, regularized-like
    cst = _Costs(data.X, data.y, C, q, lc)
    for k in range(6 if seed < 5 else 4):
        ref, _ = bruteforce.best_tree(problem, k, lambda c: q * (c.sum() - c.max()) + lc)
        assert opt_box(cst, np.arange(n), k) == round(ref), (seed, k)


def test_opt_box_on_categorical_columns_equals_plain_recursion():
    """A categorical column is one 0/1 column per category (the checker's expand): the tests ``x == v`` are their
    gaps, and a box over these columns is what a path of such tests (and numeric ones) selects."""
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n = 16
        g = rng.choice(["a", "b", "c", "d"][: 2 + seed % 3], size=n).tolist()
        X, _ = trusted.expand(rng.integers(0, 3, size=(n, 2)).astype(float), {1: g})
        y = rng.integers(0, 2 + seed % 2, size=n)
        cst = _Costs(X, y, 2 + seed % 2, *((1, 0) if seed % 2 else (4, 1)))
        for k in range(4):
            assert opt_box(cst, np.arange(n), k) == _naive(cst, np.arange(n), k, None), (seed, k)


def test_opt_box_limits(monkeypatch):
    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 4, size=(200, 3)).astype(float), rng.integers(0, 3, size=200)
    cst = _Costs(X, y, 3, 2, 3)
    S = np.arange(200)  # (no row limit: 200 rows, 10^3 boxes)
    assert opt_box(cst, S, 0) == cst.leaf(S) and opt_box(cst, S[:0], 3) == cst.lc
    assert opt_box(cst, S, 10 ** 9) == opt_box(cst, S, 9)  # depth past the tests: no endless loop
    assert opt_box(cst, S, 3, cap=1000) is None  # 1,000 boxes x (3 + 3 x 9): past that cap
    monkeypatch.setattr(CHECK, "BOX_CAP", 1000)
    assert opt_box(cst, S, 3) is None  # the checker's own cap
    monkeypatch.undo()
    # one column of many values: few boxes x tests, but cut tables of ~u^3 / 2 entries each (400 values: ~0.8 GB and
    # seconds when only the boxes counted); 100 values: within the cap, the plain recursion's optimum at depth 1
    one = _Costs(np.arange(400, dtype=float)[:, None], np.arange(400) % 2, 2, 1, 0)
    assert opt_box(one, np.arange(400), 1) is None
    assert opt_box(one, np.arange(100), 1) == 49  # (alternating classes: a cut after the first row, 0 + 49 errors)


def _box_cert(tmp: Path, seed: int = 7, d: int = 4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(90, 3)).astype(float)
    y = ((X[:, 0] > 1) ^ (X[:, 1] > 2) ^ (rng.random(90) < 0.15)).astype(int)
    data = prepare(X, y)
    res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=d)
    out = tmp / f"c{len(list(tmp.iterdir()))}"
    certify_result(res, data, out, max_depth=d)
    return out, data


def _box_mutants(claims: list[dict], X: np.ndarray):
    """(what, claims): a box claim's bound raised by one, its path's threshold moved, its side flipped."""
    for i, c in enumerate(claims):
        if c["rule"] != "box":
            continue
        edit = lambda **kw: [dict(e, **kw) if j == i else e for j, e in enumerate(claims)]  # noqa: E731
        yield "raise a box bound", edit(bound=c["bound"] + 1)
        if c["path"]:
            f, t, side = c["path"][-1]
            v = np.unique(X[:, f])
            moved = float(v[v > t][0]) if (v > t).sum() > 1 else float(v[v <= t][0]) - 0.5
            yield "alter a threshold of its path", edit(path=c["path"][:-1] + [[f, moved, side]])
            yield "flip a side of its path", edit(path=c["path"][:-1] + [[f, t, "R" if side == "L" else "L"]])


def test_box_claims_are_produced_accepted_and_their_mutations_rejected(tmp_path, monkeypatch):
    d, data = _box_cert(tmp_path)
    claims = _claims(d)
    assert [c["rule"] for c in claims] == ["box"] and "optimal" in check(d)  # the whole DAG: one claim
    assert _rejected(d, tmp_path, [dict(claims[0], bound=claims[0]["bound"] + 1)])
    assert _rejected(d, tmp_path, [dict(claims[0], depth=claims[0]["depth"] - 1)])  # not the root's depth
    monkeypatch.setattr(lower, "BOX_DEPTH", 3)  # box claims below the root too (depth 3 of a depth-4 question)
    monkeypatch.setattr(lower, "ENUM_ROWS", 0)  # (not enum claims on the small sets)
    monkeypatch.setattr(lower, "BOX_WORK", 20_000)  # (the root's 15^3 boxes x (2 + 4 x 12) refused)
    d, data = _box_cert(tmp_path, seed=8, d=4)
    claims = _claims(d)
    boxes = [c for c in claims if c["rule"] == "box"]
    assert boxes and any(c["path"] for c in boxes) and "optimal" in check(d)
    count = 0
    for what, bad in _box_mutants(claims, data.X):
        assert _rejected(d, tmp_path, bad), what
        count += 1
    assert count >= 3 * len([c for c in boxes if c["path"]])
    monkeypatch.setattr(CHECK, "BOX_CAP", 10)  # a checker with a smaller cap refuses the box claims
    with pytest.raises(Invalid, match="box"):
        check(d)


def test_box_claims_with_listed_thresholds(tmp_path):
    """Listed thresholds: the boxes are intervals of the listed thresholds' blocks. The root's box claim is the optimum
    over the listed tests (above the one over every gap here); the manifest's lists altered to every gap: rejected."""
    rng = np.random.default_rng(9)
    X = rng.integers(0, 6, size=(120, 3)).astype(float)
    data = prepare(X, ((X[:, 0] > 1) ^ (X[:, 1] > 2) ^ (rng.random(120) < 0.15)).astype(int))
    problem = Binarizer("quantile", n_thresholds=2).problem(data)
    listed: dict[int, list[float]] = {}
    for t in problem.tests:
        listed.setdefault(t.feature, []).append(t.threshold)
    res = solve_max_accuracy_dp(problem, max_depth=4)
    write_certificate(tmp_path / "q", res.tree, data, "accuracy", max_depth=4, thresholds=listed)
    claims = _claims(tmp_path / "q")
    assert [c["rule"] for c in claims] == ["box"] and "optimal" in check(tmp_path / "q")
    cst, S = _Costs(data.X, data.y, 2, 1, 0), np.arange(120)
    allowed = {f: np.unique(np.asarray(ts, float)) for f, ts in listed.items()}
    assert opt_box(cst, S, 4, None) < claims[0]["bound"] == opt_box(cst, S, 4, allowed)
    man = json.loads((tmp_path / "q" / "manifest.json").read_text())
    every = {str(f): ((np.unique(X[:, f])[1:] + np.unique(X[:, f])[:-1]) / 2).tolist() for f in range(3)}
    for f, ts in listed.items():  # (the tree's thresholds stay listed)
        every[str(f)] = sorted(set(every[str(f)]) | set(ts))
    (tmp_path / "q" / "manifest.json").write_text(json.dumps(dict(man, thresholds=every)))
    with pytest.raises(Invalid, match="box"):
        check(tmp_path / "q")


# ---------------------------------------------------------------- DT_size / DT_depth: one box claim
@pytest.mark.parametrize("name", ["car", "balance-scale"])
def test_consistent_certificates_on_car_and_balance_scale_are_one_claim(name, tmp_path, capsys):
    """``satdt solve --method sat-size --engine dp --proof DIR`` then ``satdt check DIR`` (the user's route)."""
    data = load_dataset(name)
    res = solve_min_size_dp(Binarizer("all").problem(data))
    out = tmp_path / "size"
    info = certify_result(res, data, out)
    assert info["claims"] == 1 and _claims(out)[0]["rule"] == "box" and check(out).startswith("size")
    res = solve_min_depth_dp(Binarizer("all").problem(data))
    info = certify_result(res, data, tmp_path / "depth")  # (DT_depth's witness: <= 64 rows, one enum claim)
    assert info["claims"] == 1 and _claims(tmp_path / "depth")[0]["rule"] == "enum"
    assert check(tmp_path / "depth").startswith("depth")
    assert main(["solve", name, "--method", "sat-size", "--engine", "dp", "--proof", str(tmp_path / "cli")]) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "cli")]) == 0 and "valid" in capsys.readouterr().out
    assert [c["rule"] for c in _claims(tmp_path / "cli")] == ["box"]


@pytest.mark.parametrize("seed", range(6))
def test_consistent_certificates_on_random_sets_with_box_claims(seed, tmp_path, monkeypatch):
    monkeypatch.setattr(lower, "ENUM_ROWS", 0)  # (witness rows of <= 64 rows: else one enum claim)
    rng = np.random.default_rng(seed)
    n = 40 + 10 * seed
    X = rng.integers(0, 4, size=(n, 3 + seed % 2)).astype(float)
    X = np.unique(X, axis=0)  # distinct rows: a consistent tree exists
    y = rng.integers(0, 2 + seed % 2, size=X.shape[0])
    cat = seed % 3 == 2
    data = prepare(pd.DataFrame({f"x{j}": (X[:, j].astype(int).astype(str) if cat and j == 0 else X[:, j])
                                 for j in range(X.shape[1])}), y)
    problem, boxes = Binarizer("all").problem(data), 0
    for kind, res in (("size", solve_min_size_dp(problem)), ("depth", solve_min_depth_dp(problem))):
        out = tmp_path / f"{kind}{seed}"
        certify_result(res, data, out)
        claims = _claims(out)
        assert check(out).startswith(kind)
        boxes += claims[-1]["rule"] == "box"
        assert _rejected(out, tmp_path, claims[:-1] + [dict(claims[-1], bound=claims[-1]["bound"] + 1)])
    assert boxes >= 1


# ---------------------------------------------------------------- the depth3 rule (data of at most 40 tests)
def _tests_of(cst: _Costs, allowed=None) -> np.ndarray:
    """The data's tests as the checker takes them for its batched rules: each row left of each test (0/1)."""
    return CHECK._left(*CHECK._blocks(cst, np.arange(cst.n), allowed))


def test_depth3_optima_equal_plain_recursion():
    """``_triples`` (each root test's two sides' depth-<=2 optima from the class counts left of three tests) equals the
    plain recursion at depth 3 on random instances: integer features with ties, duplicate rows of several classes,
    2-5 classes, errors / DT_size's ``(m + 2) errors + leaves`` / ``q``, ``lc`` costs, listed thresholds, the empty
    set, one row, every row and subsets; and on categorical columns (the checker's 0/1 columns)."""
    compared = 0
    for seed in range(120):
        make = (_instance, _box_instance, _pairs_instance)[seed % 3]
        cst, S, allowed = make(seed)
        G = _tests_of(cst, allowed)
        if not 0 < G.shape[1] <= CHECK.TESTS3:
            continue
        rng = np.random.default_rng(seed)
        for T in (S, np.arange(0), np.arange(cst.n)[:1], np.flatnonzero(rng.random(cst.n) < 0.6)):
            assert CHECK.opt_depth3(cst, T, 3, allowed) == _naive(cst, T, 3, allowed), (seed, T.tolist())
            compared += 1
    assert compared >= 300
    for seed in range(10):
        rng = np.random.default_rng(seed)
        g = rng.choice(["a", "b", "c"][: 2 + seed % 2], size=14).tolist()
        X, _ = trusted.expand(rng.integers(0, 3, size=(14, 2)).astype(float), {1: g})
        cst = _Costs(X, rng.integers(0, 3, size=14), 3, *((1, 0) if seed % 2 else (4, 1)))
        assert CHECK.opt_depth3(cst, np.arange(14), 3) == _naive(cst, np.arange(14), 3, None), seed


def _depth3_cert(tmp: Path, lam=None, d: int = 4, seed: int = 5):
    """A certificate on 160 rows of 5 binary and 2 four-valued features (11 tests, 3 classes): no box claim (its root's
    boxes past BOX_WORK here), depth3 claims on the depth-3 sets."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 2, size=(160, 5)), rng.integers(0, 4, size=(160, 2))]).astype(float)
    y = ((X[:, 0] > 0) ^ (X[:, 5] > 1) ^ (rng.random(160) < 0.2)).astype(int) + (X[:, 6] > 2)
    data = prepare(X, y)
    problem = Binarizer("all").problem(data)
    res = solve_max_accuracy_dp(problem, max_depth=d) if lam is None else \
        solve_regularized_dp(problem, lam=lam, max_depth=d)
    out = tmp / f"c{len(list(tmp.iterdir()))}"
    certify_result(res, data, out, max_depth=d)
    return out, data


@pytest.mark.parametrize("lam", [None, 0.02])
def test_depth3_claims_are_produced_accepted_and_their_mutations_rejected(lam, tmp_path, monkeypatch):
    """The depth3 claims of a depth-4 certificate (bounds by the compiled DP) and of a depth-3 one (the root, one claim)
    are accepted; each depth3 bound raised by one, a depth3 claim asked at depth 4, its path's side flipped, its rule
    on data of more than 40 tests or past a checker's smaller TRIPLES are rejected. With the rule off in the producer
    (TRIPLES = 0) the certificate is the DAG of depth2 claims as before, and is accepted."""
    monkeypatch.setattr(lower, "BOX_WORK", 0)
    d, data = _depth3_cert(tmp_path, lam)
    claims = _claims(d)
    deep = [i for i, c in enumerate(claims) if c["rule"] == "depth3"]
    assert "optimal" in check(d) and len(deep) >= 4 and claims[-1]["rule"] == "split"
    for i in deep:
        c = claims[i]
        with pytest.raises(Invalid, match=rf"^claim {i} \(depth 3, bound {c['bound'] + 1}, depth3\): the rule"):
            _check_mutant(d, tmp_path, [dict(e, bound=e["bound"] + 1) if j == i else e for j, e in enumerate(claims)])
        assert _rejected(d, tmp_path, [dict(e, depth=4) if j == i else e for j, e in enumerate(claims)])
        f, t, side = c["path"][-1]
        flipped = dict(c, path=c["path"][:-1] + [[f, t, "R" if side == "L" else "L"]])
        assert _rejected(d, tmp_path, [flipped if j == i else e for j, e in enumerate(claims)])
    monkeypatch.setattr(CHECK, "TRIPLES", 10)  # a checker with a smaller cap refuses the claims
    with pytest.raises(Invalid, match="depth3"):
        check(d)
    monkeypatch.setattr(CHECK, "TRIPLES", 1 << 27)
    root = dict(claims[-1], rule="depth3", depth=3)  # the depth-4 root as a depth3 claim: more than depth 3
    assert _rejected(d, tmp_path, claims[:-1] + [root])
    d3, _ = _depth3_cert(tmp_path, lam, d=3)
    assert [c["rule"] for c in _claims(d3)] == ["depth3"] and "optimal" in check(d3)
    monkeypatch.setattr(lower, "TRIPLES", 0)
    old, _ = _depth3_cert(tmp_path, lam)
    assert "depth3" not in {c["rule"] for c in _claims(old)} and "optimal" in check(old)
    assert _claims(old)[-1]["bound"] == claims[-1]["bound"]


def test_depth3_claims_refused_on_data_of_more_than_64_tests(tmp_path):
    """On data of more than 64 tests the checker has no batched tests: a depth3 claim there is refused (the producer
    writes none)."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 40, size=(120, 2)).astype(float)  # ~78 tests
    data = prepare(X, ((X[:, 0] > 19) ^ (X[:, 1] > 9) ^ (rng.random(120) < 0.2)).astype(int))
    d = _cert(data, 3, tmp_path)
    claims = _claims(d)
    assert "depth3" not in {c["rule"] for c in claims} and "optimal" in check(d)
    sides = [i for i, c in enumerate(claims) if c["depth"] == 2 and c["rule"] == "depth2"]
    assert _rejected(d, tmp_path, claims[:-1] + [dict(claims[-1], rule="depth3")])
    assert _rejected(d, tmp_path, [dict(c, rule="depth3") if j == sides[0] else c for j, c in enumerate(claims)])


def test_depth3_rule_limits(monkeypatch):
    """None past depth 3, on data of more than 40 tests (or none) and past TRIPLES; at depth k < 3 the depth-3 optimum
    (a lower bound there: fewer trees)."""
    rng = np.random.default_rng(4)
    X, y = rng.integers(0, 4, size=(60, 3)).astype(float), rng.integers(0, 3, size=60)
    cst, S = _Costs(X, y, 3, 2, 1), np.arange(60)
    assert CHECK.opt_depth3(cst, S, 4) is None and CHECK.opt_depth3(cst, S, 3) == _naive(cst, S, 3, None)
    assert CHECK.opt_depth3(cst, S, 1) == CHECK.opt_depth3(cst, S, 3) <= _naive(cst, S, 1, None)
    wide = [_Costs(np.arange(n, dtype=float)[:, None], np.arange(n) % 2, 2, 1, 0) for n in (42, 41)]  # 41, 40 tests
    assert CHECK.opt_depth3(wide[0], np.arange(42), 3) is None and CHECK.opt_depth3(wide[1], np.arange(41), 3) is not None
    assert CHECK.opt_depth3(_Costs(np.zeros((5, 1)), np.arange(5) % 2, 2, 1, 0), np.arange(5), 3) is None  # no test
    # classes x tests^3 <= 2^22 whatever the rows (review45b: a 1-row claim, 2,097 classes in the manifest, 40 tests:
    # within TRIPLES, 2.6 GB and 7.6 s): at 40 tests 65 classes pass, 66 do not (2^22 / 40^3 = 65.5)
    one = np.arange(41.)[:, None]
    assert CHECK.opt_depth3(_Costs(one, np.arange(41) % 2097, 2097, 1, 0), np.arange(1), 3) is None
    assert CHECK.opt_depth3(_Costs(one, np.arange(41) % 65, 65, 1, 0), np.arange(1), 3) == 0
    assert CHECK.opt_depth3(_Costs(one, np.arange(41) % 66, 66, 1, 0), np.arange(1), 3) is None
    monkeypatch.setattr(CHECK, "TRIPLES", 60 * 3 * 9 ** 3 - 1)  # (rows x classes x tests^3, 9 tests)
    assert CHECK.opt_depth3(cst, S, 3) is None and CHECK.opt_depth3(cst, S[:59], 3) is not None


def test_depth3_claims_with_listed_thresholds(tmp_path):
    """iris over 3 quantile thresholds a feature (12 tests) at depth 3: the certificate is one depth3 claim, the
    optimum over the listed thresholds (accepted); the manifest's lists made every gap: its optimum is lower, rejected."""
    write_iris_over_listed_thresholds(tmp_path / "q")
    assert [c["rule"] for c in _claims(tmp_path / "q")] == ["depth3"] and "listed" in check(tmp_path / "q")
    man = json.loads((tmp_path / "q" / "manifest.json").read_text())
    (tmp_path / "q" / "manifest.json").write_text(json.dumps(dict(man, thresholds="all")))
    with pytest.raises(Invalid, match="depth3"):  # (more than 64 gaps: the rule refuses, as it would past TRIPLES)
        check(tmp_path / "q")


def test_hundreds_of_depth3_mutations_are_rejected(tmp_path, monkeypatch):
    """On 40 random instances (2-3 features of 2-5 values, 2-3 classes, depth 3 and 4, errors and regularized costs;
    no enum or box claim) the certificates with depth3 claims are accepted, and each depth3 claim's bound raised by one
    is rejected, and so is its path's last threshold moved past the next value where that changes the bound."""
    monkeypatch.setattr(lower, "ENUM_ROWS", 0)
    monkeypatch.setattr(lower, "BOX_WORK", 0)
    count = 0
    for seed in range(40):
        rng = np.random.default_rng(300 + seed)
        n, p = int(rng.integers(40, 90)), int(rng.integers(2, 4))
        X = rng.integers(0, int(rng.integers(2, 6)), size=(n, p)).astype(float)
        y = (X[:, 0] + (rng.random(n) < 0.3) * rng.integers(0, 3, size=n)) % (2 + seed % 2)
        data = prepare(X, y.astype(int))
        problem, d = Binarizer("all").problem(data), 3 + seed % 2
        res = solve_max_accuracy_dp(problem, max_depth=d) if seed % 3 else solve_regularized_dp(problem, lam=0.02, max_depth=d)
        cert = tmp_path / f"c{seed}"
        certify_result(res, data, cert, max_depth=d)
        assert "optimal" in check(cert)
        claims = _claims(cert)
        for i in [i for i, c in enumerate(claims) if c["rule"] == "depth3"]:
            c, edit = claims[i], lambda new: [new if j == i else e for j, e in enumerate(claims)]  # noqa: B023
            assert _rejected(cert, tmp_path, edit(dict(c, bound=c["bound"] + 1)))
            count += 1
            if c["path"]:
                f, t, side = c["path"][-1]
                v = np.unique(X[:, f])
                if (v > t).sum() > 1:
                    moved = dict(c, path=c["path"][:-1] + [[f, float(v[v > t][0]) + 0.5, side]])
                    if _rejected(cert, tmp_path, edit(moved)):  # (a moved path may reach an equal-bound set)
                        count += 1
    assert count >= 100, count


# ---------------------------------------------------------------- the data's tests cached; the similar rule's bound (h46c)
def test_the_data_tests_are_cached_per_allowed_and_not_built_past_64():
    """``_Costs.tests``: each row left of each test of the data (every gap, or the listed thresholds), the same matrix
    as built from the blocks, cached per ``allowed`` object (the second call returns it, another object rebuilds it),
    None past 64 tests or with none; opt_depth3 on one ``_Costs`` asked with alternating ``allowed`` equals the plain
    recursion each time (review45b's D2: the matrix was rebuilt on every depth3 claim, ~220 ms a claim at 10^6 rows)."""
    asked = 0
    for seed in range(60):
        cst, S, allowed = _instance(seed)
        other = {f: np.array([2.5, 6.5]) for f in range(cst.X.shape[1])}
        for a in (None, other, allowed, None, other):
            G, ref = cst.tests(a), _tests_of(cst, a)
            assert (G is None) == (not 0 < ref.shape[1] <= 64) and (G is None or np.array_equal(G, ref)), seed
            assert cst.tests(a) is G  # (cached)
            if G is not None and G.shape[1] <= CHECK.TESTS3:
                assert CHECK.opt_depth3(cst, S, 3, a) == _naive(cst, S, 3, a), (seed, a)
                asked += 1
    assert asked >= 100, asked
    wide = _Costs(np.arange(70, dtype=float)[:, None], np.arange(70) % 2, 2, 1, 0)  # 69 tests: no matrix, no depth3
    assert CHECK.opt_depth3(wide, np.arange(70), 3) is None and wide.tests(None) is None and wide._tests[-1] is None
    assert _Costs(np.zeros((5, 1)), np.arange(5) % 2, 2, 1, 0).tests(None) is None  # (no test)


def _path_rows(X: np.ndarray, path: list) -> set:
    """The rows of a claim's path, by plain comparisons (numeric columns)."""
    go = np.ones(X.shape[0], bool)
    for f, t, side in path:
        go &= (X[:, f] <= t) if side == "L" else (X[:, f] > t)
    return set(np.flatnonzero(go).tolist())


def test_similar_claims_are_accepted_at_their_rules_bound_and_rejected_above(tmp_path, monkeypatch):
    """A ``similar`` claim on rows S from claim j (rows A, bound bA, depth >= k) holds up to bA - q |A \\ S|, counted here
    with Python sets: the producer's similar claims and forged ones from other earlier claims (nested, disjoint and
    overlapping sets), each passes at that bound (a failure, if any, is at a later claim: a lower bound may not carry a
    split above it) and is the first claim rejected one above."""
    monkeypatch.setattr(lower, "ENUM_ROWS", 0)  # (else the small sets are enum claims: no similarity)
    monkeypatch.setattr(lower, "TRIPLES", 0)
    monkeypatch.setattr(lower, "BOX_WORK", 0)

    def first_failure(d: Path, claims: list[dict]) -> str:
        try:
            _check_mutant(d, tmp_path, claims)
        except Invalid as exc:
            return str(exc)
        return ""

    forged = 0
    for seed in range(6):
        data = _continuous(seed, n=60)
        d = _cert(data, 3, tmp_path)
        claims = _claims(d)
        rows = [_path_rows(data.X, c["path"]) for c in claims]
        sim = [i for i, c in enumerate(claims) if c["rule"] == "similar"]
        rng = np.random.default_rng(seed)
        for i in sim[:4]:
            c = claims[i]
            js = [c["from"]] + [int(j) for j in rng.choice(i, size=min(i, 4), replace=False)
                                if claims[j]["depth"] >= c["depth"]]
            for j in js:
                top = claims[j]["bound"] - len(rows[j] - rows[i])  # (q = 1: accuracy)
                at = [dict(e, **{"from": j, "bound": top}) if m == i else e for m, e in enumerate(claims)]
                assert not first_failure(d, at).startswith(f"claim {i} "), (seed, i, j)
                above = [dict(e, bound=top + 1) if m == i else e for m, e in enumerate(at)]
                assert first_failure(d, above).startswith(f"claim {i} (depth {c['depth']}, bound {top + 1}, similar): "
                                                          "the rule does not give this bound"), (seed, i, j)
                forged += 1
    assert forged >= 20, forged


def test_cli_certificate_reads_the_solves_memo(tmp_path, monkeypatch):
    """`satdt solve --proof` keeps the DP's search through the estimator's fit (which drops it otherwise), so the
    producer reads the solve's memo there too; the certificate is accepted."""
    from satdt.cli import main

    asked = []
    same = lower.CoreOptima.same_search
    monkeypatch.setattr(lower.CoreOptima, "same_search", lambda self, *a: asked.append(same(self, *a)) or asked[-1])
    out = tmp_path / "zoo3"
    assert main(["solve", "zoo", "--method", "dp", "--max-depth", "3", "--proof", str(out)]) == 0
    assert asked == [True]
    check(out)


def test_the_solves_memo_goes_to_one_producer_and_only_when_asked(tmp_path):
    """review46b's D1 / D3 / D4: the kept search is taken by the first certify_result (a second producer of the
    same result, e.g. in another thread, builds its own: the compiled search runs one caller at a time), and
    nothing is kept outside keeping_work (a kept search holds its memo and its thread pool)."""
    import threading

    data = load_dataset("zoo")
    problem = Binarizer("all").problem(data)
    assert solve_max_accuracy_dp(problem, max_depth=3).work() is None
    with keeping_work():
        res = solve_max_accuracy_dp(problem, max_depth=3)
    assert res.work() is not None
    certify_result(res, data, tmp_path / "first", max_depth=3)
    assert res.work() is None and res.take_work() is None
    certify_result(res, data, tmp_path / "second", max_depth=3)  # (its own search)
    check(tmp_path / "first")
    check(tmp_path / "second")
    with keeping_work():
        res = solve_max_accuracy_dp(problem, max_depth=3)
    errors = []

    def produce(i):
        try:
            certify_result(res, data, tmp_path / f"thread{i}", max_depth=3)
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=produce, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(3):
        check(tmp_path / f"thread{i}")


def test_cli_certificate_under_a_low_memory_limit_is_written(tmp_path):
    """review46b's D2: with --max-memory too small for the binary matrices the producer's comparison of the solve's
    tests needs, the certificate is still written (the checker's own rules), as before the memo was reused."""
    out = tmp_path / "c"
    data = tmp_path / "d.csv"
    rng = np.random.default_rng(5)
    X = rng.integers(0, 60, size=(600, 12))
    y = (X[:, 0] + X[:, 1] // 3 + rng.integers(0, 9, 600) > 30).astype(int)
    pd.DataFrame(np.column_stack([X, y]), columns=[*(f"x{i}" for i in range(12)), "label"]).to_csv(data, index=False)
    from satdt.deadline import set_max_memory

    try:
        assert main(["solve", str(data), "--method", "dp", "--max-depth", "2", "--max-memory", "0.0002",
                     "--proof", str(out)]) == 0
    finally:
        set_max_memory(None)  # (the option sets the process's budget: not for the tests after this one)
    check(out)
