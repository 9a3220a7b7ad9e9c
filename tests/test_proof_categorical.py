"""Certificates on categorical columns (format version 2): the tests ``x == category``, one per
category as the binarizer makes them, recomputed by the checker from the category strings of the
certificate's data file; fresh certificates are accepted, corrupted ones rejected."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.cli import main
from satdt.data import prepare
from satdt.proof import certify_result, check, lower, write_certificate
from satdt.proof.check import Invalid, _Costs, opt_small
from satdt.proof.reference_encoding import encode
from satdt.proof.trusted import expand
from satdt.solvers.dp import solve_max_accuracy_dp, solve_min_depth_dp, solve_min_size_dp, solve_regularized_dp
from satdt.tree import Node, Tree

# category strings the CSV must quote or keep apart: a comma, quotes, a number-like string, spaces
NAMES = ["red", "a,b", 'say "hi"', "3.5", " sp ace", "x"]


def _data(seed: int, n: int = 40, cats: int = 4, classes: int = 2, noise: float = 0.15):
    """A string column of ``cats`` categories, a numeric column and an integer column forced
    categorical; labels mostly a function of the categories (so optimal trees test them)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(NAMES[:cats], size=n)
    x = rng.integers(0, 6, size=n).astype(float)
    h = rng.integers(0, 3, size=n)
    y = (np.isin(g, NAMES[1:cats:2]).astype(int) + (x > 3) + (h == 1) * (classes > 2)) % classes
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, classes, size=flip.sum())
    y[:classes] = np.arange(classes)
    return prepare(pd.DataFrame({"g": g, "x": x, "h": h}), y, categorical=["h"])


def _consistent(seed: int, n: int = 18, cats: int = 5):
    """Distinct rows (no conflicts): a string column and a numeric one."""
    rng = np.random.default_rng(seed)
    g = np.array(NAMES[:cats])[rng.permutation(np.arange(n) % cats)]
    x = rng.permutation(np.arange(n, dtype=float))
    y = (np.isin(g, NAMES[:cats:2]) ^ (x > n / 2) ^ (rng.random(n) < 0.2)).astype(int)
    y[:2] = [0, 1]
    return prepare(pd.DataFrame({"g": g, "x": x}), y)


def _expanded(data) -> np.ndarray:
    """The checker's columns of ``data`` (its own :func:`expand`, from the category strings)."""
    cats = {j: [str(c) for c in cs] for j, cs in data.schema.categories.items()}
    return expand(data.X, {j: [cats[j][int(v)] for v in data.X[:, j]] for j in cats})[0]


def _cert(data, res, tmp: Path, name: str, **kw) -> Path:
    out = tmp / name
    certify_result(res, data, out, **kw)
    return out


def _uses_category(tree) -> bool:
    return any(n.category is not None for n in tree.root.walk() if not n.is_leaf)


# ---------------------------------------------------------------- fresh certificates are accepted
def test_the_checkers_tests_are_the_binarizers():
    """The checker's depth <= 2 optimum over its own columns (every gap of a numeric column, one
    test per category) equals the brute force over the binarizer's tests."""
    for seed in range(8):
        data = _data(seed, n=30, cats=3 + seed % 4, classes=2 + seed % 2)
        problem = Binarizer("all").problem(data)
        cst = _Costs(_expanded(data), np.asarray(data.y), len(data.classes), 1, 0)
        for k in (1, 2):
            assert opt_small(cst, np.arange(data.n_rows), k) == bruteforce.min_errors(problem, k)[0], (seed, k)


@pytest.mark.parametrize("seed", range(4))
def test_dp_certificates_with_categorical_columns_are_accepted(seed, tmp_path):
    data = _data(seed, n=36 + 4 * seed, cats=3 + seed % 4, classes=2 + seed % 2)
    problem = Binarizer("all").problem(data)
    used = False
    for d in (1, 2, 3):
        res = solve_max_accuracy_dp(problem, max_depth=d)
        used |= _uses_category(res.tree)
        out = _cert(data, res, tmp_path, f"a{d}", max_depth=d)
        assert "optimal" in check(out) and "categorical columns x0, x2" in check(out)
        man = json.loads((out / "manifest.json").read_text())
        assert man["version"] == 2 and man["categorical"] == [0, 2] and man["value"] == res.objective
    res = solve_regularized_dp(problem, lam=0.02, max_depth=3)
    assert "optimal" in check(_cert(data, res, tmp_path, "reg", max_depth=3))
    assert used  # the optimal trees test categories (what the certificates must cover)


def test_the_data_file_holds_the_category_strings(tmp_path):
    data = _data(1, cats=6)
    res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=2)
    out = _cert(data, res, tmp_path, "c", max_depth=2)
    import csv

    with gzip.open(out / "data.csv.gz", "rt") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["g", "x", "h", "label"]
    assert {r[0] for r in rows[1:]} == set(NAMES) and {r[2] for r in rows[1:]} <= {"0", "1", "2"}
    tree = json.loads((out / "tree.json").read_text())
    cats = [n["category"] for n in _walk(tree["root"]) if "category" in n]
    assert cats and all(isinstance(c, str) and "threshold" not in n for n in _walk(tree["root"]) if "category" in n
                        for c in [n["category"]])


def _walk(node: dict):
    yield node
    if "feature" in node:
        yield from _walk(node["left"])
        yield from _walk(node["right"])


@pytest.mark.parametrize("route", ["dag", pytest.param("drup", marks=pytest.mark.slow)])
def test_consistent_certificates_with_categorical_columns(route, tmp_path):
    for seed in range(3):
        data = _consistent(seed)
        problem = Binarizer("all").problem(data)
        Xe, y = _expanded(data), np.asarray(data.y)
        for name, res in (("depth", solve_min_depth_dp(problem)), ("size", solve_min_size_dp(problem))):
            out = tmp_path / f"{name}{seed}"
            info = certify_result(res, data, out, route=route)
            said = check(out)
            assert ("DRUP" if route == "drup" else "lower-bound DAG") in said and "categorical columns x0" in said
            rows = info["witness_rows"]
            man = json.loads((out / "manifest.json").read_text())
            D, m = man["question"]["max_depth"], man["question"]["max_splits"]
            from pysat.solvers import Solver

            for drop in range(len(rows)):  # minimal over the checker's columns: without any row, satisfiable
                keep = [r for i, r in enumerate(rows) if i != drop]
                _, clauses, _, _ = encode(Xe[keep], y[keep], 2, D, m)
                with Solver(name="g4", bootstrap_with=clauses) as s:
                    assert s.solve()


def test_zoo_like_wide_column(tmp_path):
    """A column with one category per row but one (zoo's animal_name): certified at every question."""
    rng = np.random.default_rng(4)
    n = 30
    name = [f"animal {i}" for i in range(n - 1)] + ["animal 0"]
    x = rng.integers(0, 4, size=(n, 2)).astype(float)
    y = (x[:, 0] + x[:, 1] > 3).astype(int)
    y[-1] = y[0]
    data = prepare(pd.DataFrame({"name": name, "a": x[:, 0], "b": x[:, 1]}), y)
    problem = Binarizer("all").problem(data)
    for d in (1, 2, 3):
        assert "optimal" in check(_cert(data, solve_max_accuracy_dp(problem, max_depth=d), tmp_path, f"a{d}",
                                        max_depth=d))
    if not ((problem.counts > 0).sum(1) > 1).any():
        assert "classifies" in check(_cert(data, solve_min_depth_dp(problem), tmp_path, "depth"))


# ---------------------------------------------------------------- trees given in other forms
def test_threshold_tests_on_category_codes(tmp_path):
    """A tree testing a categorical column's codes with a threshold (a scikit-learn tree's) is the
    test of the one code on its side; an ordinal split of several categories is refused."""
    rng = np.random.default_rng(2)
    g = rng.choice(NAMES[:4], size=40)
    g[:4] = NAMES[:4]
    for name, t, code in (("lo", 0.5, 0), ("hi", 2.5, 3)):
        codes = np.array(sorted(NAMES[:4]))
        y = (g == codes[code]).astype(int) if code == 0 else (g != codes[code]).astype(int)
        data = prepare(pd.DataFrame({"g": g}), y)  # codes: the categories' sorted order
        assert list(data.schema.categories[0]) == list(codes)
        tree = Tree(Node.split(0, t, Node.leaf(1), Node.leaf(0)), classes=data.classes)  # 0 errors
        assert not (tree.predict_index(data.X) != data.y).any()
        write_certificate(tmp_path / name, tree, data, "accuracy", max_depth=1)
        assert "(0 errors)" in check(tmp_path / name)
        node = json.loads((tmp_path / name / "tree.json").read_text())["root"]
        assert node["category"] == codes[code] and "threshold" not in node
        mid = Tree(Node.split(0, 1.5, Node.leaf(1), Node.leaf(0)), classes=data.classes)
        with pytest.raises(ValueError, match="as a number"):
            write_certificate(tmp_path / f"{name}mid", mid, data, "accuracy", max_depth=1)


def test_categories_that_print_alike_are_refused(tmp_path):
    data = prepare(pd.DataFrame({"g": np.array([1, "1", "b", 2] * 5, dtype=object)}), np.array([0, 1, 0, 1] * 5))
    res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=1)
    with pytest.raises(ValueError, match="print differently"):
        certify_result(res, data, tmp_path / "c", max_depth=1)
    assert not (tmp_path / "c").exists()


def test_cli_solve_and_check_on_a_csv_with_text(tmp_path, capsys):
    data = _data(5, n=50, cats=5)
    frame = pd.DataFrame({"g": [data.schema.categories[0][int(v)] for v in data.X[:, 0]], "x": data.X[:, 1],
                          "label": data.y})
    frame.to_csv(tmp_path / "d.csv", index=False)
    out = tmp_path / "p"
    assert main(["solve", str(tmp_path / "d.csv"), "--method", "dp", "--max-depth", "2", "--proof", str(out),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["proof"]["kind"] == "dp"
    assert main(["check", str(out)]) == 0


# ---------------------------------------------------------------- mutations are rejected
def _claims(d: Path) -> list[dict]:
    with gzip.open(d / "claims.jsonl.gz", "rt") as fh:
        return [json.loads(line) for line in fh]


def _rejected(d: Path, tmp: Path, claims: list[dict] | None = None, man: dict | None = None,
              tree: dict | None = None) -> bool:
    bad = tmp / "bad"
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(d, bad)
    if claims is not None:
        with gzip.open(bad / "claims.jsonl.gz", "wt") as fh:
            fh.write("".join(json.dumps(c) + "\n" for c in claims))
    if man is not None:
        (bad / "manifest.json").write_text(json.dumps(man))
    if tree is not None:
        (bad / "tree.json").write_text(json.dumps(tree))
    try:
        check(bad)
    except Invalid:
        return True
    return False


def _category_mutants(claims: list[dict], man: dict, rng: np.random.Generator):
    """(kind, claims) corruptions of the category tests that must each be rejected."""
    cat = set(man["categorical"])
    children = {}  # claim id -> (parent, entry) for the claims a split entry uses
    for k, c in enumerate(claims):
        for j, e in enumerate(c.get("tests", [])):
            children.setdefault(e[-2], (k, j))
            children.setdefault(e[-1], (k, j))
    entries = [(k, j) for k, c in enumerate(claims) for j, e in enumerate(c.get("tests", [])) if e[0] in cat]
    values = {f: sorted({e[1] for c in claims for e in c.get("tests", []) if e[0] == f}
                        | {p[1] for c in claims for p in c["path"] if p[0] == f}) for f in cat}
    if entries:
        k, j = entries[int(rng.integers(len(entries)))]
        c = json.loads(json.dumps(claims))
        del c[k]["tests"][j]
        yield "drop a category test", c
        c = json.loads(json.dumps(claims))
        e = c[k]["tests"][j]
        others = [v for v in values[e[0]] if v != e[1]]
        e[1] = others[int(rng.integers(len(others)))] if others else e[1] + "?"
        yield "alter an entry's category", c
        c = json.loads(json.dumps(claims))
        c[k]["tests"][j][1] = 0.5
        yield "a threshold on a categorical column", c
        c = json.loads(json.dumps(claims))
        c[k]["tests"][j] = c[k]["tests"][j][:2] + c[k]["tests"][j][1:]
        yield "a range on a categorical column", c
        c = json.loads(json.dumps(claims))
        c[k]["tests"][j][1] = c[k]["tests"][j][1] + " "
        yield "a category not in the data", c
    used = [i for i, c in enumerate(claims) if i in children and c["path"] and c["path"][-1][0] in cat]
    if used:
        i = used[int(rng.integers(len(used)))]
        c = json.loads(json.dumps(claims))
        p = c[i]["path"][-1]
        others = [v for v in values[p[0]] if v != p[1]]
        if others:
            p[1] = others[int(rng.integers(len(others)))]
            yield "alter a path's category", c
        c = json.loads(json.dumps(claims))
        c[i]["path"][-1][2] = "R" if c[i]["path"][-1][2] == "L" else "L"
        yield "flip a category test's side", c


def _category_round(seeds, tmp_path, monkeypatch) -> tuple[int, set]:
    count = 0
    seen = set()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        # split claims on categories: depth 3, and no enumeration rule (these sets would fit it) half the time
        monkeypatch.setattr(lower, "ENUM_ROWS", 0 if seed % 2 else 64)
        monkeypatch.setattr(lower, "TRIPLES", 0)  # (a depth-3 set of these data is otherwise one depth3 claim)
        data = _data(seed, n=70 + 3 * seed, cats=3 + seed % 4, classes=2 + seed % 2)
        problem = Binarizer("all").problem(data)
        d = 3
        res = solve_max_accuracy_dp(problem, max_depth=d) if seed % 3 else \
            solve_regularized_dp(problem, lam=0.02, max_depth=d)
        out = _cert(data, res, tmp_path, f"c{seed}", max_depth=d)
        man = json.loads((out / "manifest.json").read_text())
        claims = _claims(out)
        for _ in range(3):
            for kind, bad in _category_mutants(claims, man, rng):
                assert _rejected(out, tmp_path, claims=bad), (seed, kind)
                seen.add(kind)
                count += 1
        # the manifest without its categorical columns, or with a numeric one added; the tree's category
        assert _rejected(out, tmp_path, man=dict(man, categorical=[2]))
        assert _rejected(out, tmp_path, man=dict(man, categorical=[0, 1, 2]))
        assert _rejected(out, tmp_path, man=dict(man, categorical="0"))
        tree = json.loads((out / "tree.json").read_text())
        nodes = [n for n in _walk(tree["root"]) if "category" in n]
        if nodes:
            values = sorted({str(v) for v in data.schema.categories[nodes[0]["feature"]]})
            nodes[0]["category"] = [v for v in values if v != nodes[0]["category"]][0]
            if _tree_changes_cost(out, tree):
                assert _rejected(out, tmp_path, tree=tree)
            del nodes[0]["category"]
            nodes[0]["threshold"] = 0.5
            assert _rejected(out, tmp_path, tree=tree)
        shutil.rmtree(out)
    return count, seen


def test_mutated_category_tests_are_rejected(tmp_path, monkeypatch):
    count, seen = _category_round(range(10), tmp_path, monkeypatch)
    assert count >= 150 and len(seen) == 7, (count, seen)  # 189 measured


@pytest.mark.slow
def test_hundreds_of_category_mutations_are_rejected(tmp_path, monkeypatch):
    count, seen = _category_round(range(10, 70), tmp_path, monkeypatch)
    assert count >= 1000 and len(seen) == 7, (count, seen)  # 1092 measured


def _tree_changes_cost(out: Path, tree: dict) -> bool:
    """Whether the altered tree's cost differs from the manifest's value (else it may be optimal too)."""
    from satdt.proof.trusted import read_data, tree_cost

    man = json.loads((out / "manifest.json").read_text())
    X, labels, where = read_data(str(out / "data.csv.gz"), man["categorical"])
    y = np.array([man["classes"].index(v) for v in labels])
    from fractions import Fraction

    lam = Fraction(man["lam"]) if man["lam"] else None
    q, lc = (1, 0) if lam is None else (lam.denominator, lam.numerator * len(y))
    return tree_cost(tree, X, y, man["classes"], q, lc, None, where)[0] != man["value"]


def test_versions(tmp_path):
    """Version 1 certificates (numeric columns only) are still read; a categorical column needs 2."""
    data = _data(3)
    res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=2)
    out = _cert(data, res, tmp_path, "c", max_depth=2)
    man = json.loads((out / "manifest.json").read_text())
    assert _rejected(out, tmp_path, man=dict(man, version=1))
    assert _rejected(out, tmp_path, man=dict(man, version=3))
    num = prepare(data.X[:, 1:2], data.y)
    res = solve_max_accuracy_dp(Binarizer("all").problem(num), max_depth=2)
    out = _cert(num, res, tmp_path, "n", max_depth=2)
    man = json.loads((out / "manifest.json").read_text())
    old = {k: v for k, v in man.items() if k != "categorical"} | {"version": 1}
    (out / "manifest.json").write_text(json.dumps(old))
    assert "optimal" in check(out)


def test_categories_and_labels_with_line_ends(tmp_path):
    """Line ends inside a category or a label are quoted in the data file and read back as written
    ("a\\r\\nb" and "a\\nb" stay two categories)."""
    g = np.array(["a\r\nb", "a\nb", "a b", 'c"d,e', "x\ry"] * 8)
    y = np.array([0, 1, 0, 1, 1] * 8)
    y[:3] = [0, 1, 1]
    data = prepare(pd.DataFrame({"g": g}), np.array(["p\nq", "r"])[y])
    assert len(data.schema.categories[0]) == 5
    for d in (1, 2):
        res = solve_max_accuracy_dp(Binarizer("all").problem(data), max_depth=d)
        assert f"({res.objective} errors)" in check(_cert(data, res, tmp_path, f"c{d}", max_depth=d))
