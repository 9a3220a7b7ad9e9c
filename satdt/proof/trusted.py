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
import os

import numpy as np

from .reference_encoding import encode

FORMAT, VERSION = "satdt-proof", 1


class Invalid(Exception):
    """The certificate is not valid; the message names the first failing claim or file."""


def open_text(path: str):
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def uniq(a: np.ndarray) -> np.ndarray:
    """The sorted distinct values of a 1-d array (numpy's ``unique`` imports ``numpy.ma``: 14-60 ms)."""
    a = np.sort(a)
    return a[np.append(True, a[1:] != a[:-1])] if a.size else a


def read_data(path: str) -> tuple[np.ndarray, list[str]]:
    """The certificate's data file: a header row, float features, the label last (a string)."""
    with open_text(path) as fh:
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


def allowed_thresholds(man: dict) -> dict | None:
    """The manifest's search space: None (every gap) or ``{feature: sorted thresholds}``."""
    listed = man.get("thresholds", "all")
    return None if listed == "all" else {int(f): uniq(np.asarray(ts, float)) for f, ts in listed.items()}


def tree_cost(tree: dict, X: np.ndarray, y: np.ndarray, classes: list[str], q: int, lc: int, allowed=None):
    """(cost ``q * errors + lc * leaves``, errors, leaves, splits, depth) of the tree on every row."""
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
    return q * errors + lc * leaves, errors, leaves, splits, depth


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
