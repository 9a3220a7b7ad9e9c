"""Package structure: no import cycle and no upward import between layers; the heap tree."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import satdt
from satdt import heaptree
from satdt.tree import Node, Tree

PACKAGE = Path(satdt.__file__).parent

#: layers, lowest first: a module imports (at module level) only from its own layer or below
LAYERS = [
    {"deadline", "objectives", "progress", "data", "tree", "methods", "_early_signals"},
    {"binarize", "result", "heaptree", "limits", "weights", "missing"},
    {"warmstart", "bruteforce", "fallback"},
    {"encodings"},
    {"solvers"},
    {"verify", "select", "estimators", "plot", "bench", "cli", "proof", "__init__"},
]


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


def _layer(module: str) -> int:
    head = module.split(".")[0]
    return next(i for i, names in enumerate(LAYERS) if head in names)


def _module_imports(path: Path) -> set[str]:
    """satdt modules imported at module level (not inside functions) by ``path``."""
    package = _name(path).split(".")[:-1]  # what a relative import of level 1 starts from
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1] if node.level > 1 else package
            target = ".".join(base + ([node.module] if node.module else []))
            names = [target] if node.module else [f"{target}.{a.name}".strip(".") for a in node.names]
            out.update(n for n in names if n)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("satdt."):
            out.add(node.module[len("satdt."):])
        elif isinstance(node, ast.Import):
            out.update(a.name[len("satdt."):] for a in node.names if a.name.startswith("satdt."))
    return out


def _modules() -> dict[str, set[str]]:
    return {_name(p): _module_imports(p) for p in PACKAGE.rglob("*.py")}


def test_no_upward_import():
    wrong = [(m, i) for m, deps in _modules().items() if m.split(".")[0] != "__init__"
             for i in deps if _layer(i) > _layer(m)]
    assert wrong == []


#: inside a package split by job, lowest first: a module imports (at module level) only its own
#: layer or below, so each part can be read without the ones above it
PACKAGE_LAYERS = {
    "solvers.sat": [{"tuning"}, {"backend"}, {"state"}, {"repair", "incumbent"}, {"rows"}, {"depth"}, {"size"},
                    {"__init__"}],
    "estimators": [{"base"}, {"consistent", "exact", "heuristic"}, {"__init__"}],
    "cli": [{"common", "signals"}, {"parser", "solve", "verify", "bench", "select"}, {"__init__"}, {"__main__"}],
    "solvers.rl.adapttree": [{"attributes"}, {"learner"}, {"__init__"}],
}


@pytest.mark.parametrize("package", sorted(PACKAGE_LAYERS))
def test_packages_split_by_job_import_downward(package):
    layers = PACKAGE_LAYERS[package]
    modules = {m: deps for m, deps in _modules().items() if m.startswith(package + ".")}
    names = {m[len(package) + 1:] for m in modules}
    assert names == set().union(*layers), f"{package}: modules and layers differ"

    def layer(module: str) -> int:
        name = module[len(package) + 1:].split(".")[0]
        name = name if name in names else "__init__"  # a name the package itself defines
        return next(i for i, layer_names in enumerate(layers) if name in layer_names)

    wrong = [(m, d) for m, deps in modules.items() for d in deps
             if d.startswith(package + ".") and layer(d) > layer(m)]
    assert wrong == []


def test_no_import_cycle():
    graph = _modules()
    known = set(graph)

    def resolve(dep: str) -> str | None:
        while dep and dep not in known and f"{dep}.__init__" not in known:
            dep = dep.rpartition(".")[0]
        return None if not dep else (dep if dep in known else f"{dep}.__init__")

    edges = {m: {r for d in deps if (r := resolve(d)) and r != m} for m, deps in graph.items()}
    # a package's __init__ importing its own submodules is not a cycle of jobs
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in edges[m]:
            if d.endswith("__init__") and m.startswith(d[:-len("__init__")]):
                continue
            if state.get(d) == 1:
                raise AssertionError(f"import cycle: {' -> '.join(path + [m, d])}")
            if d not in state:
                visit(d, path + [m])
        state[m] = 2

    for m in edges:
        if m not in state:
            visit(m, [])


# ---------------------------------------------------------------------- heap tree
def _tree() -> Tree:
    return Tree(Node.split(0, 0.5, Node.leaf(1), Node.split(1, 0.5, Node.leaf(0), Node.leaf(1))),
                classes=np.array(["a", "b"]))


def test_embed_route_decode_round_trip():
    tree = _tree()
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=bool)
    split_col, leaf_label, leaf_real = heaptree.embed(tree, 2)
    assert split_col.tolist() == [0, -1, 1]
    assert leaf_label.tolist() == [1, 1, 0, 1] and leaf_real.tolist() == [False, True, True, True]
    leaves = heaptree.route(X, split_col, 2)
    assert np.array_equal(leaf_label[leaves], tree.predict_index(X))
    first = heaptree.n_internal(2)
    again = heaptree.decode(2, lambda t: None if split_col[t] < 0 else split_col[t],
                            lambda t: leaf_label[t - first], tree.classes, unused="right")
    assert np.array_equal(again.predict_index(X), tree.predict_index(X))
    as_leaf = heaptree.decode(2, lambda t: None if split_col[t] < 0 else split_col[t], lambda t: 1,
                              tree.classes)
    assert as_leaf.n_leaves == 3
    with pytest.raises(ValueError, match="depth 2 > 1"):
        heaptree.embed(tree, 1)


def test_positions_levels_and_ranges():
    X = np.array([[0, 0], [1, 1]], dtype=bool)
    seen = {t: rows.tolist() for _, t, rows in heaptree.positions(_tree(), X)}
    assert seen == {0: [True, True], 1: [True, False], 2: [False, True], 5: [False, False], 6: [False, True]}
    assert [heaptree.level(t) for t in range(7)] == [0, 1, 1, 2, 2, 2, 2]
    lo, mid, hi = heaptree.leaf_ranges(2)
    assert (lo.tolist(), mid.tolist(), hi.tolist()) == ([0, 0, 2], [2, 1, 3], [4, 2, 4])
    assert heaptree.ancestors(2, 2) == [(2, False), (0, True)]
