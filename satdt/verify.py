"""Optimality certificates for a given tree (ours, scikit-learn's, DPDT's, JSON).

:func:`certify` answers "is this tree optimal for objective O on this data, and if not, by how
much and what is better?". The tree's value is computed with :meth:`Tree.predict` on the
original rows; the optimum comes from an exact engine over the ``all`` binarization, i.e. over
every axis-aligned tree (of the same depth unless said otherwise):

========================  ===================================================  ===============
objective                 value of a tree                                      engine
========================  ===================================================  ===============
``accuracy``              training errors, among trees of depth <= d           DP (or MIP...)
``depth``                 depth, among trees with no training error            DP (or SAT)
``size``                  nodes, among error-free trees of depth <= d          DP (or SAT)
``regularized``           errors / n + lam * leaves, depth <= d                DP (or CP-SAT)
``dpdt``                  error rate + alpha * average tests per row, <= d     exhaustive DP
========================  ===================================================  ===============

``d`` is the tree's depth unless ``max_depth`` is given. Status: ``OPTIMAL`` when the engine
proves that nothing beats the tree's value; ``NOT_OPTIMAL`` when a strictly better tree is found
(the better tree is the proof, and is returned); ``UNKNOWN`` when the time limit stopped the engine
before either; ``INFEASIBLE`` when the engine proves the search space empty (``size`` with a
``max_depth`` below the minimum depth of an error-free tree), with the proof and its bound.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .binarize import Binarizer, BinaryProblem
from .data import MISSING_HINT, DataError, Dataset, prepare
from .deadline import Deadline
from .fit import fit_problem
from .methods import METHODS
from .result import (INFEASIBLE, NOT_OPTIMAL, OBJECTIVE_NAMES, OPTIMAL, UNKNOWN, SolveResult, Status, engine_result,
                     explain_infeasible)
from .tree import Node, Tree, class_index

__all__ = ["Certificate", "certify", "certify_many", "as_tree", "tree_value", "objective_of", "OBJECTIVES",
           "NOT_OPTIMAL", "CERTIFIED", "UNDECIDED", "Status"]

CERTIFIED, UNDECIDED = OPTIMAL, UNKNOWN  # the former names of the statuses of a certificate
OBJECTIVES = tuple(OBJECTIVE_NAMES)  # "accuracy", "depth", "size", "regularized", "dpdt"
#: (objective, engine) -> the registry method whose engine answers it (:mod:`satdt.methods`)
_ENGINE_METHODS = {("accuracy", "dp"): "dp", ("accuracy", "cpsat"): "cpsat", ("accuracy", "maxsat"): "maxsat",
                   ("accuracy", "binoct"): "binoct", ("regularized", "dp"): "dp", ("regularized", "cpsat"): "cpsat",
                   ("depth", None): "sat-depth", ("size", None): "sat-size", ("dpdt", None): "dpdt"}
ACCURACY_ENGINES = tuple(e for o, e in _ENGINE_METHODS if o == "accuracy")  # dp, cpsat, maxsat, binoct
REGULARIZED_ENGINES = tuple(e for o, e in _ENGINE_METHODS if o == "regularized")  # dp, cpsat
# depth and size: DT_depth / DT_size by DP or by SAT (the registry's engines of sat-depth but "auto")
CONSISTENT_ENGINES = tuple(sorted(e for e in METHODS["sat-depth"].engines if e != "auto"))
# "auto": depth and size by the measured rule of satdt.solvers.engine_choice.choose_engine, the
# other objectives by the DP
ENGINES = ("auto",) + ACCURACY_ENGINES + ("sat",)
_EPS = 1e-9


@dataclass
class Certificate:
    """The verdict on one tree.

    Attributes
    ----------
    status : Status
        ``OPTIMAL``, ``NOT_OPTIMAL``, ``UNKNOWN`` or ``INFEASIBLE`` (:class:`~satdt.result.Status`).
        ``INFEASIBLE``: the engine proved that the search space is empty (``size`` with a
        ``max_depth`` below the minimum depth of an error-free tree); ``proof`` says so and
        ``engine.stats["depth_bound"]`` is the proven lower bound on that depth.
    objective : str
        One of :data:`OBJECTIVES`.
    tree_value : float
        The given tree's value (evaluated on the data).
    optimum : float or None
        The proven optimum (None when the engine did not finish).
    bound : float or None
        Best proven lower bound on the optimum.
    best_found : float or None
        The best value the engine found.
    gap : float or None
        ``tree_value - optimum`` (or ``- best_found`` when not proven): how much the tree loses
        at least (a tree of that value exists).
    max_gap : float or None
        ``tree_value - bound``: how much the tree loses at most (no tree beats the bound). Equal
        to ``gap`` when the optimum is proven; the two enclose the true loss otherwise.
    gap_errors : int or None
        For the accuracy objective, the training errors the tree loses to the best tree found
        (None for the other objectives, whose best trees may trade errors for size).
    better_tree : Tree or None
        A tree strictly better than the given one, when one was found.
    max_depth : int
        Depth bound of the search space.
    engine : SolveResult or None
    runtime : float
    proof : str or None
        What an ``INFEASIBLE`` status proves, in one sentence.
    """

    status: Status
    objective: str
    tree_value: float
    optimum: float | None
    bound: float | None
    best_found: float | None
    gap: float | None
    gap_errors: int | None
    better_tree: Tree | None
    max_depth: int | None
    engine: SolveResult | None = None
    runtime: float = 0.0
    params: dict = field(default_factory=dict)
    max_gap: float | None = None
    proof: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``satdt verify --json``."""
        return {"status": self.status, "objective": self.objective, "tree_value": self.tree_value,
                "optimum": self.optimum, "bound": self.bound, "best_found": self.best_found,
                "gap": self.gap, "max_gap": self.max_gap, "gap_errors": self.gap_errors, "max_depth": self.max_depth,
                "params": self.params, "runtime_s": round(self.runtime, 4),
                "engine": None if self.engine is None else self.engine.summary(),
                "better_tree": None if self.better_tree is None else self.better_tree.to_dict(),
                "proof": self.proof,
                "depth_bound": None if self.engine is None else self.engine.stats.get("depth_bound")}


# ---------------------------------------------------------------------------- trees in
def _sklearn_tree_on_data(model: Any, data: Dataset) -> Tree:
    """A scikit-learn tree as a satdt Tree whose splits route every training row the same way.

    scikit-learn compares ``float32(x) <= threshold``; each split is mapped to the midpoint
    between the largest training value sent left and the smallest sent right, so the satdt tree
    routes every training row exactly as scikit-learn does (not merely by nearest value).
    """
    est = model.tree_
    X32 = data.X.astype(np.float32)
    index = class_index(model.classes_, data.classes)

    def rec(i: int) -> Node:
        if est.children_left[i] < 0:
            return Node.leaf(index[int(np.argmax(est.value[i, 0]))])
        f, t = int(est.feature[i]), float(est.threshold[i])
        left = X32[:, f] <= t
        values = data.X[:, f]
        if left.any() and (~left).any():
            lo, hi = values[left].max(), values[~left].min()
            threshold = (lo + hi) / 2.0 if (lo + hi) / 2.0 < hi else lo
        else:
            threshold = t
        return Node.split(f, threshold, rec(est.children_left[i]), rec(est.children_right[i]))

    return Tree(rec(0), classes=data.classes, feature_names=data.feature_names)


def as_tree(obj: Any, data: Dataset) -> Tree:
    """Any supported tree, as a satdt :class:`Tree` over ``data``'s features and classes.

    Accepts a :class:`Tree`, a dict from :meth:`Tree.to_dict`, a fitted scikit-learn
    ``DecisionTreeClassifier`` (mapped by routing on ``data``), or a fitted satdt estimator.
    """
    if isinstance(obj, dict):
        obj = Tree.from_dict(obj)
    fitted_names = getattr(obj, "feature_names_in_", None)  # (a scikit-learn or satdt estimator fit on a DataFrame)
    if fitted_names is not None:
        _same_columns(list(map(str, fitted_names)), data, reordered_only=False)
    if hasattr(obj, "tree_") and isinstance(getattr(obj, "tree_"), Tree):
        obj = obj.tree_
    if isinstance(obj, Tree):
        if obj.feature_names is not None:
            _same_columns(list(map(str, obj.feature_names)), data, reordered_only=True)
        tree = obj.relabeled(data.classes, data.X.shape[1])
        tree.feature_names = list(data.feature_names)
        return tree.fit_counts(data.X, data.y)
    if hasattr(obj, "tree_") and hasattr(obj, "classes_"):
        if getattr(obj, "n_features_in_", data.X.shape[1]) != data.X.shape[1]:
            raise ValueError(f"the model was fitted on {obj.n_features_in_} features, the data has "
                             f"{data.X.shape[1]}")
        return _sklearn_tree_on_data(obj, data).fit_counts(data.X, data.y)
    raise ValueError(f"cannot read a tree from {type(obj).__name__}: expected a satdt Tree, its dict, "
                     "a fitted scikit-learn DecisionTreeClassifier or a fitted satdt estimator")


def _same_columns(names: list[str], data: Dataset, reordered_only: bool) -> None:
    """ValueError when the tree's feature ``names`` (those it was fit on) and the data's named columns
    differ, as a fitted model's ``predict`` refuses them: its tests read columns by position, so the tree
    would be judged on other columns than its own. Data without names (numpy: ``x0``, ``x1``...; a
    DataFrame's default 0, 1, ... columns, which scikit-learn's ``predict`` also reads by position) is read
    by position; a tree's stored names (``reordered_only``) only when they are the data's in another order."""
    have = [str(n) for n in data.feature_names]
    if names == have or have in ([f"x{j}" for j in range(len(have))], [str(j) for j in range(len(have))]):
        return
    first = next((j for j, (a, b) in enumerate(zip(names, have)) if a != b), min(len(names), len(have)))
    where = f"column {first}: {have[first] if first < len(have) else 'none'!r} in the data, " \
            f"{names[first] if first < len(names) else 'none'!r} at fit"
    if sorted(names) == sorted(have):
        raise ValueError(f"the data has the columns the tree was fit on in another order ({where}): "
                         "reorder them as at fit")
    if not reordered_only:
        raise ValueError(f"the feature names of the data differ from those the tree was fit on ({where})")


def _grouped_categories(tree: Tree, data: Dataset) -> str | None:
    """The first test of ``tree`` splitting a categorical column by a range of its codes with several
    categories on each side (a scikit-learn tree fit on the codes ``data.X`` holds), as text; None when
    every test is in satdt's search space (a test of one category alone on a side is ``x == v``)."""
    categories = getattr(data.schema, "categories", None) or {}
    for node in tree.nodes():
        names = categories.get(node.feature)
        if node.is_leaf or names is None or node.category is not None:
            continue
        left = [str(v) for code, v in enumerate(names) if code <= node.threshold]
        if 2 <= len(left) <= len(names) - 2:
            return (f"splits the categorical column {data.feature_names[node.feature]!r} by its codes (<= "
                    f"{node.threshold:g}: categories {', '.join(left)} on one side)")
    return None


# ---------------------------------------------------------------------------- values
def complete_data(load: Any, *args: Any) -> Dataset:
    """``load(*args)`` (:func:`~satdt.data.prepare`, :func:`~satdt.datasets.load_dataset`) for judging a tree:
    a NaN's error says that trees are judged on complete data (fitting with missing='learn' does not apply)."""
    try:
        return load(*args)
    except DataError as exc:
        why = ": certify / satdt verify judge a tree on complete data"
        raise DataError(str(exc).replace(f", {MISSING_HINT}", why)) from None


def tree_value(tree: Tree, data: Dataset, objective: str, lam: float | None = None,
               alpha: float | None = None) -> float:
    """The tree's value for ``objective`` (or its :class:`SolveResult` name, :func:`objective_of`)
    on ``data`` (see the module table)."""
    objective = objective_of(objective)
    errors = int(tree.errors(data.X, data.y))
    n = data.n_rows
    if objective == "accuracy":
        return float(errors)
    if objective == "depth":
        return float(tree.depth())
    if objective == "size":
        return float(tree.n_nodes)
    if objective == "regularized":
        return errors / n + lam * tree.n_leaves
    if objective == "dpdt":
        return errors / n + alpha * tree.average_tests(data.X)
    raise AssertionError(objective)  # objective_of accepts only the objectives above


def objective_of(name: str) -> str:
    """The objective of :data:`OBJECTIVES` that ``name`` denotes: itself, or the name a
    :class:`SolveResult` gives it (``"errors"`` for ``accuracy``, ``"nodes"`` for ``size``)."""
    for objective, result_name in OBJECTIVE_NAMES.items():
        if name in (objective, result_name):
            return objective
    raise ValueError(f"unknown objective '{name}'; choose one of {', '.join(OBJECTIVES)}")


def _check_args(objective: str, lam: float | None, alpha: float | None, engine: str) -> None:
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective '{objective}'; choose one of {', '.join(OBJECTIVES)}")
    if objective == "regularized" and (lam is None or not lam >= 0):
        raise ValueError("the regularized objective needs lam >= 0")
    if objective == "dpdt" and (alpha is None or not alpha >= 0):
        raise ValueError("the dpdt objective needs alpha >= 0")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine '{engine}'; choose one of {', '.join(ENGINES)}")
    allowed = {"accuracy": ACCURACY_ENGINES, "regularized": REGULARIZED_ENGINES, "depth": CONSISTENT_ENGINES,
               "size": CONSISTENT_ENGINES}.get(objective)
    if allowed is not None and engine != "auto" and engine not in allowed:
        raise ValueError(f"the {objective} objective is solved by {' or '.join(allowed)}, not '{engine}'")


# ---------------------------------------------------------------------------- engines
def _run_engine(problem: BinaryProblem, objective: str, depth: int, lam: float | None,
                alpha: float | None, time_limit: float | Deadline | None, engine: str) -> SolveResult:
    """The exact engine of ``objective`` by the one fit path (:func:`satdt.fit.fit_problem`)."""
    if objective in ("depth", "size"):
        problem.check_consistent()
        return fit_problem(_ENGINE_METHODS[objective, None], problem, time_limit, engine=engine, max_depth=depth)
    if objective == "dpdt":
        # DPDT's backward induction with every split at every state: exact over all axis-aligned
        # trees of depth <= ``depth`` (exponential; the state budget raises a clear error)
        res = fit_problem("dpdt", problem.data, time_limit, max_depth=max(depth, 1), alphas=[alpha], alpha=alpha,
                          generator="exhaustive")
        complete = not res.stats.get("truncated", False)
        return engine_result(res.tree, res.objective, proven=complete, runtime=res.runtime, method="dpdt-exhaustive",
                             objective_name=OBJECTIVE_NAMES["dpdt"], stats=res.stats)
    engine = "dp" if engine == "auto" else engine
    if objective == "accuracy" and depth == 0:
        return _single_leaf_result(problem)
    method = _ENGINE_METHODS[objective, engine]
    if objective == "accuracy" and engine == "cpsat":  # errors / n with lam = 0: back to errors
        res = fit_problem(method, problem, time_limit, lam=0.0, max_depth=depth)
        return _rescale(res, problem.n_rows, OBJECTIVE_NAMES["accuracy"])
    return fit_problem(method, problem, time_limit, max_depth=depth,
                       **({"lam": lam} if objective == "regularized" else {}))


def _single_leaf_result(problem: BinaryProblem) -> SolveResult:
    tree = Tree(Node.leaf(int(np.argmax(problem.counts.sum(axis=0)))), classes=problem.classes,
                feature_names=list(problem.data.feature_names)).fit_counts(problem.data.X, problem.data.y)
    errors = float(problem.n_rows - problem.counts.sum(axis=0).max())
    return engine_result(tree, errors, proven=True, runtime=0.0, method="leaf", objective_name=OBJECTIVE_NAMES["accuracy"])


def _rescale(res: SolveResult, n: int, name: str) -> SolveResult:
    """CP-SAT with lam = 0 reports errors / n: turn it back into errors."""
    scale = lambda v: None if v is None else float(round(v * n, 6))  # noqa: E731
    return SolveResult(res.tree, res.status, scale(res.objective),
                       None if res.bound is None else float(np.ceil(res.bound * n - 1e-6)),
                       res.runtime, method=res.method, objective_name=name, stats=res.stats)


# ---------------------------------------------------------------------------- certify
def certify(tree: Any, X: Any, y: Any = None, *, objective: str = "accuracy", max_depth: int | None = None,
            lam: float | None = None, alpha: float | None = None, time_limit: float | Deadline | None = None,
            engine: str = "auto", proof: str | None = None) -> Certificate:
    """Is ``tree`` optimal for ``objective`` on ``(X, y)``?

    Parameters
    ----------
    tree : Tree, dict, DecisionTreeClassifier or satdt estimator
    X, y : training data (or a :class:`Dataset` as ``X`` with ``y=None``)
    objective : {"accuracy", "depth", "size", "regularized", "dpdt"}
        Or the name a :class:`SolveResult` gives it (``"errors"``, ``"nodes"``: :data:`OBJECTIVE_NAMES`).
    max_depth : int, optional
        Depth bound of the search space (default: the tree's depth). For ``depth`` it is
        ignored: the question is whether any error-free tree is shallower.
    lam, alpha : float
        Penalties of the ``regularized`` and ``dpdt`` objectives.
    time_limit : float or Deadline, optional
        Wall-clock seconds for the engine, or a :class:`~satdt.deadline.Deadline` (the caller's
        clock, e.g. ``satdt verify``'s: the engine gets the time it has left).
    engine : {"auto", "dp", "cpsat", "maxsat", "binoct", "sat"}
        Exact engine. ``"auto"`` (default): for ``depth`` and ``size`` the engine
        :func:`satdt.solvers.engine_choice.choose_engine` picks (the certificate's
        ``engine.stats["engine"]`` and ``["engine_reason"]`` say which ran and why), for the other
        objectives the dynamic program, the fastest measured there. ``accuracy``: any but
        "sat"; ``regularized``: "dp" or "cpsat"; ``depth`` and ``size``: "dp" or "sat"
        (Avellaneda's encodings).
    proof : path, optional
        An absent or empty directory: when the optimum is proven (``OPTIMAL`` or ``NOT_OPTIMAL``),
        write there a certificate that the independent checker verifies (``satdt check DIR``,
        :mod:`satdt.proof`): the given tree if optimal (the engine's tree of the same value when the given one
        splits a categorical column by a range of codes), else the better tree, with the proof that
        nothing beats it (objectives ``accuracy``, ``regularized``, ``depth``, ``size``).
        ``params["certificate"]`` then holds its figures. Producing it gets ``time_limit`` again;
        past it, a RuntimeWarning, no certificate, and ``params["no_certificate"]`` says why.

    Returns
    -------
    Certificate
    """
    if proof is not None:
        from .proof import prepare_directory

        prepare_directory(proof)  # refused before the solve, not after
        if objective_of(objective) == "dpdt":
            raise ValueError("no certificate for the dpdt objective; proof= works for accuracy, regularized, "
                             "depth and size")
    cert = certify_many([tree], X, y, objective=objective, max_depth=max_depth, lam=lam, alpha=alpha,
                        time_limit=time_limit, engine=engine)[0]
    if proof is not None and cert.status in (OPTIMAL, NOT_OPTIMAL) and cert.optimum is not None:
        from fractions import Fraction

        from .proof import out_of_time, own_budget, write_certificate

        data = X if isinstance(X, Dataset) else prepare(X, y)
        best = as_tree(tree, data) if cert.status == OPTIMAL else cert.better_tree
        if cert.status == OPTIMAL and _grouped_categories(best, data) is not None:
            best = cert.engine.tree  # (its value is the given tree's; a range of codes has no certificate form)
        lam_cert = None
        if cert.objective == "regularized":
            lam_cert = Fraction(str(lam))  # as written: 0.01 = 1/100
        budget = own_budget(time_limit)  # (as long again as the engine's: `satdt solve --proof`'s rule)
        try:
            cert.params["certificate"] = write_certificate(proof, best, data, cert.objective,
                                                           max_depth=cert.max_depth, lam=lam_cert, time_limit=budget)
        except (TimeoutError, ValueError) as exc:  # (the answer stands; nothing written, the directory as it was)
            cert.params["no_certificate"] = out_of_time(budget) if isinstance(exc, TimeoutError) else str(exc)
            warnings.warn(f"certify: no certificate written to {proof}: {cert.params['no_certificate']}",
                          RuntimeWarning, stacklevel=2)
    return cert


def _refuse_deeper(tree: Tree, value: float, found: float | None, depth: int, objective: str) -> None:
    """Refuse a tree deeper than ``depth`` that is no worse than the best tree found of depth <= ``depth``.

    Such a tree is outside the search space it would be judged in (a deeper tree strictly worse than
    the optimum is not: the better tree is in its own space too, so it is NOT_OPTIMAL).

    Raises
    ------
    ValueError
        Always, naming the tree's depth, ``max_depth`` and both values.
    """
    head = f"the tree has depth {tree.depth()}, more than max_depth {depth}"
    if found is None:
        against = "and no tree of depth <= {depth} was found to judge it against".format(depth=depth)
    else:
        unit = " nodes" if objective == "size" else ""
        than = "fewer than" if value < found - _EPS else "as few as" if objective == "size" else "no worse than"
        best = "smallest error-free tree" if objective == "size" else "best tree"
        against = f"and {value:g}{unit}, {than} the {found:g} of the {best} of depth <= {depth}"
    raise ValueError(f"{head}, {against}: it is outside that search space; give a larger max_depth or none")


def certify_many(trees: list[Any], X: Any, y: Any = None, *, objective: str = "accuracy",
                 max_depth: int | None = None, lam: float | None = None, alpha: float | None = None,
                 time_limit: float | Deadline | None = None, engine: str = "auto") -> list[Certificate]:
    """Certify several trees against one engine run (depth bound: the deepest tree's, or ``max_depth``).

    Parameters are those of :func:`certify`. Each tree is judged against the same optimum, so
    certifying CART, DPDT and any other heuristic of one depth costs one exact solve.
    """
    start = time.perf_counter()
    objective = objective_of(objective)
    _check_args(objective, lam, alpha, engine)
    if not trees:
        raise ValueError("no tree to certify")
    data = X if isinstance(X, Dataset) else complete_data(prepare, X, y)
    given = [as_tree(t, data) for t in trees]
    values = [tree_value(t, data, objective, lam, alpha) for t in given]
    for t in given:
        errors = int(tree_value(t, data, "accuracy"))
        if objective in ("depth", "size") and errors > 0:
            raise ValueError(f"the tree misclassifies {errors} training row(s); '{objective}' optimality "
                             "is about trees with no training error: use objective='accuracy'")
    if objective == "depth" or max_depth is None:
        depth = max(t.depth() for t in given)
    else:
        depth = int(max_depth)
    problem = Binarizer("all").problem(data)
    res = _run_engine(problem, objective, depth, lam, alpha, time_limit, engine)
    if res.objective_name != OBJECTIVE_NAMES[objective]:
        raise RuntimeError(f"internal error: the engine answered for objective '{res.objective_name}', "
                           f"not '{OBJECTIVE_NAMES[objective]}'; please report this")
    if res.status == INFEASIBLE:
        # proven: no tree of the search space (e.g. error-free trees of depth <= max_depth, below the
        # given trees' depth) exists; a result with its bound, not a failure
        explain_infeasible(res, max_depth=depth)
        return [Certificate(
            status=INFEASIBLE, objective=objective, tree_value=value, optimum=None, bound=res.bound,
            best_found=None, gap=None, max_gap=None, gap_errors=None, better_tree=None, max_depth=depth,
            engine=res, runtime=time.perf_counter() - start, proof=res.stats.get("proof"),
            params={k: v for k, v in (("lam", lam), ("alpha", alpha), ("engine", engine)) if v is not None})
            for value in values]
    found = None if res.tree is None else tree_value(res.tree, data, objective, lam, alpha)
    proven = res.status == OPTIMAL
    optimum = found if proven else None
    bound = res.bound if res.bound is not None else optimum
    reference = optimum if optimum is not None else found
    runtime = time.perf_counter() - start
    certificates = []
    for tree, value in zip(given, values):
        if tree.depth() > depth and (found is None or value <= found + _EPS):
            _refuse_deeper(tree, value, found, depth, objective)
        if proven and value < found - _EPS:
            grouped = _grouped_categories(tree, data)
            if grouped is not None:
                raise ValueError(f"the tree {grouped}: a test outside the search space (one test x == v a "
                                 f"category), which it beats ({value:g} against {found:g}); one-hot encode the "
                                 "column (pandas.get_dummies) to compare trees over the same tests")
            raise RuntimeError(f"internal error: the engine's proven optimum {found} is worse than the given "
                               f"tree's value {value}; please report this")
        if found is not None and found < value - _EPS:
            status, better = NOT_OPTIMAL, res.tree
        elif proven or (bound is not None and value <= bound + _EPS):
            status, better = OPTIMAL, None
        else:
            status, better = UNKNOWN, None
        gap = None if reference is None else max(0.0, value - reference)
        max_gap = None if bound is None else max(0.0, value - bound)
        gap_errors = None
        if objective == "accuracy" and reference is not None and res.tree is not None:
            gap_errors = max(0, int(value - tree_value(res.tree, data, "accuracy")))
        certificates.append(Certificate(
            status=status, objective=objective, tree_value=value, optimum=optimum, bound=bound,
            best_found=found, gap=gap, max_gap=max_gap, gap_errors=gap_errors, better_tree=better, max_depth=depth,
            engine=res, runtime=runtime,
            params={k: v for k, v in (("lam", lam), ("alpha", alpha), ("engine", engine)) if v is not None}))
    return certificates
