"""Package structure: no import cycle and no upward import between layers (every import, at module
level or inside a function), the old import paths of moved modules; the heap tree."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import numpy as np
import pytest

import satdt
from satdt import heaptree
from satdt.tree import Node, Tree

PACKAGE = Path(satdt.__file__).parent

#: layers, lowest first (docs/architecture.md, "Layers"): a module imports only from its own layer
#: or below, at module level or inside a function
LAYERS = [
    {"deadline", "objectives", "progress", "data", "tree", "export", "methods", "_early_signals", "_moved"},
    {"binarize", "result", "heaptree", "limits", "weights", "missing"},
    {"heuristics"},
    {"warmstart", "bruteforce"},
    {"encodings"},
    {"solvers"},
    {"fit", "verify", "select", "estimators", "plot", "bench", "peers", "cli", "proof", "fallback", "__init__"},
]


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


def _layer(module: str) -> int:
    head = module.split(".")[0]
    return next(i for i, names in enumerate(LAYERS) if head in names)


def _run_time_nodes(module: ast.Module):
    """Every node of ``module`` except the bodies of ``if TYPE_CHECKING:`` (imports for
    annotations, which never run)."""
    stack: list[ast.AST] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _imports(source: str, module: str) -> set[str]:
    """satdt modules imported by ``source``, the text of the module ``module`` (e.g.
    ``"solvers.sat.depth"``): every ``import`` and ``from ... import`` statement, at module level
    and inside functions, classes and ``if`` / ``try`` blocks (an import deferred to a function is a
    dependency all the same); not those under ``if TYPE_CHECKING:``."""
    package = module.split(".")[:-1]  # what a relative import of level 1 starts from
    out = set()
    for node in _run_time_nodes(ast.parse(source)):
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


@functools.lru_cache(maxsize=1)
def _modules() -> dict[str, set[str]]:
    """Every module of the package -> the satdt modules it imports (parsed once per session)."""
    return {_name(p): _imports(p.read_text(), _name(p)) for p in PACKAGE.rglob("*.py")}


def test_imports_inside_functions_are_read():
    source = ("import os\nfrom .tree import Tree\n\ndef f():\n    from .solvers import dp\n"
              "    if True:\n        import satdt.cli\n\nclass C:\n    def g(self):\n"
              "        from ..data import prepare\n"
              "if TYPE_CHECKING:\n    from .binarize import BinaryProblem\n"
              "else:\n    from .result import SolveResult\n")
    assert _imports(source, "warmstart") == {"tree", "solvers", "cli", "data", "result"}
    assert _imports(source, "solvers.sat.depth") == {"solvers.sat.tree", "solvers.sat.solvers", "cli",
                                                     "solvers.data", "solvers.sat.result"}


def test_no_upward_import():
    wrong = [(m, i) for m, deps in _modules().items() if m.split(".")[0] != "__init__"
             for i in deps if _layer(i) > _layer(m)]
    assert wrong == []


#: inside each package, lowest first: a module imports only its own layer or below (at module level
#: or inside a function), so each part can be read without the ones above it
PACKAGE_LAYERS = {
    "solvers": [{"common", "mip_size"}, {"cpsat", "mip", "sat"}, {"maxsat", "dp"}, {"engine_choice"},
                {"__init__"}],
    "solvers.sat": [{"tuning"}, {"backend"}, {"state"}, {"repair", "incumbent"}, {"rows"}, {"depth"}, {"size"},
                    {"__init__"}],
    "solvers.dp": [{"chains", "boxes", "degrade", "_core"}, {"search"}, {"reference", "rows_bound", "anytime"}, {"accuracy"},
                   {"consistent", "distributed"}, {"fallback", "__init__"}],
    "encodings": [{"mip_model", "sat_depth", "cpsat_regularized", "__init__"}, {"mip_oct", "mip_binoct", "sat_size",
                                                                              "maxsat"}],
    "heuristics": [{"greedy", "__init__"}, {"dpdt", "rl"}],
    "heuristics.dpdt": [{"splits", "mdp"}, {"generators", "front"}, {"build"}, {"__init__"}],
    "heuristics.rl": [{"adapttree", "rdt"}, {"__init__"}],
    "heuristics.rl.adapttree": [{"attributes"}, {"learner"}, {"__init__"}],
    "binarize": [{"columns"}, {"thresholds", "redundant", "problem"}, {"binarizer"}, {"__init__"}],
    "proof": [{"reference_encoding"}, {"trusted"}, {"check", "witness"}, {"lower"}, {"__init__"}],
    "estimators": [{"base"}, {"consistent", "exact", "heuristic"}, {"__init__"}],
    "cli": [{"common", "signals", "plans"}, {"parser", "solve", "verify", "bench", "select"}, {"__init__"}, {"__main__"}],
}


#: compiled extension modules (built by pip, absent from a source tree that was not built)
COMPILED = {"_core"}


def test_every_package_has_layers():
    packages = {".".join(_name(p).split(".")[:-1]) for p in PACKAGE.rglob("__init__.py")} - {""}
    assert packages == set(PACKAGE_LAYERS)


@pytest.mark.parametrize("package", sorted(PACKAGE_LAYERS))
def test_packages_split_by_job_import_downward(package):
    layers = PACKAGE_LAYERS[package]
    depth = package.count(".") + 1
    modules = {m: deps for m, deps in _modules().items() if m.startswith(package + ".")}
    names = {m.split(".")[depth] for m in modules}  # a subpackage is one name of its parent
    assert names == set().union(*layers) - COMPILED, f"{package}: modules and layers differ"

    def layer(module: str) -> int:
        name = module.split(".")[depth]
        known = [i for i, layer_names in enumerate(layers) if name in layer_names]
        return known[0] if known else layer("x." * depth + "__init__")  # a name the package defines

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


# ---------------------------------------------------------------------- old import paths
#: modules that moved (satdt._moved.MOVED) and a few of their submodules: old name -> new name
MOVED_MODULES = {
    "satdt.solvers.dpdt": "satdt.heuristics.dpdt",
    "satdt.solvers.dpdt.build": "satdt.heuristics.dpdt.build",
    "satdt.solvers.dpdt.splits": "satdt.heuristics.dpdt.splits",
    "satdt.solvers.rl": "satdt.heuristics.rl",
    "satdt.solvers.rl.rdt": "satdt.heuristics.rl.rdt",
    "satdt.solvers.rl.adapttree": "satdt.heuristics.rl.adapttree",
    "satdt.solvers.rl.adapttree.learner": "satdt.heuristics.rl.adapttree.learner",
    "satdt.solvers.consistent": "satdt.solvers.engine_choice",
}

#: names imported from an old path (module -> names), each the object of its new home
OLD_NAMES = {
    "satdt.solvers.dpdt": ["solve_dpdt", "build_mdp", "DPDTResult", "cart_pruning_path", "cart_splits"],
    "satdt.solvers.rl": ["solve_adapttree", "solve_rdt", "ReinforcedDecisionTree"],
    "satdt.solvers.rl.rdt": ["_sample", "_loss", "gaussian_toy"],
    "satdt.solvers.consistent": ["choose_engine", "solve_consistent", "box_figures", "_chain_ranks"],
    "satdt.solvers.common": ["finalize_tree", "TreeCheckError", "n_cores", "Deadline", "cart_binary_tree"],
    "satdt.solvers.sat.incumbent": ["greedy_tree", "Incumbent"],
    "satdt.fallback": ["greedy_result", "cart_tree", "degrade_dp", "plan_dp_data", "degrade_dp_data"],
    # a module that became a package: what the code, tests and benchmarks import from it
    "satdt.binarize": ["Binarizer", "BinaryProblem", "BinaryTest", "ConflictError", "STRATEGIES", "feature_blocks",
                       "matrix_bytes", "_drop_redundant", "_first_of_equal_rows", "_words"],
}


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_old_module_path_is_the_moved_module(old):
    import importlib

    assert importlib.import_module(old) is importlib.import_module(MOVED_MODULES[old])


def test_old_names_import():
    import importlib

    for module, names in OLD_NAMES.items():
        imported = importlib.import_module(module)
        for name in names:
            assert getattr(imported, name) is not None, f"{module}.{name}"
    from satdt.heuristics.greedy import cart_tree, greedy_tree
    from satdt.solvers.dp.fallback import greedy_result
    from satdt.result import TreeCheckError, finalize_tree
    import satdt.fallback
    import satdt.solvers.common
    import satdt.solvers.sat.incumbent

    assert (satdt.fallback.cart_tree, satdt.fallback.greedy_result) == (cart_tree, greedy_result)
    assert satdt.solvers.sat.incumbent.greedy_tree is greedy_tree
    assert (satdt.solvers.common.finalize_tree, satdt.solvers.common.TreeCheckError) == (finalize_tree,
                                                                                       TreeCheckError)


def test_old_paths_import_first_in_a_fresh_process():
    """Imported before their new names (the finder's other road), with submodules by attribute."""
    import subprocess
    import sys

    code = ("import satdt.solvers.dpdt.build as b, satdt.solvers.rl.adapttree as a\n"
            "from satdt.solvers import dpdt, consistent\n"
            "import satdt.heuristics.dpdt.build as b2, satdt.heuristics.rl.adapttree as a2\n"
            "import satdt.heuristics.dpdt as d2, satdt.solvers.engine_choice as e2\n"
            "assert b is b2 and a is a2 and dpdt is d2 and consistent is e2 and dpdt.build is b\n"
            "assert b.__name__ == 'satdt.heuristics.dpdt.build'\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
