"""Row weights, class weights, balanced accuracy and misclassification costs as integer counts.

Every exact engine minimizes weighted errors over the class counts of a
:class:`~satdt.binarize.BinaryProblem` (distinct rows x classes, integers). This module turns the
user's options into those integers, once, before binarization; the engines need no change.

* ``sample_weight`` (scikit-learn semantics: a weight of 2 is the row twice, zero-weight rows are
  dropped) and ``class_weight`` (``None``, ``"balanced"``: ``n / (k * n_c)`` from the unweighted
  class sizes as in scikit-learn, or a dict ``{label: weight}``) multiply into one weight per row.
* ``objective="balanced_accuracy"``: class ``c`` weighs ``1 / W_c`` (``W_c`` its total sample
  weight), so the weighted errors are ``k * (1 - balanced accuracy)``.
* ``costs`` (k x k, ``costs[i][j]`` = cost of predicting ``j`` for a row of true class ``i``): a
  row of class ``i`` and weight ``w`` becomes *pseudo rows* with the same features, one per class
  ``c``, of label ``c`` and weight ``w * (max_j costs[i][j] - costs[i][c])`` (the zero ones
  dropped). A leaf's weighted majority over the pseudo rows is its least-cost class, and every
  tree's weighted errors on the pseudo rows equal its total cost plus a constant ``K``
  (``sum_rows w * ((k - 1) * max_j costs[i][j] - sum_c costs[i][c])``), so the most accurate
  tree on them is the least-cost tree, for every engine that minimizes weighted errors. Costs
  that depend only on the true class (``costs[i][j] = c_i`` for ``j != i``, 0 on the diagonal)
  are class weights, and give no extra rows.

Integers: the per-row factors are read as exact fractions (a float weight is the fraction of
smallest denominator <= 10**6 that rounds to the same float, so 0.1 is 1/10; otherwise the float's
exact value; with more than 4096 distinct non-whole weights they are rounded directly); with ``D`` the least common multiple of their denominators and ``G`` the greatest
common divisor of the products, the integer weight of a row is ``factor * D / G`` (``scale = D /
G``), exactly, when the total stays below :data:`EXACT_LIMIT` (2**40; 2**20 for the MIP and
CP-SAT engines, whose objectives lose exactness with large coefficients). Otherwise the factors
are scaled by ``s = ROUND_TOTAL / total`` (2**32 / total; 2**20 / total for MIP and CP-SAT; the DP with
``lam``: the largest total its exact objective carries at the depth) and rounded to the nearest integer
(when that passes the limit, by up to half a unit a row, ``s`` aims lower by the rows' count): every
tree's weighted objective then moves by at most ``m / (2 s)`` in the user's units (``m`` pseudo
rows), so the tree returned as optimal for the rounded weights is within ``m / s`` of the true
optimum (``stats["weight_rounding_bound"]``; 0 when exact). The integers stay below 2**53 in the
engines' sums (the DP's costs are exact integers in doubles).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .data import DataError, Dataset

__all__ = ["WeightPlan", "plan_weights", "check_sample_weight", "class_factors", "error_factors", "OBJECTIVES",
           "EXACT_LIMIT", "ROUND_TOTAL", "load_costs", "relabel_for_options"]

#: accuracy objectives the depth-bounded exact estimators take
OBJECTIVES = ("accuracy", "balanced_accuracy")
#: largest total integer weight kept exact
EXACT_LIMIT = 2 ** 40
#: total integer weight after rounding, when the exact integers would exceed EXACT_LIMIT
ROUND_TOTAL = 2 ** 32
_MAX_DENOMINATOR = 10 ** 6
#: the refusal of costs with other class weights
COSTS_ALONE = "costs already weigh the classes; leave class_weight=None and objective='accuracy'"
#: the refusal of a cost matrix that is not class weights by the regularized objectives
GENERAL_COSTS_ONLY = ("a cost matrix that does not depend on the true class alone applies to the accuracy "
                      "objective only: DPTreeClassifier (lam=None), MaxSATTreeClassifier, BinOCTClassifier")
#: more distinct real (non-whole) weights than this are rounded without looking for a common denominator
_MANY_VALUES = 4096


def check_sample_weight(sample_weight: Any, n: int) -> np.ndarray | None:
    """``sample_weight`` as a float array of length ``n`` (None stays None); DataError when it is
    not one finite, non-negative number per row."""
    if sample_weight is None:
        return None
    if np.isscalar(sample_weight):
        w = np.full(n, sample_weight, dtype=float) if isinstance(sample_weight, (int, float, np.number)) else None
    else:
        try:
            w = np.asarray(sample_weight)       # (an array-like: np.iscomplexobj would dispatch on it)
            w = None if np.iscomplexobj(w) else w.astype(float)
        except (TypeError, ValueError):
            w = None
    if w is None:
        kind = getattr(getattr(sample_weight, "dtype", None), "name", None)
        raise DataError(f"sample_weight must be real numbers, got {type(sample_weight).__name__}"
                        + (f" of {kind}" if kind else ""))
    if w.ndim != 1 or w.shape[0] != n:
        raise DataError(f"sample_weight.shape == {w.shape}, expected ({n},): one weight per row")
    if not np.isfinite(w).all():
        raise DataError("sample_weight has NaN or infinite value(s)")
    if (w < 0).any():
        raise DataError("Negative values in data passed to sample_weight: weights must be >= 0")
    if not (w > 0).any():
        raise DataError("sample_weight: every weight is zero; at least one row needs a positive weight")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):  # (the objectives, weighted errors, would be infinite)
        raise DataError(f"sample_weight sums past the largest float ({np.finfo(float).max:.3g}); divide the weights "
                        "by a constant (the same optimum)")
    return w


def _fraction(x: float) -> Fraction:
    """The fraction of smallest denominator <= 10**6 that rounds to ``x`` (``Fraction.
    limit_denominator``'s closest one), else ``x``'s exact value. The continued fraction runs
    on plain integers: the same answer as ``Fraction(x).limit_denominator(10**6)`` without its
    Fraction objects (a fit with many distinct float weights makes one call per weight)."""
    x = float(x)
    num, den = x.as_integer_ratio()
    if den <= _MAX_DENOMINATOR:
        return Fraction(num, den)
    # Fraction.limit_denominator: the convergents p1/q1 and the semiconvergent
    # (p0 + k p1)/(q0 + k q1); the closer to num/den, p1/q1 on a tie
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = num, den
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > _MAX_DENOMINATOR:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
    k = (_MAX_DENOMINATOR - q0) // q1
    pb, qb = p0 + k * p1, q0 + k * q1
    # |p1/q1 - num/den| <= |pb/qb - num/den|, cross-multiplied (positive denominators)
    if abs(p1 * den - num * q1) * qb <= abs(pb * den - num * qb) * q1:
        p, q = p1, q1
    else:
        p, q = pb, qb
    if p / q == x:  # int true division rounds correctly, as float(Fraction) does
        return Fraction(p, q)
    return Fraction(num, den)


def class_factors(y: np.ndarray, classes: np.ndarray, class_weight: Any, objective: str,
                  sample_weight: np.ndarray | None) -> list[Fraction]:
    """The weight of each class (exact fractions) from ``class_weight`` and ``objective``."""
    k = len(classes)
    size = np.bincount(y, minlength=k)
    factors = [Fraction(1)] * k
    if class_weight is None:
        pass
    elif isinstance(class_weight, str) and class_weight == "balanced":
        n = int(size.sum())
        factors = [Fraction(n, k * int(s)) if s else Fraction(1) for s in size]
    elif isinstance(class_weight, dict):
        named: dict[int, Any] = {}
        for key, value in class_weight.items():
            i = class_position(key, classes)
            if i is None:
                raise DataError(f"class_weight names class {key!r}, which is not a class of y "
                                f"({np.asarray(classes).tolist()})")
            if named.setdefault(i, key) is not key:  # (1 and "1": one class, two weights)
                raise DataError(f"class_weight names the class {np.asarray(classes).tolist()[i]!r} twice, as "
                                f"{named[i]!r} and {key!r}")
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                    or not math.isfinite(value) or value < 0:
                raise DataError(f"class_weight[{key!r}] must be a finite number >= 0, got {value!r}")
            factors[i] = _fraction(value)
    else:
        raise DataError(f"class_weight must be None, 'balanced' or a dict {{label: weight}}, got {class_weight!r}")
    if objective == "balanced_accuracy":
        if class_weight is not None:
            raise DataError("objective='balanced_accuracy' already weighs the classes; leave class_weight=None")
        total = [Fraction(0)] * k
        for c in range(k):
            if sample_weight is None:
                total[c] = Fraction(int(size[c]))
            else:
                vals, cnt = np.unique(sample_weight[y == c], return_counts=True)
                total[c] = sum((_fraction(v) * int(m) for v, m in zip(vals, cnt)), Fraction(0))
        factors = [Fraction(1) / t if t else Fraction(1) for t in total]
    elif objective not in OBJECTIVES:
        raise DataError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return factors


def load_costs(costs: Any, classes: np.ndarray) -> list[list[Fraction]] | None:
    """``costs`` as a k x k matrix of exact fractions in the order of ``classes``; DataError unless it is
    finite, k x k. A pandas DataFrame labelled by the classes (index: true, columns: predicted) is read by
    its labels, in any order (it was read by position: the same costs in another order, another tree)."""
    if costs is None:
        return None
    n_classes = len(classes)
    labels = getattr(costs, "index", None), getattr(costs, "columns", None)
    if labels[0] is not None and labels[1] is not None:
        costs = _by_labels(costs, labels, classes)
    try:
        c = np.asarray(costs, dtype=float)
    except (TypeError, ValueError):
        raise DataError("costs must be a k x k matrix of numbers") from None
    if c.shape != (n_classes, n_classes):
        raise DataError(f"costs has shape {c.shape}, expected ({n_classes}, {n_classes}) for {n_classes} classes "
                        "(row: true class, column: predicted class, in the order of classes_)")
    if not np.isfinite(c).all():
        raise DataError("costs has NaN or infinite entries")
    return [[_fraction(v) for v in row] for row in c]


def class_position(label: Any, classes: np.ndarray) -> int | None:
    """The index of the class ``label`` names: equal to it, else the same text (``"1"`` for 1), else a text of
    the same number (``"1"`` for 1.0); None if none."""
    values = np.asarray(classes).tolist()
    found = next((j for j, c in enumerate(values) if c == label), None)
    found = found if found is not None else {str(c): j for j, c in enumerate(values)}.get(str(label))
    if found is None and isinstance(label, str):  # ("1" of a file for the class 1.0)
        try:
            number = float(label)
        except ValueError:
            return None
        found = next((j for j, c in enumerate(values) if isinstance(c, (int, float)) and not isinstance(c, bool)
                      and c == number), None)
    return found


def _by_labels(costs: Any, labels: tuple, classes: np.ndarray) -> np.ndarray:
    """A labelled cost matrix (a DataFrame) in the order of ``classes``, decided per side: a side with labels
    0 .. k - 1 (pandas' default) is read by position, a labelled side by its labels. DataError when a labelled
    side's labels are not the classes, each once."""
    k = len(classes)
    by_position = [list(axis) == list(range(len(axis))) for axis in labels]
    if all(by_position) or any(len(axis) != k for axis in labels):  # (a wrong shape: load_costs says so)
        return np.asarray(costs)
    order = [list(range(k)) if plain else [class_position(label, classes) for label in axis]
             for plain, axis in zip(by_position, labels)]
    if any(None in o or sorted(o) != list(range(k)) for o in order):
        raise DataError(f"costs' row and column labels must be the classes {np.asarray(classes).tolist()}, each "
                        f"once (rows: {list(labels[0])}, columns: {list(labels[1])})")
    out = np.empty((k, k), dtype=object)
    out[np.ix_(order[0], order[1])] = np.asarray(costs, dtype=object)
    return out


def _class_weight_costs(costs: list[list[Fraction]]) -> list[Fraction] | None:
    """The class weights ``c_i`` when ``costs[i][j] = m_i + c_i * (j != i)`` with ``c_i >= 0``
    (costs that depend only on the true class, up to a constant per class), else None."""
    out = []
    for i, row in enumerate(costs):
        others = {v for j, v in enumerate(row) if j != i}
        if len(others) > 1 or (others and min(others) < row[i]):
            return None
        out.append((min(others) - row[i]) if others else Fraction(0))
    return out


def error_factors(y: np.ndarray, classes: np.ndarray, class_weight: Any, objective: str,
                  sample_weight: np.ndarray | None, costs: Any = None) -> np.ndarray:
    """Each class's weight (floats) on an error: a cost matrix's class weights (the only costs the regularized
    objective, weighted errors / total weight + lam x leaves, takes), else :func:`class_factors`'."""
    cost = load_costs(costs, classes)
    simple = None if cost is None else _class_weight_costs(cost)
    if cost is not None and simple is None:
        raise DataError(GENERAL_COSTS_ONLY)
    factors = simple if simple is not None else class_factors(y, classes, class_weight, objective, sample_weight)
    return np.array([float(v) for v in factors])


@dataclass
class WeightPlan:
    """The data the engines see, and how to read their objective back in the user's units.

    ``data`` holds integer weights (``data.weight``); its rows are the original rows with a
    positive weight (``rows``: their index in the input), or with ``costs`` the pseudo rows.
    User objective = (engine weighted errors - ``offset``) / ``scale`` (+ ``cost_base`` for costs).
    """

    data: Dataset
    rows: np.ndarray
    scale: Fraction
    offset: Fraction = Fraction(0)
    cost_base: Fraction = Fraction(0)
    rounding_bound: float = 0.0
    exact: bool = True
    pseudo: bool = False
    weighted: bool = False

    def user_value(self, engine_errors: float) -> float:
        """An engine's weighted errors in the user's units (weighted errors, or total cost)."""
        return float(Fraction(engine_errors) / self.scale - self.offset + self.cost_base)

    def stats(self) -> dict:
        out = {"weighted": True, "weight_scale": str(self.scale), "weight_exact": self.exact,
               "weight_rounding_bound": self.rounding_bound}
        if self.pseudo:
            out.update(cost_offset=float(self.offset))
        if self.cost_base:
            out.update(cost_base=float(self.cost_base))
        return out


def plan_weights(data: Dataset, sample_weight: np.ndarray | None = None, class_weight: Any = None,
                 objective: str = "accuracy", costs: Any = None, limit: int = EXACT_LIMIT) -> WeightPlan:
    """The weighted data of the options (see the module doc). With every option at its default the
    data is returned unchanged (``weight`` None, scale 1). ``limit``: the largest total integer
    weight (the exact integers above it are rounded to a total of ``min(limit, ROUND_TOTAL)``;
    the MIP and CP-SAT estimators pass 2**20, as their objectives lose exactness with large
    coefficients)."""
    y, k = data.y, len(data.classes)
    cost = load_costs(costs, data.classes)
    if cost is not None and (class_weight is not None or objective != "accuracy"):
        raise DataError(COSTS_ALONE)
    factors = class_factors(y, data.classes, class_weight, objective, sample_weight)
    pseudo_labels = None
    base_per_class = [Fraction(0)] * k      # the cost every row of class i pays whatever is predicted
    offset_per_class = [Fraction(0)] * k    # pseudo-row errors above the cost, per unit weight
    if cost is not None:
        simple = _class_weight_costs(cost)
        if simple is not None:
            factors = simple
            base_per_class = [cost[i][i] for i in range(k)]
        else:
            top = [max(row) for row in cost]
            pseudo_labels = [[(c, top[i] - cost[i][c]) for c in range(k) if top[i] - cost[i][c] > 0]
                             for i in range(k)]
            offset_per_class = [(k - 1) * top[i] - sum(cost[i]) for i in range(k)]
    plain = sample_weight is None and all(f == 1 for f in factors) and pseudo_labels is None \
        and all(b == 0 for b in base_per_class)
    if plain:
        return WeightPlan(data=data, rows=np.arange(data.n_rows), scale=Fraction(1))

    # pseudo rows: (original row, label, class factor); one per row unless a general cost matrix
    n = data.n_rows
    if pseudo_labels is None:
        src, lab, fac_index = np.arange(n), y, y
        fac = factors
    else:
        pairs = [(i, c, f) for i in range(k) for c, f in pseudo_labels[i]]
        fac = [f for _, _, f in pairs]
        src_l, lab_l, idx_l = [], [], []
        for p, (i, c, _) in enumerate(pairs):
            rows = np.flatnonzero(y == i)
            src_l.append(rows)
            lab_l.append(np.full(len(rows), c, dtype=np.int64))
            idx_l.append(np.full(len(rows), p, dtype=np.int64))
        src = np.concatenate(src_l) if src_l else np.empty(0, dtype=np.int64)
        lab = np.concatenate(lab_l) if lab_l else np.empty(0, dtype=np.int64)
        fac_index = np.concatenate(idx_l) if idx_l else np.empty(0, dtype=np.int64)
        order = np.lexsort((fac_index, src))          # the pseudo rows of one row together
        src, lab, fac_index = src[order], lab[order], fac_index[order]
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    integral_sw = bool(np.all(sw == np.round(sw))) and sw.max() < 2 ** 53
    values, sw_code = np.unique(sw[src], return_inverse=True)
    sw_code = sw_code.ravel()
    many = not integral_sw and len(values) > _MANY_VALUES   # no common denominator to look for
    ints = None
    exact = True
    den = 2 ** 81
    # each pseudo row's weight x class factor over the largest weight and factor, in [0, 1]: weights near the
    # floats' ends (1e-300, 1.7e308) neither vanish nor pass them in the sums and the scale below
    top_w, fac_f = float(sw[src].max(initial=0.0)) or 1.0, np.array([float(x) for x in fac])
    top_f = float(fac_f.max(initial=0.0)) or 1.0
    unit = (sw[src] / top_w) * (fac_f / top_f)[fac_index]
    if not many:
        codes = sw_code.astype(np.int64) * len(fac) + fac_index.astype(np.int64)
        uniq, inv = np.unique(codes, return_inverse=True)
        inv = inv.ravel()
        # The exact integers are rows' factors times scale = den / g (see below); scale * p is an
        # integer for every product p = a / b (lowest terms), so scale >= lcm(b) / gcd(a) over
        # any of the products, and the exact total >= that times the factors' sum. Once that
        # exceeds the limit the answer is the rounding below, whatever the other products are:
        # stop there (random float weights: after the first product, instead of one continued
        # fraction per distinct weight). The factors' float sum is taken 1e-6 low (its
        # rounding error is far below that), so the bound is a true lower bound.
        sum_f = float(unit.sum()) * (1 - 1e-6)
        value_frac: dict[int, Fraction] = {}
        prod = []
        den, num_gcd = 1, 0
        for u in uniq.tolist():
            vi, f = u // len(fac), fac[u % len(fac)]
            v = value_frac.get(vi)
            if v is None:
                v = value_frac[vi] = Fraction(int(values[vi])) if integral_sw else _fraction(values[vi])
            p = v * f if f != 1 else v
            prod.append(p)
            den = den * p.denominator // math.gcd(den, p.denominator)
            if den > 2 ** 80:       # no small common denominator: round instead
                break
            num_gcd = math.gcd(num_gcd, p.numerator)
            if num_gcd and den / num_gcd * top_w * top_f * sum_f > limit:  # the exact total is above the limit
                den = 2 ** 81
                break
    if den <= 2 ** 80:
        ints_u = [p.numerator * (den // p.denominator) for p in prod]  # den: a multiple of each
        g = 0
        for v in ints_u:
            g = math.gcd(g, v)
        g = max(g, 1)
        ints_u = [v // g for v in ints_u]
        per_code = np.bincount(inv, minlength=len(uniq)).tolist()
        total = sum(v * m for v, m in zip(ints_u, per_code))
        if total <= limit:
            ints = np.asarray(ints_u, dtype=np.int64)[inv]
            scale = Fraction(den, g)
    if ints is None:
        total_f = float(unit.sum()) or 1.0  # (0: every factor zero, refused below)
        s = min(ROUND_TOTAL, limit) / total_f
        ints = np.rint(unit * s).astype(np.int64)
        if int(ints.sum()) > limit:  # (rounding adds up to half a unit a row: aim lower by the rows' count)
            s = max(min(ROUND_TOTAL, limit) - len(unit), 1) / total_f
            ints = np.rint(unit * s).astype(np.int64)
        scale = Fraction(s) / (Fraction(top_w) * Fraction(top_f))  # (user weight x factor = unit x top_w x top_f)
        exact = False
    keep = ints > 0
    if not keep.any():
        if cost is None:
            raise DataError("every row has weight zero after the class weights; nothing to fit")
        # every row costs the same whatever is predicted: every tree has the same cost, a leaf
        total = sum((_fraction(sw[r]) * cost[int(y[r])][0] for r in range(n)), Fraction(0))
        one = Dataset(X=data.X, y=np.zeros(n, dtype=np.int64), classes=data.classes, schema=data.schema,
                      name=data.name, weight=np.ones(n, dtype=np.int64))
        return WeightPlan(data=one, rows=np.arange(n), scale=Fraction(1), cost_base=total, weighted=True)
    rows = src[keep]
    weighted = Dataset(X=data.X[rows], y=np.asarray(lab[keep], dtype=np.int64), classes=data.classes,
                       schema=data.schema, name=data.name, weight=ints[keep])
    m = int(len(src))
    bound = 0.0 if exact else float(m / scale)
    # constants of the pseudo rows, in the user's units and in the engine's integers
    offset = Fraction(0)
    base = Fraction(0)
    if pseudo_labels is not None or any(b != 0 for b in base_per_class):
        for i in range(k):
            rows_i = np.flatnonzero(y == i)
            if not len(rows_i):
                continue
            if integral_sw:
                w_i = Fraction(int(sw[rows_i].sum()))
            elif exact:
                w_i = sum((_fraction(v) * int(c) for v, c in zip(*np.unique(sw[rows_i], return_counts=True))),
                          Fraction(0))
            else:                   # rounded weights: the constant in floats is as good
                w_i = Fraction(float(sw[rows_i].sum()))
            offset += w_i * offset_per_class[i]
            base += w_i * base_per_class[i]
    return WeightPlan(data=weighted, rows=rows, scale=scale, offset=offset, cost_base=base, rounding_bound=bound,
                      exact=exact, pseudo=pseudo_labels is not None, weighted=True)


def relabel_for_options(tree: Any, data: Dataset, class_weight: Any = None, objective: str = "accuracy",
                        costs: Any = None, lam: float | None = None,
                        general_costs: bool = True) -> tuple[float, float, str]:
    """A tree found without the options (CART's tree, the majority leaf of a fallback answer)
    in their terms: each leaf reached by ``data``'s rows is relabelled with its least-cost class
    and the tree's value, a lower bound every tree meets and the objective's name are returned
    (``"cost"``, ``"balanced_errors"``, ``"weighted_errors"``; with ``lam``, ``"regularized"``:
    weighted errors / total weight + ``lam`` * leaves, the class weights' objective of CP-SAT).
    DataError for options the fit would refuse (a general cost matrix with ``lam``, or when
    ``general_costs`` is False: OCT's objective)."""
    k = len(data.classes)
    cost = load_costs(costs, data.classes)
    if cost is not None and (class_weight is not None or objective != "accuracy"):
        raise DataError(COSTS_ALONE)
    if cost is not None and not general_costs and _class_weight_costs(cost) is None:
        raise DataError(GENERAL_COSTS_ONLY)
    if cost is None or lam is not None:  # errors weighed by class (the regularized objective: no cost of a right answer)
        factors = error_factors(data.y, data.classes, class_weight, objective, None, costs)
        cost = [[factors[i] * (i != j) for j in range(k)] for i in range(k)]
    M = np.array([[float(v) for v in row] for row in cost])
    value = 0.0
    for leaf, rows in tree.apply(data.X):
        per_class = np.bincount(data.y[rows], minlength=k) @ M
        leaf.label = int(np.argmin(per_class))
        value += float(per_class.min())
    sizes = np.bincount(data.y, minlength=k).astype(float)
    bound = float(sizes @ M.min(axis=1))
    if lam is not None:
        total = float(sizes @ M.max(axis=1))     # the classes' weights: M[i][j] = w_i off the diagonal
        if total <= 0:
            raise DataError("every row has weight zero after the class weights; nothing to fit")
        return value / total + lam * tree.n_leaves, bound / total + lam, "regularized"
    name = "cost" if costs is not None else "balanced_errors" if objective == "balanced_accuracy" \
        else "weighted_errors"
    return value, bound, name
