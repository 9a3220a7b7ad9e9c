"""The producer of the DP certificates: a lower-bound proof DAG for a known optimum.

A memoised branch and bound over row subsets in the *original* features (every gap of every
feature, or the listed thresholds), driven by the known optimum as the bound to prove, which it
prunes with: :meth:`Prover.prove` returns a claim whose bound is at least ``min(need, opt)``
(exact when below ``need``). It writes only claims the checker's rules verify, each with the
tightest bound its rule gives (so raising any bound makes the certificate invalid). Similarity
bounds (MurTree section 4.6) are propagated from every solved child to the children of every
other test of the node, as in :mod:`satdt.solvers.dp.reference`. A set of at most ``ENUM_ROWS``
rows at depth >= 3 gets one ``enum`` claim (its optimum, computed by the checker's own
:func:`~satdt.proof.check.opt_enum`) when that fits the checker's cap: the whole DAG of a DT_depth /
DT_size certificate over its witness rows is then one claim. Else a set at depth >= ``box_depth``
(4; 3 over a DT_depth / DT_size question's witness rows) whose boxes fit ``BOX_WORK`` gets one
``box`` claim (:func:`~satdt.proof.check.opt_box`: car's and balance-scale's DT_size witness
rows, their depth-4 accuracy cells). On data of at most 40 tests a set at depth 3 within the checker's
``TRIPLES`` gets one ``depth3`` claim (its optimum, by the compiled DP or the checker's own
:func:`~satdt.proof.check.opt_depth3`, which the checker recomputes from the counts left of every three
tests: tic-tac-toe (GOSDT) depth 4's 36 depth-3 splits over 549 depth2 claims became 36 claims). A
``depth2`` claim's bound (the set's optimum at depth <= 2) comes
from the compiled DP (:class:`CoreOptima`) when it can answer for the set, else from the checker's
own :func:`~satdt.proof.check.opt_small`; the checker recomputes it.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..deadline import DeadlineExpired
from .check import ENUM_CAP, TRIPLES, _blocks, _Costs, _uniq, depth3_fits, opt_box, opt_depth3, opt_enum, opt_small

__all__ = ["Prover"]

#: a set at depth >= ``box_depth`` (:class:`Prover`) gets one ``box`` claim when the box rule's work (boxes x (classes +
#: levels x tests), :func:`~satdt.proof.check.opt_box`) is at most this: ~2-3 ns a unit (car's 216,000 boxes at
#: depth 4: 40 ms). Measured (produce / check, best of 3): one claim for the whole DAG pays (balance-scale d4 437
#: claims 47 / 70 ms -> 11 / 11 ms, monk2 d4 211 claims 23 / 31 -> 8 / 7 ms); box claims below the root do not
#: (car d4 at 2^18 - 2^22: 388 -> 256 claims, 57 / 76 -> 126 / 231 ms), nor a root at depth 3 (car d3 27 / 23 ->
#: 41 / 41), nor in place of an enum claim (car DT_depth's 30 witness rows at depth 7: produce 1.6x, check 2.0x)
BOX_WORK, BOX_DEPTH = 1 << 25, 4
ENUM_ROWS = 64  # the enumeration rule on row sets of at most this many rows (0: never; at most 64)
#: with ``core_later``, the depth-2 claims the checker's own rule answers before the compiled DP is
#: built (its set-up, 10-30 ms, pays off only past a few dozen: wine DT_size's witness DAG 98 claims,
#: zoo's and iris's fewer, slower with the DP built at once)
CORE_LATER = 16
#: a node's similarity bounds by one (rows x candidates) product up to this many entries, else from a table of its rows
#: left of every two candidates when its rows x (features with a candidate)^2 and the data's codes^2 (distinct values
#: summed over the features, squared: the table's size) are at most ``PAIR_TABLE``, else by counting each side's ranks
PRODUCT, PAIR_TABLE = 200_000, 1 << 22
#: the solve's search is reused when its problem's tests are the data's ``all`` ones, compared as the distinct
#: columns of both binary matrices, built when their distinct rows x columns are at most this
SAME_TESTS = 1 << 24


class CoreOptima:
    """Depth-<=2 optima of row sets by the compiled DP (``"all"`` thresholds; the producer's engine,
    measured 10-50x faster than the checker's :func:`~satdt.proof.check.opt_small` on bmi, raisin
    and fault); the checker recomputes each with its own.

    A set of rows is asked as the distinct rows of the data's binarization it holds; the answer is
    the set's own when the set holds every copy of each (the rows reaching a path of tests always
    do): the class counts of a distinct row are then those of its copies in the set, and every
    axis-aligned test splits the set as some column of the binarization or not at all (see
    :class:`~satdt.proof.witness._Questions`). Other sets, and data with row weights, get None.

    ``solved``: the DP solve's (problem, compiled search), whose memo already holds many of these optima (compas
    (GOSDT) depth 4: 4,533 of its 5,903 sets); used when :meth:`same_search` finds it asks the same question.
    """

    def __init__(self, data, q: int, lc: int, solved=None):
        from ..binarize import Binarizer
        from ..deadline import Deadline
        from ..solvers.dp.accuracy import new_search

        # (the redundant columns kept: dropping them costs more than they do here, fault: 45 ms)
        problem = Binarizer("all", drop_duplicates=False).problem(data)
        self.row_of = np.asarray(problem.row_of, dtype=np.int64)
        m, y = problem.n_distinct, np.asarray(data.y, dtype=np.int64)
        counts = np.bincount(self.row_of * problem.counts.shape[1] + y, minlength=problem.counts.size)
        self.ok = data.weight is None and np.array_equal(counts.reshape(problem.counts.shape), problem.counts)
        self.copies = np.bincount(self.row_of, minlength=m)
        self.single = bool(self.copies.max(initial=0) <= 1)  # no two rows alike: every set holds every copy
        # the search made at the first set asked (car depth 4: one box claim, none asked)
        self.new = lambda: solved[1] if solved is not None and self.same_search(problem, *solved, q, lc) else \
            new_search(problem, Deadline.of(None), None, "core", q=q, leaf_cost=lc, n_jobs=1)
        self.search = None

    def same_search(self, problem, solved_problem, search, q: int, lc: int) -> bool:
        """Whether ``search`` (of the problem ``solved_problem``) answers as a search of ``problem`` (this data's ``all``
        binarization) for ``q * errors + lc * leaves``: a compiled search of these costs, the same distinct rows
        (each row's, and their class counts: its memo's keys) and the same tests (a column, its complement and a
        copy split alike; a constant one splits nothing), so the same optimum on every set of rows."""
        from ..solvers.dp.search import CoreSearch

        if not (self.ok and isinstance(search, CoreSearch) and (search.q, search.lc) == (q, lc)
                and np.array_equal(solved_problem.row_of, problem.row_of)
                and np.array_equal(solved_problem.counts, problem.counts)):
            return False
        if problem.n_distinct * (problem.n_binary + solved_problem.n_binary) > SAME_TESTS:
            return False
        try:
            return _splits(solved_problem.X) == _splits(problem.X)
        except MemoryError:  # (a binary matrix over the memory limit: not compared, not reused)
            return False

    def opt(self, S: np.ndarray, k: int) -> int | None:
        """The optimum over trees of depth <= k (1-3) on the rows S, or None (see the class)."""
        if not self.ok:
            return None
        if self.single:  # (its distinct rows sorted: no count over all of them; tic-tac-toe d4: 549 calls)
            D = np.sort(self.row_of[S])
        else:
            held = np.bincount(self.row_of[S], minlength=self.copies.size)
            D = np.flatnonzero(held)
            if not np.array_equal(held[D], self.copies[D]):
                return None
        if self.search is None:
            try:
                self.search, self.new = self.new(), None
            except (MemoryError, ValueError) as exc:  # (a binary matrix over the memory budget, the core's integer
                if isinstance(exc, ValueError) and not past_core_integers(exc):  # costs past 2^53: a lam of large
                    raise  # denominator; the checker's own rules instead)
                self.ok = False
                return None
        # the core's call of CoreSearch.run without its per-call stats and tree objects (bmi d3: 61 calls)
        out = self.search._core.solve(int(k), 2 ** 62, 1e300, None, 2.0, 0, D, None, None)
        return int(out["value"]) if out["finished"] and out["tree"] is not None else None


def past_core_integers(exc: ValueError) -> bool:
    """Whether ``exc`` is the compiled search's refusal of integer costs past 2^53 (its words, and CoreSearch's)."""
    return "exceeds 2^53" in str(exc)


def _splits(X: np.ndarray) -> set[bytes]:
    """The distinct ways the columns of a binary matrix split its rows (each column read with its first row
    False, constant ones left out)."""
    F = np.asarray(X, bool)
    F = F ^ F[:1]
    return set(map(bytes, np.packbits(F[:, F.any(0)], axis=0).T))


class Prover:
    """Claims for ``cost = q * errors + lc * leaves`` on ``(X, y)``; ``allowed``: ``{feature:
    sorted thresholds}`` or None for every axis-aligned test."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, q: int, lc: int,
                 allowed: dict[int, np.ndarray] | None = None, deadline=None, core: CoreOptima | None = None,
                 core_later=None, box_depth: int | None = None):
        self.cst = _Costs(np.asarray(X, float), np.asarray(y, np.int64), n_classes, q, lc)
        self.box_depth = BOX_DEPTH if box_depth is None else box_depth  # box claims from this depth up
        self.core = core if allowed is None else None  # depth <= 2 optima by the compiled DP (X's rows)
        # or a function making it, called at the CORE_LATER + 1-th depth-2 claim (the claims do not change)
        self.core_later, self.small = (core_later if allowed is None else None), 0
        self.allowed = allowed
        # few tests on the data (<= 64, as the checker's batched depth2 claims): a depth-2 side costs the compiled DP
        # ~0.02-0.1 ms, less than propagating its similarity bounds (car, balance-scale, tic-tac-toe depth 4)
        self.cheap2 = self.core is not None and int((_blocks(self.cst, np.arange(self.cst.n), None)[1] - 1).sum()) <= 64
        # data of at most TESTS3 tests: a set at depth 3 within TRIPLES gets one depth3 claim (the checker's opt_depth3)
        self.tests = int((_blocks(self.cst, np.arange(self.cst.n), allowed)[1] - 1).sum())
        # each row's value rank per feature after the earlier features' (the checker's codes, cached: a side's rows
        # left of every candidate test by one count of their ranks, the similarity bounds' spread)
        self.rank, self.off = self.cst.codes(None)
        # each row 1 when its class is not its identical rows' first most common one: a set holding every copy of its
        # rows (every path's set) has that many conflicts, the leaf rule's count (the checker's count over every
        # identical-rows group a set: 84 us a call on compas d4's 6,288; a gather and a count here)
        self.odd = self.cst.y != np.bincount(self.cst.gy, minlength=self.cst.ngy).reshape(-1, n_classes).argmax(1)[
            self.cst.group]
        self.claims: list[dict] = []
        self.memo: dict[tuple, tuple[int, int, bool]] = {}
        self.deadline = deadline
        self.root_is_optimum = False  # set when the root's need is a known tree's cost

    def emit(self, path: list, k: int, b: int, rule: str, **extra) -> int:
        cid = len(self.claims)
        self.claims.append({"id": cid, "path": path, "depth": k, "bound": int(b), "rule": rule, **extra})
        return cid

    # ------------------------------------------------------------------ candidates of a node
    def features(self, S: np.ndarray):
        """Per feature splitting S: (f, gap index of each candidate test (sorted), its threshold,
        S sorted by the feature, end position of each value block)."""
        out, Xs = [], self.cst.X[S]
        O = np.argsort(Xs, axis=0, kind="stable")  # every column at once (zoo: 116 columns)
        V = np.take_along_axis(Xs, O, 0)
        last = np.concatenate([V[1:] != V[:-1], np.ones((1, V.shape[1]), bool)])  # last row of a value block
        if self.allowed is None:  # every gap: all features' blocks at once (no numpy call per feature but slices)
            fi, pos = np.nonzero(last.T)  # (by feature, then position)
            vals, at, SO = V[pos, fi], np.searchsorted(fi, np.arange(V.shape[1] + 1)), np.ascontiguousarray(S[O].T)
            mids = (vals[:-1] + vals[1:]) / 2.0
            thr, one = np.where((mids >= vals[:-1]) & (mids < vals[1:]), mids, vals[:-1]), np.arange(1, S.size + 1)
            return [(f, one[:at[f + 1] - at[f] - 1], thr[at[f]:at[f + 1] - 1], SO[f], pos[at[f]:at[f + 1]] + 1)
                    for f in np.flatnonzero(np.diff(at) >= 2).tolist()]
        for f in np.flatnonzero(last[:-1].any(0)).tolist():  # the features with >= 2 values on S
            order, ends = O[:, f], np.flatnonzero(last[:, f]) + 1
            vals = V[ends - 1, f]
            if self.allowed is None:
                mids = (vals[:-1] + vals[1:]) / 2.0
                thr = np.where((mids >= vals[:-1]) & (mids < vals[1:]), mids, vals[:-1])
                gaps = np.arange(1, vals.size)
            else:
                ts = self.allowed.get(f, np.empty(0))
                ts = ts[(ts >= vals[0]) & (ts < vals[-1])]
                gaps = np.searchsorted(vals, ts, side="right")  # ascending: ts is sorted
                first = np.append(True, gaps[1:] != gaps[:-1]) if gaps.size else np.zeros(0, bool)
                gaps, thr = gaps[first], ts[first]
            if gaps.size:
                out.append((f, gaps, np.asarray(thr, float), S[order], ends))
        return out

    @np.errstate(over="ignore")  # (hundreds of columns: the product passes the floats' range, inf: no fit)
    def _enum_may_fit(self, S: np.ndarray, k: int) -> bool:
        """Whether the enumeration rule may fit its cap on S at depth k: its row sets are at most the
        boxes (an interval per feature) and at most ``(2 tests + 1)^k`` (a filter: no hopeless tries)."""
        if S.size > ENUM_ROWS:
            return False
        u = _blocks(self.cst, S, None)[1].astype(float)  # distinct values per feature (one call: zoo's 116 columns)
        tests = (u - 1).sum()
        return min(np.prod(u * (u + 1) / 2) + 1, (2 * tests + 1) ** k) * tests <= 4 * ENUM_CAP

    # ------------------------------------------------------------------ the search
    def prove(self, S: np.ndarray, path: list, k: int, need: int) -> tuple[int, int]:
        """A claim on the rows S at depth k with bound >= min(need, opt); (id, bound)."""
        cid, b, _ = self._prove(S, path, k, need)
        return cid, b

    def leaf_rule(self, S: np.ndarray, k: int, leaf: int) -> int:
        """The checker's leaf rule (:meth:`~satdt.proof.check._Costs.leaf_rule`) on a path's rows S (``leaf``: their
        one leaf's cost): its conflicts are the rows of S of ``odd``."""
        return leaf if k == 0 else min(leaf, self.cst.q * np.count_nonzero(self.odd[S]) + 2 * self.cst.lc)

    def _prove(self, S: np.ndarray, path: list, k: int, need: int, skey: tuple | None = None) -> tuple[int, int, bool]:
        cst = self.cst
        key = (cst.key(S) if skey is None else skey, k)  # (skey: S's key when the caller has it)
        hit = self.memo.get(key)
        if hit is not None and (hit[2] or hit[1] >= need):
            return hit
        if self.deadline is not None and self.deadline():
            raise DeadlineExpired("certificate: out of time")  # a TimeoutError, as documented
        leaf = cst.leaf(S)
        rule_leaf = self.leaf_rule(S, k, leaf)
        if k == 0 or rule_leaf >= need or rule_leaf == leaf:
            cid, b, exact = self.emit(path, k, rule_leaf, "leaf"), rule_leaf, k == 0 or rule_leaf == leaf
        elif k >= 3 and self._enum_may_fit(S, k) and (b := opt_enum(cst, S, k, self.allowed)) is not None:
            cid, exact = self.emit(path, k, b, "enum"), True
        elif k >= self.box_depth and (b := opt_box(cst, S, k, self.allowed, BOX_WORK)) is not None:
            cid, exact = self.emit(path, k, b, "box"), True
        elif k <= 2:  # the optimum; at the root of a dp certificate need is the tree's cost, an
            # upper bound, so min(need, optimum) is the optimum too (and the search is shorter)
            target = need if self.root_is_optimum and not path else None
            if self.core is None and self.core_later is not None:
                self.small += 1
                if self.small > CORE_LATER:
                    self.core, self.core_later = self.core_later(), None
            b = None if self.core is None else self.core.opt(S, k)
            if b is None:
                b = opt_small(cst, S, k, self.allowed, target)
            elif target is not None:
                b = min(b, int(target))
            cid, exact = self.emit(path, k, b, "depth2"), True
        elif k == 3 and depth3_fits(S.size, cst.C, self.tests, TRIPLES):  # (the checker's own test: it takes the claim)
            b = None if self.core is None else self.core.opt(S, 3)  # (the same optimum: every gap on these sets)
            b = opt_depth3(cst, S, 3, self.allowed) if b is None else b
            cid, exact = self.emit(path, k, b, "depth3"), True
        else:
            cid, b, exact = self._split(S, path, k, need, leaf)
        self.memo[key] = (cid, b, exact)
        return cid, b, exact

    def _split(self, S: np.ndarray, path: list, k: int, need: int, leaf: int) -> tuple[int, int, bool]:
        """Every test of every feature, by intervals of consecutive gaps: the left side of a gap
        only grows with it and the right side only shrinks, and an optimum only grows with its
        rows, so one entry ``[f, t_lo, t_hi, left(t_lo), right(t_hi)]`` covers every gap between
        (the checker's ``range`` entries). Intervals are split, lowest bound first, until their
        bound reaches the target (``min(need, leaf)``, lowered by every test that beats it).
        Sides are claimed from earlier claims by similarity when that suffices."""
        cst, q = self.cst, self.cst.q
        feats = self.features(S)
        target = min(need, leaf)
        side: dict[tuple, tuple[int, int, bool]] = {}
        # similarity bounds of every side of every candidate, from the claims solved so far
        off = np.cumsum([0] + [F[1].size for F in feats])
        sim = {s: np.full(int(off[-1]), cst.lc, dtype=np.int64) for s in "LR"}
        src = {s: np.full(int(off[-1]), -1, dtype=np.int64) for s in "LR"}
        goes = []  # (|S|, candidates) 0/1 (a small node), S's rows left of two candidates, or the candidates' ranks

        def rows(fi: int, i: int, s: str) -> np.ndarray:
            f, gaps, thr, Ss, ends = feats[fi]
            e = int(ends[gaps[i] - 1])
            return Ss[:e] if s == "L" else Ss[e:]  # (in the feature's order: no rule depends on the rows' order)

        cum: list[np.ndarray] = []  # the running key sums along each feature's sorted rows (2 x rows x features)

        def key(fi: int, i: int, s: str) -> tuple[int, int, int]:
            """``cst.key`` of a side, from the running sums (uint64 sums wrap as ``cst.key``'s do): no
            sort and no sum per side (zoo d3: 240 sides, 106 of them only claimed by similarity)."""
            f, gaps, thr, Ss, ends = feats[fi]
            if not cum:  # (every feature's at once: one product of the keys, one cumsum)
                cum.append(np.cumsum(cst.keys[:, np.stack([F[3] for F in feats], 1)], 1, dtype=np.uint64))
            e, c = int(ends[gaps[i] - 1]), cum[0]  # (e >= 1: a gap has rows on its left)
            h = c[:, e - 1, fi] if s == "L" else c[:, -1, fi] - c[:, e - 1, fi]
            return (e if s == "L" else Ss.size - e), int(h[0]), int(h[1])

        def spread(cid: int, v: int, A: np.ndarray, j: int, sA: str) -> None:
            """The similarity bounds of every candidate's sides from the claim ``cid`` (bound v) on A, side sA of
            candidate j: their rows outside A, from A's rows left of every candidate."""
            if v <= cst.lc:  # no bound above the start (lc) from it: v - q * outside <= lc (zoo d3: 110 of 132)
                return
            if S.size * int(off[-1]) <= PRODUCT:  # a small node: every candidate at once (one product)
                if not goes:
                    fs = np.repeat([F[0] for F in feats], [F[2].size for F in feats])
                    goes.append((cst.X[np.ix_(S, fs)] <= np.concatenate([F[2] for F in feats])).astype(np.float32))
                inside = np.zeros(cst.n, dtype=np.float32)
                inside[A] = 1.0
                # in blocks of <= 200k entries: under OpenBLAS's threading threshold (its threads on this
                # shared machine: compas d3's 102 products 16 ms each, 1-2 ms in blocks; exact: counts < 2^24)
                x, g, step = inside[S], goes[0], max(1, 200_000 // max(1, goes[0].shape[1]))
                left = sum(x[i:i + step] @ g[i:i + step] for i in range(0, S.size, step)).astype(np.int64)
            elif max(S.size * len(feats) ** 2, int(self.off[-1]) ** 2) <= PAIR_TABLE:  # A: a side of a candidate; S's
                if not goes:  # rows left of two candidates at once, one table (codes x codes) for the node
                    goes.append(both_left())
                left = goes[0][j] if sA == "L" else goes[0].diagonal() - goes[0][j]
            else:  # A's rows left of a test: those ranked <= the test's last left row of S (no row of S between)
                if not goes:  # per candidate: its last left row's rank + 1, its feature's first rank
                    fs, code = candidates()
                    goes.append((code + 1, self.off[fs]))
                run = np.concatenate([[0], np.cumsum(np.bincount(self.rank[A].ravel(), minlength=int(self.off[-1])))])
                left = run[goes[0][0]] - run[goes[0][1]]
            for s, outside in (("L", A.size - left), ("R", left)):
                val = v - q * outside
                better = val > sim[s]
                sim[s][better] = val[better]
                src[s][better] = cid

        def candidates() -> tuple[np.ndarray, np.ndarray]:
            """Each candidate's feature and the code of its last left row of S (a row of the feature is left of the
            candidate when its code, :meth:`~satdt.proof.check._Costs.codes`, is at most that)."""
            last = np.concatenate([F[3][F[4][F[1] - 1] - 1] for F in feats])
            fs = np.repeat([F[0] for F in feats], [F[1].size for F in feats])
            return fs, self.rank[last, fs]

        def both_left() -> np.ndarray:
            """S's rows left of candidates j and j' (candidates x candidates): a row is left of a test when its code
            (its value's rank in the feature, :meth:`~satdt.proof.check._Costs.codes`) is at most that of the test's
            last left row; one count of S's rows' code pairs, then 2-D running sums restarted at each feature's first
            code (compas d4's nodes of 10^3 - 7 x 10^3 rows x 134 tests: a count a side cost ~50 us, 0.6 s in all)."""
            fs, code = candidates()
            W, first, V = int(self.off[-1]), np.repeat(self.off[:-1], np.diff(self.off)), self.rank[S][:, _uniq(fs)]
            N = np.bincount((V[:, :, None] * W + V[:, None, :]).ravel(), minlength=W * W).reshape(W, W)
            N = (Z := np.concatenate([np.zeros((1, W), N.dtype), np.cumsum(N, 0)]))[1:] - Z[first]
            N = (Z := np.concatenate([np.zeros((W, 1), N.dtype), np.cumsum(N, 1)], 1))[:, 1:] - Z[:, first]
            return N[np.ix_(code, code)]

        def get(fi: int, i: int, s: str, nd: int) -> tuple[int, int, bool]:
            got = side.get((fi, i, s))
            if got is not None and (got[2] or got[1] >= nd):
                return got
            f, thr, j = feats[fi][0], float(feats[fi][2][i]), int(off[fi] + i)
            p, kR, bs = path + [[f, thr, s]], key(fi, i, s), int(sim[s][j])
            if bs >= max(nd, 1) and src[s][j] >= 0:  # similarity suffices
                hit = self.memo.get((kR, k - 1))
                if hit is not None and hit[1] >= bs:
                    got = hit
                else:
                    got = (self.emit(p, k - 1, bs, "similar", **{"from": int(src[s][j])}), bs, False)
                    if hit is None or hit[1] < bs:
                        self.memo[(kR, k - 1)] = got
            else:
                R = rows(fi, i, s)
                got = self._prove(R, p, k - 1, int(nd), kR)
                if k > 3 or not self.cheap2:
                    spread(got[0], got[1], R, j, s)
            side[fi, i, s] = got
            return got

        def bound(fi: int, lo: int, hi: int) -> int:
            """Bound of the interval [lo, hi] of feature fi's gaps, each side asked for what the
            target needs (after this, a bound below the target has two exact sides)."""
            r = side.get((fi, hi, "R"))
            rb = max(r[1] if r else 0, int(sim["R"][off[fi] + hi]))
            lft = get(fi, lo, "L", target - rb)
            rgt = get(fi, hi, "R", target - lft[1])
            if lft[1] + rgt[1] < target and not lft[2]:
                lft = get(fi, lo, "L", target - rgt[1])
                if lft[1] + rgt[1] < target and not rgt[2]:
                    rgt = get(fi, hi, "R", target - lft[1])
            return lft[1] + rgt[1]

        ycum: list[np.ndarray] = []  # the running class counts along each feature's sorted rows (features x rows x C)

        def stump(fi: int, i: int) -> int:  # (a priority only: the two leaves' cost, from the running class counts)
            if not ycum:
                ycum.append(np.cumsum(cst.y[np.stack([F[3] for F in feats])][..., None] == np.arange(cst.C), 1))
            e, c = int(feats[fi][4][feats[fi][1][i] - 1]), ycum[0][fi]
            return q * (S.size - int(c[e - 1].max()) - int((c[-1] - c[e - 1]).max())) + 2 * cst.lc

        heap = [(0, stump(fi, (F[1].size - 1) // 2), fi, 0, F[1].size - 1) for fi, F in enumerate(feats)]
        heapq.heapify(heap)
        done = []
        while heap:
            _, _, fi, lo, hi = heapq.heappop(heap)
            b = bound(fi, lo, hi)
            if b >= target or lo == hi:
                target = min(target, b)  # a single test below the target: both sides exact
                done.append((fi, lo, hi))
                continue
            m = (lo + hi) // 2
            heapq.heappush(heap, (b, stump(fi, (lo + m) // 2), fi, lo, m))
            heapq.heappush(heap, (b, stump(fi, (m + 1 + hi) // 2), fi, m + 1, hi))
        tests, best = [], leaf
        for fi, lo, hi in sorted(done):
            f, gaps, thr = feats[fi][:3]
            lid, vL, _ = side[fi, lo, "L"]
            rid, vR, _ = side[fi, hi, "R"]
            tests.append([f, float(thr[lo]), lid, rid] if lo == hi else
                         [f, float(thr[lo]), float(thr[hi]), lid, rid])
            best = min(best, vL + vR)
        cid = self.emit(path, k, best, "split", tests=tests)
        return cid, best, best < need
