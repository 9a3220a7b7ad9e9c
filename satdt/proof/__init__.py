"""Certificates of optimality that an independent checker verifies (:mod:`satdt.proof.check`).

A certificate is a directory (format ``satdt-proof``, version 2; see ``FORMAT.md`` beside this
file):

=====================  ======================================================================
``manifest.json``      format, version, kind (``dp`` or ``consistent``), objective, depth
                       bound, ``lam`` (``"p/q"``), thresholds (``"all"`` or a list per feature),
                       the categorical columns, classes, value, the file names, the witness
                       rows, producer figures
``data.csv.gz``        the rows: header, float features (category strings in categorical
                       columns), the label last
``tree.json``          the tree (upper bound), as :meth:`satdt.tree.Tree.to_dict`
``claims.jsonl.gz``    ``dp``: the lower-bound DAG, one claim a line, the root last
``witness.cnf.gz``     ``consistent``: the reference encoding of the witness rows (DIMACS)
``witness.drup.gz``    ``consistent``: a DRUP proof of its UNSAT (Glucose 4, PySAT)
=====================  ======================================================================

:func:`write_certificate` produces one for an optimal tree, :func:`certify_result` for a
:class:`~satdt.result.SolveResult`; :func:`check` verifies one.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import shutil
import time
from fractions import Fraction
from typing import Any

import numpy as np

from .check import FORMAT, VERSION, Invalid, check
from .trusted import allowed_thresholds, expand, past_int64, tree_cost
from .trusted import uniq as _uniq

__all__ = ["check", "Invalid", "write_certificate", "certify_result", "own_budget", "out_of_time",
           "prepare_directory", "check_proof_data",
           "check_proof_options", "proof_for_cli", "FORMAT", "VERSION"]

_OBJECTIVES = {"errors": "accuracy", "accuracy": "accuracy", "regularized": "regularized", "depth": "depth",
               "nodes": "size", "size": "size"}


def prepare_directory(directory: str | os.PathLike) -> str:
    """Check that ``directory`` can receive a certificate: absent or empty (ValueError otherwise)."""
    directory = os.fspath(directory)
    if os.path.exists(directory):
        if not os.path.isdir(directory):
            raise ValueError(f"proof directory {directory!r} exists and is not a directory; refusing to overwrite it")
        if os.listdir(directory):
            raise ValueError(f"proof directory {directory!r} exists and is not empty; refusing to overwrite it")
    parent = os.path.dirname(os.path.abspath(directory))
    if not os.path.isdir(parent):
        raise ValueError(f"proof directory {directory!r}: its parent folder does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):  # (the files go to a temporary sibling, then renamed)
        raise ValueError(f"proof directory {directory!r}: its parent folder is not writable")
    return directory


def _write_gz(path: str, text: str) -> None:
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as fh:  # (level 6: 3x slower, 0.75x size)
        fh.write(text)


def _quoted(values) -> dict[str, str]:
    """Each distinct string as the csv module writes it (quoted when it needs to be: a line end in
    it too, which the writer quotes only when it is in its own line terminator)."""
    out = {}
    for v in set(values):
        csv.writer(cell := io.StringIO(), lineterminator="\r\n").writerow([v])
        out[v] = cell.getvalue()[:-2]
    return out


def _data_csv(X: np.ndarray, labels: list[str], names: list[str], cats: dict[int, list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(list(names) + ["label"])
    cols = []  # each distinct value's repr once per column (shortest round-trip literal)
    for j in range(X.shape[1]):
        vals = _uniq(X[:, j])
        if j in cats:  # the category strings (X holds their codes)
            q = _quoted(cats[j])
            text = [q[cats[j][int(v)]] for v in vals]
        else:
            text = [repr(float(v)) for v in vals]
        cols.append(np.array(text, dtype=object)[np.searchsorted(vals, X[:, j])])
    quoted = _quoted(labels)
    cols.append(np.array([quoted[v] for v in labels], dtype=object))
    out.write("".join(",".join(r) + "\n" for r in np.stack(cols, 1).tolist()))  # (1.4x csv's writerows)
    return out.getvalue()


def write_certificate(directory: str | os.PathLike, tree: Any, data: Any, objective: str, *,
                      max_depth: int | None = None, lam: str | Fraction | None = None,
                      thresholds: str | dict[int, list[float]] = "all", seed: int = 0,
                      time_limit: float | None = None, route: str = "auto",
                      dag_time: float = 60.0, solved: Any = None) -> dict[str, Any]:
    """Write the certificate that ``tree`` is optimal for ``objective`` on ``data``.

    Parameters
    ----------
    directory : path
        Absent or empty (refused otherwise); written through a temporary sibling and renamed.
    tree : satdt.tree.Tree
        The optimal tree (the upper bound), in the original features: thresholds on numeric
        columns, tests ``x == category`` on categorical ones.
    data : satdt.data.Dataset
        Its training rows (numeric and categorical features, each row weight 1). A categorical
        column is written as its category strings; its tests are one per category, as
        :class:`~satdt.binarize.Binarizer` makes them.
    objective : str
        ``accuracy`` (errors at depth <= ``max_depth``), ``regularized`` (``errors / n + lam *
        leaves`` at depth <= ``max_depth``, ``lam`` the engine's exact fraction ``"p/q"``),
        ``depth`` (minimum depth of a consistent tree) or ``size`` (fewest nodes of a consistent
        tree of depth <= ``max_depth``; default the tree's depth, which is the minimum depth when
        the size search chose it).
    thresholds : "all" or dict
        The search space: every axis-aligned test, or ``{feature: thresholds}``.
    time_limit : float, optional
        Seconds for the whole production (TimeoutError past it, and at once after
        :func:`satdt.deadline.interrupt`: a signal under ``satdt solve``'s policy; nothing is written).
    route : {"auto", "dag", "drup"}
        ``depth`` and ``size``: the proof that nothing smaller classifies every row, besides the
        minimal witness rows (always found): ``"drup"`` a DRUP proof over the reference encoding of
        the witness rows (checked by the verified checker, slow on large witnesses), ``"dag"`` the
        lower-bound DAG of the DP over every row (cost ``(m + 2) errors + leaves`` for ``<= m``
        splits), ``"auto"`` the DAG when it is found within ``dag_time`` seconds, else DRUP.
    solved : (BinaryProblem, CoreSearch), optional
        The DP solve's binary problem and compiled search (:meth:`~satdt.result.SolveResult.take_work`): the
        producer's depth-<=3 optima are read from its memo when the problem is the ``all`` binarization of
        ``data`` (the same rows and tests) and the search's costs are the certificate's (else it is not used).

    Returns
    -------
    dict
        ``directory``, ``kind``, ``claims`` or ``witness_rows``, ``size_mb``, ``produce_s``
        (and ``witness_s``, the witness search's part of it, for ``depth`` and ``size``).
    """
    from ..deadline import Deadline
    from ..tree import Tree

    t0 = time.perf_counter()
    budget = Deadline(time_limit)  # (expired past time_limit, or once interrupted)
    objective = _OBJECTIVES.get(objective, objective)
    if objective not in ("accuracy", "regularized", "depth", "size"):
        raise ValueError(f"no certificate for the objective {objective!r}; "
                         "choose accuracy, regularized, depth or size")
    directory = prepare_directory(directory)
    if not isinstance(tree, Tree):
        raise ValueError("write_certificate needs a satdt Tree")
    X = np.asarray(data.X, dtype=float)
    _finite(X)
    classes = [str(c) for c in data.classes]
    y = np.asarray(data.y, dtype=np.int64)
    n, C = X.shape[0], len(classes)
    cats = _category_strings(data)
    # the checker's columns (its own function): a categorical column is one 0/1 column per category
    Xe, where = expand(X, {f: np.asarray(c, dtype=object)[X[:, f].astype(np.int64)].tolist() for f, c in cats.items()})
    tree_dict = _cert_tree(tree.to_dict(), cats)
    man: dict[str, Any] = {"format": FORMAT, "version": VERSION, "objective": objective, "classes": classes,
                           "n_rows": n, "n_features": X.shape[1], "categorical": sorted(cats), "lam": None,
                           "thresholds": "all", "files": {"data": "data.csv.gz", "tree": "tree.json"}}
    files: dict[str, str] = {"data.csv.gz": _data_csv(X, [classes[i] for i in y], data.feature_names, cats)}
    out: dict[str, Any] = {}
    relabel = _relabeler(where)
    if objective in ("accuracy", "regularized"):
        from .lower import Prover

        d = int(max_depth if max_depth is not None else tree.depth())
        if objective == "regularized":
            if lam is None:
                raise ValueError("the regularized objective needs lam")
            lam_f = Fraction(lam)
            if past_int64(n, lam_f, d):  # (the checker would refuse it: its int64 costs could wrap)
                raise ValueError(f"lam {lam_f}: its costs on {n} rows pass the checker's 64-bit integers")
            man["lam"] = f"{lam_f.numerator}/{lam_f.denominator}"
            q, lc = lam_f.denominator, lam_f.numerator * n
        else:
            q, lc = 1, 0
        allowed = None
        if thresholds != "all":
            if any(int(f) in cats for f in thresholds):
                raise ValueError("listed thresholds on a categorical column: its tests are its categories")
            man["thresholds"] = {str(f): _uniq(np.asarray(ts, float)).tolist() for f, ts in thresholds.items()}
            allowed = allowed_thresholds(man, where)  # (the checker's: every category of a categorical column)
        core = _core_optima(data, q, lc, solved) if allowed is None else None
        prover = Prover(Xe, y, C, q, lc, allowed, budget.expired, core)
        cost, errors, leaves, _, _ = _tree_cost(tree_dict, Xe, y, classes, q, lc, where)
        prover.root_is_optimum = True
        root, bound = prover.prove(np.arange(n), [], d, cost)
        if bound < cost:
            raise RuntimeError(f"certificate: a tree of cost {bound} beats the given tree ({cost}): it is not optimal")
        man.update(kind="dp", max_depth=d, value=int(cost), errors=errors, leaves=leaves)
        man["files"]["claims"] = "claims.jsonl.gz"
        files["claims.jsonl.gz"] = _json_lines(map(relabel, prover.claims))
        out["claims"] = len(prover.claims)
    else:
        from .witness import drup_proof, find_witness

        if _tree_cost(tree_dict, Xe, y, classes, 1, 0, where)[1]:
            raise ValueError("the tree misclassifies training rows: no consistent-tree certificate")
        depth, splits = tree.depth(), tree.n_splits
        if objective == "depth":
            value, question = depth, {"max_depth": depth - 1, "max_splits": None}
            man["max_depth"] = depth
        else:
            K = int(max_depth if max_depth is not None else depth)
            value, question = tree.n_nodes, {"max_depth": K, "max_splits": splits - 1}
            man["max_depth"] = K
        man.update(kind="consistent", value=int(value), question=question, witness_rows=[])
        if question["max_depth"] >= 0 and (question["max_splits"] is None or question["max_splits"] >= 0):
            D, m = question["max_depth"], question["max_splits"]
            t_w = time.perf_counter()
            rows = find_witness(Xe, y, C, D, m, seed=seed, deadline=budget)
            out["witness_s"] = round(time.perf_counter() - t_w, 4)
            man["witness_rows"] = rows
            claims = None
            if route in ("dag", "auto"):
                from .lower import Prover

                q, lc, need = (1, 0, 1) if m is None else (m + 2, 1, m + 2)
                dag_budget = dag_time if route == "auto" else time_limit
                end = None if dag_budget is None else time.perf_counter() + dag_budget
                # over the witness rows only (no smaller tree classifies them, so none classifies every
                # row): measured 1.2-2.3x fewer claims than over every row for DT_size
                from .witness import _dataset

                # the depth-2 sides' optima by the compiled DP on the witness rows past CORE_LATER of
                # them (wine DT_size: 98 by the checker's own opt_small, 0.2 s CPU profiled, ~0.1 ms each
                # by the DP; the same claims)
                prover = Prover(Xe[rows], y[rows], C, q, lc, None,
                                lambda: budget.expired() or (end is not None and time.perf_counter() > end),
                                core_later=lambda: _core_optima(_dataset(Xe[rows], y[rows]), q, lc), box_depth=3)
                try:
                    if prover.prove(np.arange(len(rows)), [], D, need)[1] < need:
                        raise RuntimeError("certificate: a smaller consistent tree exists: the tree is not optimal")
                    claims = prover.claims
                except TimeoutError:
                    if route == "dag" or budget.expired():
                        raise
            if claims is not None:
                man["files"]["claims"], man["claims_rows"] = "claims.jsonl.gz", "witness"
                files["claims.jsonl.gz"] = _json_lines(map(relabel, claims))
                out["claims"] = len(claims)
            else:
                budget.check("the certificate's witness rows")
                cnf, proof = drup_proof(Xe[rows], y[rows], C, D, m, deadline=budget)
                man["files"].update(cnf="witness.cnf.gz", proof="witness.drup.gz")
                files["witness.cnf.gz"], files["witness.drup.gz"] = cnf, proof
        out["witness_rows"] = man["witness_rows"]
    budget.check("the certificate's files")  # (the claims' text of a long proof: none written past the limit)
    man["producer"] = {"satdt": _version(), "produce_s": round(time.perf_counter() - t0, 4)}
    tmp = os.path.join(os.path.dirname(os.path.abspath(directory)),
                       f".{os.path.basename(os.path.abspath(directory))}.tmp{os.getpid()}")
    try:
        os.makedirs(tmp)
    except OSError as exc:
        raise ValueError(f"proof directory {directory!r}: cannot write beside it: {exc.strerror}") from None
    try:
        for name, text in files.items():
            _write_gz(os.path.join(tmp, name), text)
        with open(os.path.join(tmp, "tree.json"), "w", encoding="utf-8") as fh:
            fh.write(json.dumps(tree_dict))  # (json.dump: the pure-Python encoder, dumps: the C one)
        with open(os.path.join(tmp, "manifest.json"), "w", encoding="utf-8") as fh:
            json.dump(man, fh, indent=1)
        prepare_directory(directory)
        _rename_onto(tmp, directory)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ValueError(f"proof directory {directory!r}: cannot write the certificate: {exc.strerror}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory))
    out.update(directory=os.fspath(directory), kind=man["kind"], size_mb=round(size / 2 ** 20, 4),
               produce_s=round(time.perf_counter() - t0, 4))
    return out


def _rename_onto(tmp: str, directory: str) -> None:
    """``tmp`` renamed to ``directory``, absent or empty: POSIX replaces an empty directory in one step;
    elsewhere it is removed first, and made again if the rename still fails (nothing of the user's lost)."""
    try:
        os.rename(tmp, directory)
    except OSError:
        if not os.path.isdir(directory):
            raise
        os.rmdir(directory)
        try:
            os.rename(tmp, directory)
        except OSError:
            os.mkdir(directory)
            raise


def _core_optima(data: Any, q: int, lc: int, solved: Any = None):
    """The compiled DP's depth-<=3 optima on ``data`` (:class:`~satdt.proof.lower.CoreOptima`; ``solved``: the
    solve's problem and search, reused when they fit), or None (one class, or the binary matrix over the memory
    budget, or the core's integer costs past 2^53; found at the first set asked, its ``opt`` answers None). Only
    the producer's shortcut: without it, the checker's own rule gives the same bounds."""
    from .lower import CoreOptima, past_core_integers

    if len(data.classes) < 2:
        return None
    try:
        return CoreOptima(data, q, lc, solved)
    except MemoryError:  # (satdt.deadline.MemoryLimitError: the binary matrix over the budget)
        return None
    except ValueError as exc:  # (the core's integer costs past 2^53: a lam of large denominator, 1/7 as the float 0.14...)
        if not past_core_integers(exc):
            raise
        return None


def _version() -> str:
    import sys

    return str(getattr(sys.modules.get("satdt"), "__version__", "unknown"))  # (importlib.metadata: 36 ms)


def certify_result(result: Any, data: Any, directory: str | os.PathLike, *, max_depth: int | None = None,
                   thresholds: str | dict = "all", time_limit: float | None = None,
                   route: str = "auto") -> dict[str, Any]:
    """:func:`write_certificate` for an OPTIMAL :class:`~satdt.result.SolveResult`; its figures
    (and ``witness_rows`` for DT_depth / DT_size) are added to ``result.stats["proof"]``. A result solved inside
    :func:`satdt.result.keeping_work` gives the producer its DP's memo of optima (faster; taken off the result)."""
    if str(result.status) != "OPTIMAL" or result.tree is None:
        raise ValueError(f"no certificate for a {result.status} result: only OPTIMAL answers have one")
    objective = _OBJECTIVES.get(result.objective_name)
    if objective is None:
        raise ValueError(f"no certificate for the objective {result.objective_name!r}")
    lam = None
    if objective == "regularized":
        # the user's lam, as written (0.01 = 1/100), else the engine's exact fraction
        lam = Fraction(str(result.stats["lam"])) if result.stats.get("lam") is not None else \
            result.stats.get("lam_engine")
    # the DP's problem and search (its memo of optima; kept by a solve inside satdt.result.keeping_work), taken:
    # another producer of this result builds its own (the compiled search runs one caller at a time)
    work = getattr(result, "take_work", lambda: None)()
    info = write_certificate(directory, result.tree, data, objective, max_depth=max_depth, lam=lam,
                             thresholds=thresholds, time_limit=time_limit, route=route, solved=work)
    result.stats["proof"] = {k: v for k, v in info.items() if k != "witness_rows"}
    if "witness_rows" in info:
        result.stats["witness_rows"] = info["witness_rows"]
    return info


def out_of_time(time_limit: float | None, option: str = "time_limit") -> str:
    """Why no certificate was written when its producer stopped with a TimeoutError: a signal
    (:func:`satdt.deadline.interrupt`) or its time limit (``option`` names it as the user gave it)."""
    from ..deadline import interrupted

    signum = interrupted()
    if signum is not None:
        return f"interrupted by signal {signum} while producing it"
    return f"producing it took longer than {option} {time_limit:g} s"


def own_budget(time_limit: Any) -> float | None:
    """The certificate's own time limit after a solve limited by ``time_limit`` (seconds, a
    :class:`~satdt.deadline.Deadline` or None): as long again, as ``satdt solve --proof`` gives it."""
    from ..deadline import Deadline

    seconds = time_limit.time_limit if isinstance(time_limit, Deadline) else time_limit
    return None if seconds is None else max(1e-3, float(seconds))


_CLI_METHODS = ("dp", "sat-depth", "sat-size", "maxsat", "binoct", "oct", "cpsat")


def check_proof_options(method: str, binarization: str, directory: str, weighted: tuple[str, ...] = (),
                        output: str | None = None) -> None:
    """``satdt solve --proof``: the options a certificate needs, checked before the solve; ``weighted``:
    the options given that change the objective (``--class-weight``, ``--costs``...), refused; ``output``:
    the ``--output`` file, which must be another path."""
    if method not in _CLI_METHODS:
        raise ValueError(f"--proof applies to the exact methods {', '.join(_CLI_METHODS)}, not {method}")
    if binarization != "all":
        raise ValueError("--proof needs --binarization all (a certificate covers every axis-aligned tree)")
    if weighted and method not in ("sat-depth", "sat-size"):  # (those refuse the weights themselves)
        raise ValueError(f"--proof covers the unweighted objective: no certificate for {' / '.join(weighted)}")
    if output is not None and os.path.abspath(output) == os.path.abspath(directory):
        raise ValueError(f"--proof {directory} and --output {output} are the same path: give each its own")
    prepare_directory(directory)


def _category_strings(data: Any) -> dict[int, list[str]]:
    """``{column: its categories as the strings the certificate writes}`` (``str`` of each; two
    categories that print alike are refused: the checker could not tell them apart)."""
    out = {}
    for j, cats in getattr(data.schema, "categories", {}).items():
        text = [str(c) for c in cats]
        if len(set(text)) != len(text):
            raise ValueError(f"certificates need the categories of {data.feature_names[j]!r} to print differently "
                             f"(two of them are {sorted(t for t in text if text.count(t) > 1)[0]!r})")
        out[int(j)] = text
    return out


def _cert_tree(node: dict, cats: dict[int, list[str]]) -> dict:
    """The tree dict for the certificate: a test on a categorical column as ``{"feature": f,
    "category": v}`` (``x_f == v`` goes left). A threshold on a categorical column's codes (a
    scikit-learn tree's) is the test of the one code on its side, when there is one."""
    if "root" in node:
        return {**node, "root": _cert_tree(node["root"], cats)}
    if "feature" not in node:
        return node
    out = {**node, "left": _cert_tree(node["left"], cats), "right": _cert_tree(node["right"], cats)}
    f = int(out["feature"])
    if f not in cats:
        if out.get("category") is not None:
            raise ValueError(f"the tree has a category test on the numeric column {f}")
        return out
    t = float(out.pop("threshold"))
    if out.pop("category", None) is not None:
        code = int(t)
    else:  # x_f <= t over codes 0 .. K - 1: code 0 alone on the left, or code K - 1 alone on the right
        K = len(cats[f])
        if 0 <= t < 1:
            code = 0
        elif K - 2 <= t < K - 1:
            code = K - 1
            out["left"], out["right"] = out["right"], out["left"]
        else:
            raise ValueError(f"the tree tests the categorical column {f} as a number (codes <= {t:g}): "
                             "certificates cover the tests x == category")
    out["category"] = cats[f][code]
    return out


def _json_lines(items) -> str:
    """One compact JSON text a line (one encoder for all: ``json.dumps`` with separators builds one a
    call: 239 claims 3.2 -> 2.5 ms, best of 5)."""
    encode = json.JSONEncoder(separators=(",", ":")).encode
    return "".join(encode(c) + "\n" for c in items)


def _relabeler(where: list):
    """The claims' tests from the rules' columns back to the features: column ``e`` of a numeric
    feature ``f`` is ``[f, t]``, of a category ``v`` of ``f`` ``[f, v]`` (its threshold is 0.5)."""
    back = {}
    for f, w in enumerate(where):
        back.update({e: (f, v) for v, e in w.items()} if isinstance(w, dict) else {w: (f, None)})
    if all(v is None and e == f for e, (f, v) in back.items()):
        return lambda claim: claim

    def test(e, rest):
        f, v = back[int(e)]
        return [f] + (rest if v is None else [v] + rest[1:])

    def relabel(claim: dict) -> dict:
        claim = dict(claim, path=[test(e, [t, side]) for e, t, side in claim["path"]])
        if "tests" in claim:
            claim["tests"] = [test(t[0], list(t[1:])) for t in claim["tests"]]
        return claim
    return relabel


def _tree_cost(tree_dict: dict, Xe: np.ndarray, y: np.ndarray, classes: list[str], q: int, lc: int, where: list):
    """The checker's :func:`~satdt.proof.trusted.tree_cost` of the certificate's tree (ValueError if it refuses it)."""
    try:
        return tree_cost(tree_dict, Xe, y, classes, q, lc, None, where)
    except Invalid as exc:
        raise ValueError(f"certificate: {exc}") from None


def _finite(X: np.ndarray) -> None:
    if not np.isfinite(X).all():
        raise ValueError("certificates need every feature value present: the data has missing values "
                         "(the checker reads finite numbers and categories only)")


def check_proof_data(directory: str, binarization: str, data: Any) -> None:
    """The estimators' ``proof=``: a usable directory, the ``all`` binarization, categories that
    print apart, no missing values."""
    if binarization != "all":
        raise ValueError("proof= needs binarization='all' (a certificate covers every axis-aligned tree)")
    _finite(np.asarray(data.X, dtype=float))
    _category_strings(data)
    prepare_directory(directory)


_STOPPED: list = []  # the last producer stopped under `satdt solve --proof` (see proof_for_cli)


def proof_for_cli(a: Any, model: Any, data: Any, produce: bool = True) -> None:
    """``satdt solve --proof DIR``: the certificate of an OPTIMAL result (a note otherwise, or when not
    ``produce``: the watchdog's answer at the time limit); its figures go to ``stats["proof"]`` (and
    ``stats["witness_rows"]``) of the printed result."""
    import sys

    result = getattr(model, "result_", None)
    if result is None or str(result.status) != "OPTIMAL" or not produce:
        status = None if result is None else result.status
        why = "not OPTIMAL" if status != "OPTIMAL" else "the time limit ran out before the certificate"
        print(f"satdt: note: no certificate written: the result is {status}, {why}", file=sys.stderr)
        return
    try:  # the certificate gets --time-limit again (its own budget, after the solve)
        info = certify_result(result, data, a.proof, max_depth=a.max_depth, time_limit=a.time_limit)
    except TimeoutError as exc:  # (nothing written: the directory as it was)
        # its frames (the stopped witness search's compiled memo: bmi DT_size 3 s to free at 100 s) kept until
        # the program's exit (os._exit: never freed), not freed before the answer is printed
        _STOPPED[:] = [exc]
        print(f"satdt: note: no certificate written: {out_of_time(a.time_limit, '--time-limit')}", file=sys.stderr)
        return
    except ValueError as exc:  # refused (the directory, the data): the solve's answer is still printed
        print(f"satdt: note: no certificate written: {exc}", file=sys.stderr)
        return
    if not a.json:
        what = f"{info['claims']} claims" if "claims" in info else f"{len(info['witness_rows'])} witness rows"
        print(f"certificate: {a.proof} ({what}, {info['size_mb']} MB, {info['produce_s']} s); "
              f"check it with `satdt check {a.proof}`", file=sys.stderr)
