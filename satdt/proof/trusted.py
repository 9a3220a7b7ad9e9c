"""The checker's trusted helpers (part of the checker: :mod:`satdt.proof.check` imports them).

Reading a certificate's files (the data CSV, the DIMACS formula, the DRUP lemmas), evaluating the
tree on every row, and the DRUP route: the reference encoding of the witness rows
(:mod:`satdt.proof.reference_encoding`) and the verified checker ``drup`` (extracted from Why3
code). Like the checker, this module imports only the standard library, numpy, ``drup`` and the
reference encoding (a test parses its imports).
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import zlib
from fractions import Fraction

import numpy as np

from .reference_encoding import encode

FORMAT, VERSION = "satdt-proof", 2
VERSIONS = (1, 2)  # read: version 1 is version 2 without categorical columns
# what reading a corrupted file raises (zlib.error: a garbled gzip stream; RecursionError: JSON nested too deep)
MALFORMED = (LookupError, TypeError, ValueError, AttributeError, OSError, EOFError, ArithmeticError, RecursionError,
             csv.Error, zlib.error)


class Invalid(Exception):
    """The certificate is not valid; the message names the first failing claim or file."""


def open_text(path: str):
    return gzip.open(path, "rt", encoding="utf-8", newline="") if path.endswith(".gz") else \
        open(path, encoding="utf-8", newline="")  # (newline="": csv keeps a quoted \\r)


def uniq(a: np.ndarray) -> np.ndarray:
    """The sorted distinct values of a 1-d array (numpy's ``unique`` imports ``numpy.ma``: 14-60 ms)."""
    a = np.sort(a)
    return a[np.append(True, a[1:] != a[:-1])] if a.size else a


def read_data(path: str, categorical: list | None = None, classes: list[str] | None = None):
    """The certificate's data file: a header row, the features (float literals, any string in the
    ``categorical`` columns), the label last (a string). Returns the rules' matrix
    (:func:`expand`), the labels (their indices in ``classes`` when given) and, per feature, its
    column or ``{category: column}``."""
    with open_text(path) as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 2:
        raise Invalid(f"{os.path.basename(path)}: no data rows")
    categorical = [] if categorical is None else categorical
    if not isinstance(categorical, list) or any(isinstance(f, bool) or not isinstance(f, int) for f in categorical):
        raise Invalid("manifest: categorical is not a list of column indices")
    p, cat = len(rows[0]) - 1, set(categorical)
    if p < 1 or any(len(r) != p + 1 for r in rows) or any(not 0 <= f < p for f in cat):
        raise Invalid(f"{os.path.basename(path)}: rows of unequal length, or a categorical column out of range")
    num = [f for f in range(p) if f not in cat]
    X = np.zeros((len(rows) - 1, p))
    try:
        X[:, num] = np.array([[float(r[f]) for f in num] for r in rows[1:]], dtype=float)
    except ValueError as exc:
        raise Invalid(f"{os.path.basename(path)}: {exc}") from None
    if not np.isfinite(X).all():
        raise Invalid(f"{os.path.basename(path)}: non-finite feature value")
    Xe, where = expand(X, {f: [r[f] for r in rows[1:]] for f in sorted(cat)})
    labels = [r[-1] for r in rows[1:]]
    if classes is not None:
        if any(lab not in classes for lab in labels):
            raise Invalid("data: a label is not in the manifest's classes")
        labels = np.array([classes.index(lab) for lab in labels], dtype=np.int64)
    return Xe, labels, where


def expand(X: np.ndarray, cat: dict) -> tuple[np.ndarray, list]:
    """The matrix every rule reads: a numeric feature ``f`` is its column ``X[:, f]``; a categorical
    one (``cat[f]``: its values, strings) is one 0/1 column per distinct value ``v``, 0 exactly
    where ``x_f == v``: the test ``x_f == v`` (equal goes left) is that column ``<= 0.5``, and the
    gaps of these columns are the categorical tests. Returns it and, per feature, its column or ``{v: column}``."""
    cols, where = [], []
    for f in range(X.shape[1]):
        if f not in cat:
            where.append(len(cols))
            cols.append(np.asarray(X[:, f], dtype=float))
            continue
        names = sorted(set(vals := list(cat[f])))
        index = {v: i for i, v in enumerate(names)}
        code = np.array([index[v] for v in vals], dtype=np.int64)
        where.append({v: len(cols) + i for i, v in enumerate(names)})
        cols.extend((code != np.arange(len(names))[:, None]).astype(float))
    return (np.stack(cols, 1) if cols else np.zeros((X.shape[0], 0))), where


def test_of(where: list, f, t) -> tuple[int, float]:
    """The column and threshold of the test ``(f, t)`` of a claim: ``x_f <= t`` for a numeric
    feature (t a number), ``x_f == t`` for a categorical one (t one of its values, a string)."""
    if isinstance(f, bool) or not isinstance(f, int) or not 0 <= f < len(where):
        raise Invalid(f"feature {f!r} is not a column")
    if isinstance(where[f], dict):
        if not isinstance(t, str) or t not in where[f]:
            raise Invalid(f"{t!r} is not a category of the categorical column {f}")
        return where[f][t], 0.5
    if isinstance(t, (str, bool)) or not np.isfinite(float(t)):  # (a NaN range end: every row on one side)
        raise Invalid(f"{t!r} is not a threshold of the numeric column {f} (a category test or not finite)")
    return where[f], float(t)


def path_rows(path: list, prev: list, XT: np.ndarray, where: list) -> np.ndarray:
    """The rows (of the columns ``XT``) a claim's ``path`` reaches, from the start it shares with the previous path's
    steps ``prev`` ([(step, rows)], updated: claims come in DAG order, siblings share their parent's path)."""
    i = next((i for i, (a, p) in enumerate(zip(path, prev)) if a != p[0]), min(len(path), len(prev)))
    S = prev[i - 1][1] if i else np.arange(XT.shape[1])
    del prev[i:]
    for step in path[i:]:
        e, t = test_of(where, *step[:2])
        go = XT[e].take(S) <= t
        S = S[go] if step[2] == "L" else S[~go] if step[2] == "R" else None
        prev.append((step, S))
    return S


def split_test(where: list, e: list, allowed: dict | None, at: str) -> tuple[int, float, float, str]:
    """A split entry ``[f, t, left, right]`` or range ``[f, lo, hi, left, right]`` (numeric only):
    its column, ``lo``, ``hi`` and text; Invalid unless its tests are candidates."""
    if not isinstance(e, list) or len(e) not in (4, 5):
        raise Invalid(f"{at}: an entry is not [f, t, left, right] or [f, lo, hi, left, right]")
    try:
        col, lo = test_of(where, e[0], e[1])
        hi = test_of(where, e[0], e[2])[1] if len(e) == 5 else lo
    except Invalid as exc:
        raise Invalid(f"{at}: test {e[:-2]}: {exc}") from None
    cat = isinstance(where[e[0]], dict)
    test = f"x{e[0]} == {e[1]!r}" if cat else f"x{e[0]} <= {lo!r}" + (f" .. {hi!r}" if len(e) == 5 else "")
    if (cat and len(e) == 5) or not lo <= hi or (allowed is not None and (lo not in allowed.get(col, ()) or
                                                                     hi not in allowed.get(col, ()))):
        raise Invalid(f"{at}: test {test} is not a candidate")
    return col, lo, hi, test


def labels(where: list) -> dict[int, str]:
    """Each column's test as text: ``x3 <=`` (numeric) or ``x3 == 'v'`` (a category)."""
    out = {}
    for f, w in enumerate(where):
        out.update({e: f"x{f} == {v!r}" for v, e in w.items()} if isinstance(w, dict) else {w: f"x{f} <="})
    return out


def allowed_thresholds(man: dict, where: list | None = None) -> dict | None:
    """The manifest's search space over the rules' columns: None (every gap) or ``{column: sorted
    thresholds}`` (the listed ones of each numeric feature, every category of a categorical one)."""
    listed = man.get("thresholds", "all")
    if listed == "all":
        return None
    where = list(range(int(man["n_features"]))) if where is None else where
    out = {}
    for f, ts in listed.items():
        if not 0 <= int(f) < len(where) or isinstance(where[int(f)], dict):
            raise Invalid(f"manifest: thresholds listed for column {f}, not a numeric feature")
        out[where[int(f)]] = uniq(np.asarray(ts, float))
    out.update({e: np.array([0.5]) for w in where if isinstance(w, dict) for e in w.values()})
    return out


def tree_cost(tree: dict, X: np.ndarray, y: np.ndarray, classes: list[str], q: int, lc: int, allowed=None,
              where: list | None = None):
    """(cost ``q * errors + lc * leaves``, errors, leaves, splits, depth) of the tree on every row
    (``X``, ``where``: :func:`expand`'s; a node ``{"feature": f, "category": v}`` sends the rows with
    ``x_f == v`` left, ``{"feature": f, "threshold": t}`` those with ``x_f <= t``)."""
    tree = tree.get("root", tree)
    where = list(range(X.shape[1])) if where is None else where
    stack, errors, leaves, splits, depth = [(tree, np.arange(X.shape[0]), 0)], 0, 0, 0, 0
    while stack:
        node, S, d = stack.pop()
        depth = max(depth, d)
        if "feature" in node:
            f, cat = node["feature"], node.get("category")  # (a whole number: int() would read 1.5 as 1)
            if type(f) is not int or not 0 <= f < len(where) or (cat is None) == isinstance(where[f], dict):
                raise Invalid(f"tree: a test on feature {f} is not in the search space (no such feature, a "
                              "category test on a numeric one or a threshold on a categorical one)")
            if cat is not None:  # a category absent from the data sends no row left
                e = where[f].get(str(cat))
                go = np.zeros(S.size, bool) if e is None else X[S, e] <= 0.5
            else:
                t = float(node["threshold"])
                if not np.isfinite(t) or (allowed is not None and t not in allowed.get(where[f], ())):
                    raise Invalid(f"tree: test x{f} <= {t!r} is not in the search space")
                go = X[S, where[f]] <= t
            splits += 1
            stack += [(node["left"], S[go], d + 1), (node["right"], S[~go], d + 1)]
        else:
            if str(node.get("class")) not in classes:
                raise Invalid(f"tree: unknown class {node.get('class')!r}")
            leaves += 1
            errors += int((y[S] != classes.index(str(node["class"]))).sum())
    return q * errors + lc * leaves, errors, leaves, splits, depth


def dp_question(man: dict, tree_info: tuple, lam) -> tuple[int, int, int]:
    """A dp certificate's tree's cost, errors and leaves (:func:`tree_cost`'s ``tree_info``), once its objective, lam,
    depth bound and value match the tree."""
    if man["kind"] != "dp" or man["objective"] not in ("accuracy", "regularized"):
        raise Invalid(f"manifest: unknown kind {man['kind']!r} / objective {man['objective']!r}")
    if (man["objective"] == "regularized") != (lam is not None):
        raise Invalid("manifest: the regularized objective needs lam, accuracy none")
    cost, errors, leaves, _, depth = tree_info
    if depth > int(man["max_depth"]) or int(man["value"]) != cost:
        raise Invalid(f"tree: depth {depth}, cost {cost}; the manifest: <= {man['max_depth']}, {man['value']}")
    return cost, errors, leaves


def consistent_question(man: dict, tree_info: tuple, n_rows: int) -> tuple[int, dict, str, list[int] | None]:
    """A consistent certificate's value, question (``{"max_depth", "max_splits"}``), the question as text and the
    witness rows (None when the question is vacuous: nothing smaller exists), once the tree (:func:`tree_cost`'s
    ``tree_info``) is error-free and matches them: its depth for DT_depth, its nodes and the depth bound for DT_size."""
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
    said = (f"no tree of depth <= {question['max_depth']}" + ("" if question["max_splits"] is None else
                                                           f" with <= {question['max_splits']} splits"))
    if question["max_depth"] < 0 or (question["max_splits"] is not None and question["max_splits"] < 0):
        return value, question, said, None
    rows = [int(i) for i in man["witness_rows"]]
    if not rows or min(rows) < 0 or max(rows) >= n_rows or len(set(rows)) != len(rows):
        raise Invalid("witness_rows: not distinct row indices of the data")
    return value, question, said, rows


def past_int64(n: int, lam: Fraction, max_depth: int | None) -> bool:
    """Whether costs ``q errors + lc leaves`` (lam = p / q, lc = p n) of trees of depth <= ``max_depth`` on ``n`` rows
    may pass 2^62, where the checker's int64 sums could wrap: refused by the checker, never written by the producer."""
    return lam.denominator * n + lam.numerator * n * (min(n, 2 ** min(max_depth or 62, 62)) + 2) >= 2 ** 62


def read_certificate(d: str) -> tuple:
    """The manifest of the certificate in ``d`` (its format and version checked), its data (:func:`read_data`), the
    cost's integers and the tree's cost (:func:`tree_cost`): ``(man, X, y, classes, where, space, lam, q, lc, tree_info)``;
    space: what the search space is when not every threshold (text), lam a Fraction or None, cost q errors + lc leaves."""
    try:
        with open(os.path.join(d, "manifest.json"), encoding="utf-8") as fh:
            man = json.load(fh)
    except (OSError, ValueError) as exc:
        raise Invalid(f"manifest.json: {exc}") from None
    if man.get("format") != FORMAT or man.get("version") not in VERSIONS:
        raise Invalid(f"manifest.json: not a {FORMAT} version {' or '.join(map(str, VERSIONS))} certificate")
    if any(type(man.get(k, 0)) is not int for k in ("value", "max_depth")):  # (int() would read 7.5 or "7" as 7)
        raise Invalid("manifest.json: value and max_depth must be whole numbers")
    cat = man.get("categorical", []) if man["version"] >= 2 else []  # (version 1: numeric columns only)
    classes = [str(c) for c in man["classes"]]
    X, y, where = read_data(os.path.join(d, man["files"]["data"]), cat, classes)
    lam = Fraction(man["lam"]) if man.get("lam") is not None else None
    if lam is not None and (lam < 0 or past_int64(X.shape[0], lam, man.get("max_depth"))):
        raise Invalid(f"manifest.json: lam {man['lam']} is negative or past 64-bit costs")  # (leaves cost >= 0)
    q, lc = (1, 0) if lam is None else (lam.denominator, lam.numerator * X.shape[0])
    with open(os.path.join(d, man["files"]["tree"]), encoding="utf-8") as fh:
        info = tree_cost(json.load(fh), X, y, classes, q, lc, allowed_thresholds(man, where), where)
    space = f" (categorical columns {', '.join(f'x{f}' for f in sorted(cat))}: tests x == v)" if cat else ""
    space += " (over the listed thresholds only)" * (man.get("thresholds", "all") != "all")  # (the manifest's space)
    return man, X, y, classes, where, space, lam, q, lc, info


def _parse_dimacs(text: str) -> list[list[int]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "cp":
            continue
        if not (lits := [int(v) for v in line.split()]) or lits[-1] != 0:
            raise Invalid("cnf: a clause line must end with 0")
        out.append(lits[:-1])
    return out


def drup_unsat(X: np.ndarray, y: np.ndarray, C: int, depth: int, max_splits: int | None,
               cnf_path: str, proof_path: str) -> None:
    """Raise :class:`Invalid` unless the stored formula is a subset of the reference encoding of
    "a tree of depth <= ``depth`` (<= ``max_splits`` splits) classifies (X, y)" (its UNSAT is then the
    encoding's UNSAT) and ``drup`` accepts the stored proof of its UNSAT."""
    import drup

    _, clauses, _, _ = encode(X, y, C, depth, max_splits)
    with open_text(cnf_path) as fh:
        stored = _parse_dimacs(fh.read())
    reference = {tuple(sorted(c)) for c in clauses}
    for i, c in enumerate(stored):
        if tuple(sorted(c)) not in reference:
            raise Invalid(f"cnf: clause {i + 1} is not a clause of the reference encoding of the witness rows")
    with open_text(proof_path) as fh:
        lemmas = [[int(v) for v in ln.split()[:-1]] for ln in fh.read().splitlines()
                  if ln.strip() and not ln.lstrip().startswith(("d", "c"))]  # deletions: sound to skip
    if not lemmas or lemmas[-1] != [] or any(v == 0 or abs(v) >= 2 ** 31 for c in lemmas for v in c):
        raise Invalid("proof: a lemma is not a clause line ending with 0, or the last is not the empty clause")
    result = drup.check_proof(stored, lemmas)
    if result.outcome != drup.Outcome.VALID:
        raise Invalid(f"proof: the DRUP checker says {result.outcome.name} for the witness rows")
