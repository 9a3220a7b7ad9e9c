"""The producer of the DP certificates: a lower-bound proof DAG for a known optimum.

A memoised branch and bound over row subsets in the *original* features (every gap of every
feature, or the listed thresholds), driven by the known optimum as the bound to prove, which it
prunes with: :meth:`Prover.prove` returns a claim whose bound is at least ``min(need, opt)``
(exact when below ``need``). It writes only claims the checker's rules verify, each with the
tightest bound its rule gives (so raising any bound makes the certificate invalid). Similarity
bounds (MurTree section 4.6) are propagated from every solved child to the children of every
other test of the node, as in :mod:`satdt.solvers.dp.reference`.
"""

from __future__ import annotations

import numpy as np

from ..deadline import DeadlineExpired
from .check import _Costs, opt_small

__all__ = ["Prover"]


class Prover:
    """Claims for ``cost = q * errors + lc * leaves`` on ``(X, y)``; ``allowed``: ``{feature:
    sorted thresholds}`` or None for every axis-aligned test."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, q: int, lc: int,
                 allowed: dict[int, np.ndarray] | None = None, deadline=None):
        self.cst = _Costs(np.asarray(X, float), np.asarray(y, np.int64), n_classes, q, lc)
        self.allowed = allowed
        self.claims: list[dict] = []
        self.memo: dict[tuple, tuple[int, int, bool]] = {}
        self.deadline = deadline

    def emit(self, path: list, k: int, b: int, rule: str, **extra) -> int:
        cid = len(self.claims)
        self.claims.append({"id": cid, "path": path, "depth": k, "bound": int(b), "rule": rule, **extra})
        return cid

    # ------------------------------------------------------------------ candidates of a node
    def candidates(self, S: np.ndarray):
        """Per test splitting S: feature, threshold, left rows (sorted), right rows (sorted)."""
        X = self.cst.X
        out = []
        for f in range(X.shape[1]):
            order, vals, ends = self.cst.gaps(S, f)
            if vals.size < 2:
                continue
            if self.allowed is None:
                mids = (vals[:-1] + vals[1:]) / 2.0
                thr = np.where((mids >= vals[:-1]) & (mids < vals[1:]), mids, vals[:-1])
                by_gap = {g: float(thr[g - 1]) for g in range(1, vals.size)}
            else:
                ts = self.allowed.get(f, np.empty(0))
                ts = ts[(ts >= vals[0]) & (ts < vals[-1])]
                gaps, first = np.unique(np.searchsorted(vals, ts, side="right"), return_index=True)
                by_gap = {int(g): float(ts[i]) for g, i in zip(gaps, first)}
            Ss = S[order]
            for g, t in by_gap.items():
                e = int(ends[g - 1])
                out.append((f, t, np.sort(Ss[:e]), np.sort(Ss[e:])))
        return out

    def _apart(self, A: np.ndarray, cands) -> np.ndarray:
        """For each candidate, how many rows of A it sends left."""
        X = self.cst.X
        out = np.empty(len(cands), dtype=np.int64)
        by_f: dict[int, list[int]] = {}
        for j, c in enumerate(cands):
            by_f.setdefault(c[0], []).append(j)
        for f, js in by_f.items():
            a = np.sort(X[A, f])
            out[js] = np.searchsorted(a, [cands[j][1] for j in js], side="right")
        return out

    # ------------------------------------------------------------------ the search
    def prove(self, S: np.ndarray, path: list, k: int, need: int) -> tuple[int, int]:
        """A claim on the rows S at depth k with bound >= min(need, opt); (id, bound)."""
        cst = self.cst
        key = (cst.key(S), k)
        hit = self.memo.get(key)
        if hit is not None and (hit[2] or hit[1] >= need):
            return hit[0], hit[1]
        if self.deadline is not None and self.deadline():
            raise DeadlineExpired("certificate: out of time")  # a TimeoutError, as documented
        leaf = cst.leaf(S)
        rule_leaf = cst.leaf_rule(S, k)
        if k == 0 or rule_leaf >= need or rule_leaf == leaf:
            cid, b, exact = self.emit(path, k, rule_leaf, "leaf"), rule_leaf, k == 0 or rule_leaf == leaf
        elif k <= 2:
            b = opt_small(cst, S, k, self.allowed)
            cid, exact = self.emit(path, k, b, "depth2"), True
        else:
            cid, b, exact = self._split(S, path, k, need, leaf)
        self.memo[key] = (cid, b, exact)
        return cid, b

    def _side_claim(self, S: np.ndarray, path: list, k: int, src: int, value: int) -> tuple[int, int]:
        """A claim on a side whose bound came from similarity (src) or the leaf rule (src < 0)."""
        hit = self.memo.get((self.cst.key(S), k))
        if hit is not None and hit[1] >= value:
            return hit[0], hit[1]
        if src < 0:
            b = self.cst.leaf_rule(S, k)
            cid = self.emit(path, k, b, "leaf")
        else:
            b = value
            cid = self.emit(path, k, b, "similar", **{"from": src})
        if hit is None or hit[1] < b:
            self.memo[(self.cst.key(S), k)] = (cid, b, False)
        return cid, b

    def _split(self, S: np.ndarray, path: list, k: int, need: int, leaf: int) -> tuple[int, int, bool]:
        cst = self.cst
        q = cst.q
        cands = self.candidates(S)
        J = len(cands)
        sizeL = np.array([c[2].size for c in cands], dtype=np.int64)
        simL = np.full(J, cst.lc, dtype=np.int64)
        simR = np.full(J, cst.lc, dtype=np.int64)
        srcL = np.full(J, -1, dtype=np.int64)
        srcR = np.full(J, -1, dtype=np.int64)

        def spread(cid: int, v: int, A: np.ndarray) -> None:
            left = self._apart(A, cands)        # rows of A each test sends left
            for sim, src, outside in ((simL, srcL, A.size - left), (simR, srcR, left)):
                val = v - q * outside
                better = val > sim
                sim[better] = val[better]
                src[better] = cid

        # order: the depth-one cost of each test (its children as leaves), best first
        stump = np.array([cst.leaf(c[2]) + cst.leaf(c[3]) for c in cands], dtype=np.int64)
        target = min(need, leaf)
        done = np.zeros(J, dtype=bool)
        entries: dict[int, list] = {}
        while True:
            key = np.where(done, np.iinfo(np.int64).max, simL + simR)
            j = int(np.argmin(np.where(key == key.min(), stump, np.iinfo(np.int64).max))) if J else 0
            if J == 0 or done.all() or key[j] >= target:
                break
            done[j] = True
            f, t, L, R = cands[j]
            pL, pR = path + [[f, t, "L"]], path + [[f, t, "R"]]
            lid, vL = self.prove(L, pL, k - 1, int(target - simR[j]))
            spread(lid, vL, L)
            if vL + simR[j] >= target:
                entries[j] = [lid, None]
                continue
            rid, vR = self.prove(R, pR, k - 1, int(target - vL))
            spread(rid, vR, R)
            entries[j] = [lid, rid]
            if vL + vR < target:
                target = vL + vR
        tests, best = [], leaf
        for j, (f, t, L, R) in enumerate(cands):
            lid, rid = entries.get(j, [None, None])
            if lid is None:
                lid, vL = self._side_claim(L, path + [[f, t, "L"]], k - 1, int(srcL[j]), int(simL[j]))
            else:
                vL = self.claims[lid]["bound"]
            if rid is None:
                rid, vR = self._side_claim(R, path + [[f, t, "R"]], k - 1, int(srcR[j]), int(simR[j]))
            else:
                vR = self.claims[rid]["bound"]
            tests.append([f, t, lid, rid])
            best = min(best, vL + vR)
        cid = self.emit(path, k, best, "split", tests=tests)
        return cid, best, best < need
