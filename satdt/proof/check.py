"""The independent checker of satdt certificates: ``python -m satdt.proof.check DIR`` or ``satdt check DIR``.

It trusts Python, numpy, the verified DRUP checker ``drup`` (extracted from Why3 code), the
reference encoding (:mod:`satdt.proof.reference_encoding`, numpy only) and the data file of the
certificate; it imports nothing from satdt's search, encodings or binarizer (a test parses this
file's imports). The format is described in :mod:`satdt.proof` (``FORMAT.md`` there).

Costs are integers ``q * errors + lc * leaves`` (accuracy: ``q = 1, lc = 0``; regularized with
``lam = p / q``: ``lc = p * n``). A claim ``(rows of path, k, b)`` says every tree of depth
``<= k`` on those rows costs ``>= b``. Rules:

* ``leaf``: ``b <= leaf cost`` when ``k = 0``, else ``b <= min(leaf cost, q * conflicts + 2 lc)``
  (any split tree has two leaves and misclassifies the minority of each group of identical rows);
* ``split``: ``b <= leaf cost`` and, for every test that splits the rows (every gap between
  consecutive distinct values of every feature, or every listed threshold that splits them),
  an entry ``[f, t, left, right]`` whose claims (earlier ids, depth ``>= k - 1``) are on exactly
  the two sides and whose bounds sum to ``>= b`` (a tree with a test that does not split its rows
  is no better than its non-empty side alone);
* ``depth2`` (``k <= 2``): ``b <=`` the optimum the checker computes by enumeration;
* ``similar``: from an earlier claim ``(A, k', b')`` with ``k <= k'``: ``b <= b' - q |A \\ S|``.

Set equality is tested by two random 64-bit sums of per-row keys drawn at each run (and the count).
DT_depth / DT_size certificates prove "no tree of depth <= D (<= m splits) classifies every row"
by such a DAG (costs ``errors`` or ``(m + 2) errors + leaves``) or by DRUP over the witness rows.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import sys
from fractions import Fraction

import numpy as np

from .reference_encoding import encode

__all__ = ["check", "Invalid", "FORMAT", "VERSION", "opt_small", "read_data"]

FORMAT, VERSION = "satdt-proof", 1


class Invalid(Exception):
    """The certificate is not valid; the message names the first failing claim or file."""


def _open(path: str):
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def read_data(path: str) -> tuple[np.ndarray, list[str]]:
    """The certificate's data file: a header row, float features, the label last (a string)."""
    with _open(path) as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 2:
        raise Invalid(f"{os.path.basename(path)}: no data rows")
    try:
        X = np.array([[float(v) for v in r[:-1]] for r in rows[1:]], dtype=float).reshape(len(rows) - 1, -1)
    except ValueError as exc:
        raise Invalid(f"{os.path.basename(path)}: {exc}") from None
    if not np.isfinite(X).all():
        raise Invalid(f"{os.path.basename(path)}: non-finite feature value")
    return X, [r[-1] for r in rows[1:]]


class _Costs:
    """The data, the integer cost and the set functions every rule uses."""

    def __init__(self, X: np.ndarray, y: np.ndarray, C: int, q: int, lc: int):
        self.X, self.y, self.C, self.q, self.lc, self.n = X, y, C, q, lc, X.shape[0]
        self.group = np.unique(X, axis=0, return_inverse=True)[1].reshape(-1)
        rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
        self.keys = rng.integers(0, 2 ** 63, size=(self.n, 2), dtype=np.uint64) * np.uint64(2) + np.uint64(1)

    def leaf(self, S: np.ndarray) -> int:
        return self.q * (S.size - int(np.bincount(self.y[S], minlength=self.C).max(initial=0))) + self.lc

    def leaf_rule(self, S: np.ndarray, k: int) -> int:
        if k == 0:
            return self.leaf(S)
        gc = np.bincount(self.group[S] * self.C + self.y[S], minlength=(self.group.max() + 1) * self.C)
        conflicts = S.size - int(gc.reshape(-1, self.C).max(1).sum())
        return min(self.leaf(S), self.q * conflicts + 2 * self.lc)

    def key(self, S: np.ndarray) -> tuple[int, int, int]:
        h = self.keys[S].sum(0, dtype=np.uint64) if S.size else np.zeros(2, np.uint64)
        return int(S.size), int(h[0]), int(h[1])

    def gaps(self, S: np.ndarray, f: int):
        """S sorted by feature f: (order, distinct values, end position of each value block)."""
        v = self.X[S, f]
        order = np.argsort(v, kind="stable")
        vs = v[order]
        ends = np.flatnonzero(np.r_[vs[1:] != vs[:-1], True]) + 1
        return order, vs[ends - 1], ends


def opt_small(cst: _Costs, S: np.ndarray, k: int, allowed: dict | None = None) -> int:
    """The optimum over trees of depth <= k (0, 1, 2) on the rows S, over every axis-aligned test
    (every gap of S) or the ``allowed`` thresholds, by enumeration with class-count cumulative sums
    (a test that does not split S is a real tree too: counting it changes no minimum)."""
    if k == 0 or S.size == 0:
        return cst.leaf(S) if S.size else cst.lc
    q, lc, C = cst.q, cst.lc, cst.C
    best = cst.leaf(S)
    Y = np.eye(C, dtype=np.int64)[cst.y[S]]
    ranks = []
    for f in range(cst.X.shape[1]):
        if allowed is not None:  # block of each row: how many listed thresholds lie below it
            ts = allowed.get(f, np.empty(0))
            ranks.append((np.searchsorted(ts, cst.X[S, f], side="left"), ts.size + 1))
            continue
        order, vals, ends = cst.gaps(S, f)
        r = np.empty(S.size, dtype=np.int64)
        r[order] = np.repeat(np.arange(ends.size), np.diff(np.r_[0, ends]))
        ranks.append((r, ends.size))
    if k == 1:
        for r, u in ranks:
            if u < 2:
                continue
            full = np.cumsum(np.bincount(r * C + cst.y[S], minlength=u * C).reshape(u, C), 0)
            cum, tot = full[:-1], full[-1]
            err = S.size - cum.max(1) - (tot - cum).max(1)
            best = min(best, int(q * err.min()) + 2 * lc)
        return best
    tot = Y.sum(0)
    for rf, uf in ranks:
        if uf < 2:
            continue
        # child optimum (depth <= 1) of each side of each root gap, over every child feature
        cumf = np.cumsum(np.bincount(rf * C + cst.y[S], minlength=uf * C).reshape(uf, C), 0)[:-1]  # left counts
        nL = cumf.sum(1)
        childL = q * (nL - cumf.max(1)) + lc
        childR = q * ((S.size - nL) - (tot - cumf).max(1)) + lc
        # every child feature at once, in groups of about 4M counts: columns = (g, g-rank) blocks
        groups, cur, width = [], [], 0
        for rg, ug in ranks:
            if ug >= 2:
                if cur and uf * (width + ug) * C > 4_000_000:
                    groups, cur, width = groups + [cur], [], 0
                cur, width = cur + [(rg, ug)], width + ug
        for grp in groups + ([cur] if cur else []):
            offs = np.cumsum([0] + [ug for _, ug in grp])
            cols = np.concatenate([rg + o for (rg, _), o in zip(grp, offs[:-1])])
            rows_f = np.tile(rf, len(grp))
            W = int(offs[-1])                   # counts (class, f-rank, column), int32, classes first
            M = np.bincount((np.tile(cst.y[S], len(grp)) * uf + rows_f) * W + cols,
                            minlength=C * uf * W).astype(np.int32).reshape(C, uf, W)
            np.cumsum(M, 1, out=M)              # M[c, a, col]: f-rank <= a
            M[:, :, offs[1:-1]] -= np.add.reduceat(M, offs[:-1], axis=2)[:, :, :-1]  # restart per block
            np.cumsum(M, 2, out=M)              # ... and g-rank <= b within the block of g
            LL = M[:, :-1]                      # left of root gap a, g-rank <= b (b = last: no split)
            LR = cumf.T[:, :, None] - LL
            RL = M[:, -1:] - LL
            RR = (tot - cumf).T[:, :, None] - RL
            eL = (nL[:, None] - LL.max(0) - LR.max(0)).min(1)
            eR = ((S.size - nL)[:, None] - RL.max(0) - RR.max(0)).min(1)
            childL = np.minimum(childL, q * eL + 2 * lc)
            childR = np.minimum(childR, q * eR + 2 * lc)
        best = min(best, int((childL + childR).min()))
    return best


def _tree_cost(tree: dict, X: np.ndarray, y: np.ndarray, classes: list[str], cst: _Costs, allowed=None):
    """(cost, errors, leaves, splits, depth) of the tree on every row."""
    tree = tree.get("root", tree)
    stack, errors, leaves, splits, depth = [(tree, np.arange(X.shape[0]), 0)], 0, 0, 0, 0
    while stack:
        node, S, d = stack.pop()
        depth = max(depth, d)
        if "feature" in node:
            f, t = int(node["feature"]), float(node["threshold"])
            if not 0 <= f < X.shape[1] or node.get("category") is not None or \
                    (allowed is not None and t not in allowed.get(f, ())):
                raise Invalid(f"tree: test x{f} <= {t!r} is not in the search space")
            go = X[S, f] <= t
            splits += 1
            stack += [(node["left"], S[go], d + 1), (node["right"], S[~go], d + 1)]
        else:
            if str(node.get("class")) not in classes:
                raise Invalid(f"tree: unknown class {node.get('class')!r}")
            leaves += 1
            errors += int((y[S] != classes.index(str(node["class"]))).sum())
    return cst.q * errors + cst.lc * leaves, errors, leaves, splits, depth


def _allowed(man: dict):
    listed = man.get("thresholds", "all")
    return None if listed == "all" else {int(f): np.unique(np.asarray(ts, float)) for f, ts in listed.items()}


def _check_claims(path: str, man: dict, cst: _Costs, root_depth: int) -> int:
    """Check every claim of the DAG in order; return the root claim's bound."""
    allowed = _allowed(man)
    X, p = cst.X, cst.X.shape[1]
    sets, keys, bounds, depths = [], [], [], []
    with _open(path) as fh:
        for line_no, line in enumerate(fh):
            try:
                c = json.loads(line)
                cid, k, b, rule = int(c["id"]), int(c["depth"]), int(c["bound"]), c["rule"]
                S = np.arange(cst.n)
                for f, t, side in c["path"]:
                    go = X[S, int(f)] <= float(t)
                    S = S[go] if side == "L" else S[~go] if side == "R" else None
            except Exception as exc:  # noqa: BLE001 - any malformed line is invalid
                raise Invalid(f"claims line {line_no + 1}: malformed ({exc})") from None
            where = f"claim {cid} (depth {k}, bound {b}, {rule})"
            if cid != len(sets) or k < 0:
                raise Invalid(f"{where}: ids must be 0, 1, ... in order")

            def ref(j: int) -> int:
                j = int(j)
                if not 0 <= j < cid:
                    raise Invalid(f"{where}: refers to claim {j}, not an earlier one")
                return j

            if rule == "leaf":
                ok = b <= cst.leaf_rule(S, k)
            elif rule == "depth2":
                ok = k <= 2 and b <= opt_small(cst, S, k, allowed)
            elif rule == "similar":
                a = ref(c["from"])
                outside = np.setdiff1d(sets[a], S, assume_unique=True).size
                ok = k <= depths[a] and b <= bounds[a] - cst.q * outside
            elif rule == "split":
                if k < 1 or b > cst.leaf(S):
                    raise Invalid(f"{where}: above the leaf cost or depth 0")
                covered = {}
                for f, t, lid, rid in c["tests"]:
                    f, t, lid, rid = int(f), float(t), ref(lid), ref(rid)
                    if not 0 <= f < p or (allowed is not None and t not in allowed.get(f, ())):
                        raise Invalid(f"{where}: test x{f} <= {t!r} is not a candidate")
                    go = X[S, f] <= t
                    if go.all() or not go.any():
                        raise Invalid(f"{where}: test x{f} <= {t!r} does not split the rows")
                    for child, side in ((lid, S[go]), (rid, S[~go])):
                        if keys[child] != cst.key(side) or depths[child] < k - 1:
                            raise Invalid(f"{where}: claim {child} is not on the rows of x{f} <= {t!r}")
                    if bounds[lid] + bounds[rid] < b:
                        raise Invalid(f"{where}: test x{f} <= {t!r} gives only {bounds[lid] + bounds[rid]}")
                    covered.setdefault(f, set()).add(int(np.unique(X[S, f][go]).size))
                for f in range(p):
                    _, vals, _ = cst.gaps(S, f)
                    if allowed is None:
                        need = range(1, vals.size)
                    else:
                        ts = allowed.get(f, np.empty(0))
                        ts = ts[(ts >= vals[0]) & (ts < vals[-1])]
                        need = np.unique(np.searchsorted(vals, ts, side="right")).tolist()
                    for g in need:
                        if g not in covered.get(f, ()):
                            raise Invalid(f"{where}: no entry for the test x{f} <= {vals[g - 1]!r} "
                                          f"(gap {g} of {vals.size - 1})")
                ok = True
            else:
                raise Invalid(f"{where}: unknown rule")
            if not ok:
                raise Invalid(f"{where}: the rule does not give this bound")
            sets.append(S)
            keys.append(cst.key(S))
            bounds.append(b)
            depths.append(k)
    if not sets:
        raise Invalid("claims: empty")
    if sets[-1].size != cst.n or depths[-1] != root_depth:
        raise Invalid(f"claim {len(sets) - 1}: the last claim must be on every row at depth {root_depth}")
    return bounds[-1]


def _parse_dimacs(text: str) -> list[list[int]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "cp":
            continue
        lits = [int(v) for v in line.split()]
        if not lits or lits[-1] != 0:
            raise Invalid("cnf: a clause line must end with 0")
        out.append(lits[:-1])
    return out


def _check_consistent(d: str, man: dict, X: np.ndarray, y: np.ndarray, classes: list[str], tree_info) -> str:
    _, errors, leaves, splits, depth = tree_info
    if errors:
        raise Invalid(f"tree: misclassifies {errors} rows")
    value, question = int(man["value"]), man["question"]
    if man["objective"] == "depth":
        if depth != value or question != {"max_depth": value - 1, "max_splits": None}:
            raise Invalid(f"tree: depth {depth}, question {question} do not match the value {value}")
    elif man["objective"] == "size":
        K = int(man["max_depth"])
        if depth > K or leaves + splits != value or question != {"max_depth": K, "max_splits": splits - 1}:
            raise Invalid(f"tree: depth {depth}, {leaves + splits} nodes, question {question} do not match")
    else:
        raise Invalid(f"manifest: unknown objective {man['objective']!r}")
    if question["max_depth"] < 0 or (question["max_splits"] is not None and question["max_splits"] < 0):
        return f"{man['objective']} {value}: nothing smaller exists"
    said = (f"no tree of depth <= {question['max_depth']}" + ("" if question["max_splits"] is None else
                                                           f" with <= {question['max_splits']} splits"))
    if "claims" in man["files"]:  # the DP route: every tree of the question's depth costs >= m + 2 with
        m = question["max_splits"]  # cost = (m + 2) errors + leaves, so an error-free one has > m splits
        q, lc, need = (1, 0, 1) if m is None else (m + 2, 1, m + 2)
        cst = _Costs(X, y, len(classes), q, lc)
        if _check_claims(os.path.join(d, man["files"]["claims"]), man, cst, question["max_depth"]) < need:
            raise Invalid(f"claim root: does not prove {need} for the question {question}")
        return f"{man['objective']} {value}: {said} classifies every row (lower-bound DAG)"
    import drup

    rows = [int(i) for i in man["witness_rows"]]
    if not rows or min(rows) < 0 or max(rows) >= X.shape[0] or len(set(rows)) != len(rows):
        raise Invalid("witness_rows: not distinct row indices of the data")
    _, clauses, _, _ = encode(X[rows], y[rows], len(classes), question["max_depth"], question["max_splits"])
    with _open(os.path.join(d, man["files"]["cnf"])) as fh:
        stored = _parse_dimacs(fh.read())
    reference = {tuple(sorted(c)) for c in clauses}
    for i, c in enumerate(stored):  # a subset of the encoding: its UNSAT is the encoding's UNSAT
        if tuple(sorted(c)) not in reference:
            raise Invalid(f"cnf: clause {i + 1} is not a clause of the reference encoding of the witness rows")
    clauses = stored
    with _open(os.path.join(d, man["files"]["proof"])) as fh:
        lemmas = [[int(v) for v in ln.split()[:-1]] for ln in fh.read().splitlines()
                  if ln.strip() and not ln.lstrip().startswith(("d", "c"))]  # deletions: sound to skip
    if not lemmas or lemmas[-1] != [] or any(v == 0 or abs(v) >= 2 ** 31 for c in lemmas for v in c):
        raise Invalid("proof: a lemma is not a clause line ending with 0, or the last is not the empty clause")
    result = drup.check_proof(clauses, lemmas)
    if result.outcome != drup.Outcome.VALID:
        raise Invalid(f"proof: the DRUP checker says {result.outcome.name} for the witness rows")
    return f"{man['objective']} {value}: the {len(rows)} witness rows admit {said} (DRUP)"


def check(d: str) -> str:
    """Check the certificate in directory ``d``: return a one-line summary, or raise :class:`Invalid`."""
    try:
        with open(os.path.join(d, "manifest.json"), encoding="utf-8") as fh:
            man = json.load(fh)
    except (OSError, ValueError) as exc:
        raise Invalid(f"manifest.json: {exc}") from None
    if man.get("format") != FORMAT or man.get("version") != VERSION:
        raise Invalid(f"manifest.json: not a {FORMAT} version {VERSION} certificate")
    try:
        X, labels = read_data(os.path.join(d, man["files"]["data"]))
        classes = [str(c) for c in man["classes"]]
        if any(lab not in classes for lab in labels):
            raise Invalid("data: a label is not in the manifest's classes")
        y = np.array([classes.index(lab) for lab in labels], dtype=np.int64)
        n = X.shape[0]
        lam = Fraction(man["lam"]) if man.get("lam") is not None else None
        q, lc = (1, 0) if lam is None else (lam.denominator, lam.numerator * n)
        cst = _Costs(X, y, len(classes), q, lc)
        with open(os.path.join(d, man["files"]["tree"]), encoding="utf-8") as fh:
            info = _tree_cost(json.load(fh), X, y, classes, cst, _allowed(man))
        if man["kind"] == "consistent":
            return _check_consistent(d, man, X, y, classes, info)
        if man["kind"] != "dp" or man["objective"] not in ("accuracy", "regularized"):
            raise Invalid(f"manifest: unknown kind {man['kind']!r} / objective {man['objective']!r}")
        if (man["objective"] == "regularized") != (lam is not None):
            raise Invalid("manifest: the regularized objective needs lam, accuracy none")
        cost, errors, leaves, _, depth = info
        if depth > int(man["max_depth"]):
            raise Invalid(f"tree: depth {depth} above {man['max_depth']}")
        if int(man["value"]) != cost:
            raise Invalid(f"tree: costs {cost}, the manifest says {man['value']}")
        bound = _check_claims(os.path.join(d, man["files"]["claims"]), man, cst, int(man["max_depth"]))
    except (KeyError, TypeError, ValueError, OSError, EOFError) as exc:
        raise Invalid(f"malformed certificate: {type(exc).__name__}: {exc}") from None
    if bound < cost:
        raise Invalid(f"claim root: proves {bound}, the tree costs {cost}")
    what = f"{errors} errors" if lam is None else f"{errors} errors + lam {lam} x {leaves} leaves"
    return f"{man['objective']} at depth <= {man['max_depth']}: the tree ({what}) is optimal"


def main(argv: list[str] | None = None) -> int:
    """``python -m satdt.proof.check DIR``: exit 0 valid, 1 invalid (first failing claim on stderr)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m satdt.proof.check PROOF_DIR", file=sys.stderr)
        return 2
    try:
        print("valid: " + check(args[0]))
        return 0
    except Invalid as exc:
        print(f"invalid: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
