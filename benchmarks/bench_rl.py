"""RL tree builders (issue 15): the two papers' experiments, then ADAPTTREE0 and RDT against the
proven optimum.

Three parts (all by default, or name them):

``paper``
    Preda's experiment: E = {True, False}^7 (128 rows), c = (A0 A1 A2) | (A0 A1 A3) | (A0 A1 A4)
    | (A5 A6); ID3's tree; ADAPTTREE0 (alpha = epsilon = 1 / (1 + log2(episode + 1)), gamma 0.9,
    32 tile layers, 512 entries, 200 episodes) over ``--seeds`` seeds; the minimum-node
    consistent tree proven by the DP (``solve_min_size_dp``, depth bound 7 = the number of
    attributes, so over every tree); the learning-curve figure ``figures/adapttree_curve.png``.
``toy``
    Léon & Denoyer's 2-D Gaussians (16 and 32 classes, 50 train / 50 test points per class,
    means uniform in [-1, 1]^2, sigma uniform in [0.01, 0.1]) over the W/D grid ``--grid``: RDT
    (the paper's REINFORCE), RDT with a leave-one-out baseline, Random Trees (learned and
    untrained routing), CART, linear SVM and the Bayes classifier, test accuracy mean +- std over
    ``--runs`` runs (``--jobs`` processes); the decision-region figure ``figures/rdt_regions.png``.
``gap``
    The 32-class cell (32:2:6) examined: RDT as in the paper, with a running-mean or a
    leave-one-out baseline, the two readings of Random Trees, untrained Random Trees,
    under four readings of the paper's "random sigma"; and 16:2:5 for reference.
``multiway``
    ADAPTTREE0 with multiway splits (``multiway="discrete"``: integer-coded attributes split by
    every value, one test per multiway node) against multiway ID3 and the exact fewest tests
    (``min_multiway_tests``).
``size``
    ADAPTTREE0's own objective on bundled datasets: the fewest splits of a consistent tree (no
    depth limit), against ID3 and the DT_size optimum at depth <= the depth of ADAPTTREE0's tree.
``datasets``
    For bundled datasets and depths: CART (scikit-learn, gini), DPDT, ADAPTTREE0 (``max_depth``
    d) and RDT (axis-aligned, depth d) certified against the most accurate tree of depth <= d
    (``certify_many``, DP engine, ``all`` binarization): training accuracy, nodes, time, gap.

Example::

    python benchmarks/bench_rl.py                      # everything, a few minutes on 2 loaded cores
    python benchmarks/bench_rl.py paper --seeds 10
    python benchmarks/bench_rl.py toy --runs 5 --jobs 2          # the W/D grids of both tables
    python benchmarks/bench_rl.py gap --runs 3
    python benchmarks/bench_rl.py multiway --seeds 3
    python benchmarks/bench_rl.py datasets --datasets monk1 iris --depths 2 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from satdt import Binarizer, load_dataset  # noqa: E402
from satdt.heuristics.rl.adapttree import id3_tree, paper_problem, solve_adapttree  # noqa: E402
from satdt.heuristics.rl.rdt import ReinforcedDecisionTree, gaussian_toy, solve_rdt  # noqa: E402

FIGURES = ROOT / "benchmarks" / "figures"
DATASETS = ["monk1", "monk2", "monk3", "tic-tac-toe", "iris", "wine", "balance-scale", "car"]
SIZE_DATASETS = ["mouse", "monk1", "monk3", "iris", "zoo"]
GRID = ["16:2:4", "16:2:5", "16:2:6", "16:3:3", "16:4:2", "16:4:3",
        "32:2:5", "32:2:6", "32:2:7", "32:3:4", "32:4:3", "32:8:2"]
PAPER_TOY = {(16, 2, 5): "0.83 +- 0.04", (32, 2, 6): "0.84 +- 0.01"}


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# ------------------------------------------------------------------ Preda
def part_paper(seeds: int, figure: bool) -> None:
    from satdt.solvers.dp import solve_min_size_dp

    problem = paper_problem()
    print(f"## ADAPTTREE0: Preda's experiment (load {_load()})\n")
    print("| tree | internal nodes | leaves | note |\n|---|---|---|---|")
    for crit in ("info_gain", "gain_ratio", "gini_gain"):
        t = id3_tree(problem, criterion=crit)
        assert problem.errors(t) == 0
        print(f"| ID3 ({crit}) | {t.n_splits} | {t.n_leaves} | greedy, ties to the lowest attribute |")
    t0 = time.perf_counter()
    exact = solve_min_size_dp(problem, max_depth=7)
    el = time.perf_counter() - t0
    splits = (int(exact.objective) - 1) // 2
    print(f"| DP minimum size (`solve_min_size_dp`, depth <= 7) | {splits} | {splits + 1} | "
          f"{exact.status}, {int(exact.objective)} nodes, {el:.3f} s |\n")
    curves, rows = [], []
    for seed in range(seeds):
        t0 = time.perf_counter()
        out = solve_adapttree(problem, n_episodes=200, gamma=0.9, n_layers=32, memory=512, random_state=seed)
        el = time.perf_counter() - t0
        c = np.array([r["splits"] for r in out.curve])
        curves.append(c)
        first11 = int(np.argmax(c <= splits)) if (c <= splits).any() else None
        rows.append((seed, int(out.result.objective), out.result.tree.n_leaves, out.result.stats["best_episode"],
                     first11, out.result.stats["greedy_splits"], float(c[-50:].mean()), el))
    print("| seed | best tree: internal / leaves | first episode with it | first episode with the optimum "
          "| final greedy policy's tree | mean splits, episodes 150-199 | time s |\n|---|---|---|---|---|---|---|")
    for seed, s, leaves, best_ep, first, greedy, last, el in rows:
        print(f"| {seed} | {s} / {leaves} | {best_ep} | {first} | {greedy} | {last:.1f} | {el:.2f} |")
    reached = sum(r[1] == splits for r in rows)
    print(f"\n{reached}/{seeds} seeds reach {splits} internal nodes (the proven minimum); median first "
          f"episode {np.median([r[4] for r in rows if r[4] is not None]):.0f}; final greedy policy "
          f"= {splits} or {splits + 1} internal nodes in "
          f"{sum(r[5] <= splits + 1 for r in rows)}/{seeds} seeds.\n")
    if figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        C = np.stack(curves)
        ep = np.arange(C.shape[1])
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot(ep, C.mean(axis=0), label=f"splits of the episode's tree (mean of {seeds} seeds)")
        ax.plot(ep, np.minimum.accumulate(C, axis=1).mean(axis=0), label="best so far (mean)")
        ax.axhline(12, color="grey", ls="--", label="ID3: 12")
        ax.axhline(splits, color="green", ls=":", label=f"proven minimum: {splits}")
        ax.set_xlabel("episode")
        ax.set_ylabel("internal nodes")
        ax.set_yscale("log")
        ax.set_title("ADAPTTREE0 on Preda's 7-attribute concept")
        ax.legend()
        fig.tight_layout()
        FIGURES.mkdir(exist_ok=True)
        fig.savefig(FIGURES / "adapttree_curve.png", dpi=110)
        print("figure: benchmarks/figures/adapttree_curve.png\n")


# ------------------------------------------------------------------ Léon & Denoyer
SIGMA = (0.01, 0.1)


def _bayes(C: int, seed: int, X: np.ndarray, sigma: tuple[float, float] = SIGMA) -> np.ndarray:
    rng = np.random.default_rng(seed)                      # the generator's own draws, in order
    means = rng.uniform(-1, 1, size=(C, 2))
    sigmas = rng.uniform(*sigma, size=C)
    ll = -((X[:, None, :] - means[None]) ** 2).sum(-1) / (2 * sigmas ** 2) - 2 * np.log(sigmas)
    return ll.argmax(axis=1)


def _untrained_accuracy(W: int, D: int, C: int, r: int, Xtr, Xte, yte) -> float:
    """Random Trees before any learning: random leaves, policies at their initialization."""
    m = ReinforcedDecisionTree(width=W, depth=D, random_leaves=True, random_state=r)
    m.mean_, scale = Xtr.mean(axis=0), Xtr.std(axis=0)
    m.scale_ = np.where(scale > 0, scale, 1.0)
    m.init(Xtr.shape[1], C, np.random.default_rng(r))
    return float((m.predict_index(Xte) == yte).mean())


def _toy_run(C: int, W: int, D: int, r: int, epochs: int, variants: dict, sigma=SIGMA, extras=True) -> dict:
    """One run r of a toy cell (data seed r, model seed r): test accuracy of each RDT variant
    (and its seconds), CART, linear SVM and Bayes."""
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    Xtr, ytr, Xte, yte = gaussian_toy(C, sigma=sigma, random_state=r)
    out = {}
    for key, kw in variants.items():
        t0 = time.perf_counter()
        m = ReinforcedDecisionTree(width=W, depth=D, epochs=epochs, random_state=r, **kw).fit(Xtr, ytr, C)
        out[key] = float((m.predict_index(Xte) == yte).mean())
        out[key + "_s"] = time.perf_counter() - t0
        out[key + "_train"] = float((m.predict_index(Xtr) == ytr).mean())
    if extras:
        out["cart"] = DecisionTreeClassifier(max_leaf_nodes=W ** D, random_state=r).fit(Xtr, ytr).score(Xte, yte)
        out["cartfull"] = DecisionTreeClassifier(random_state=r).fit(Xtr, ytr).score(Xte, yte)
        out["svm"] = LinearSVC(random_state=r).fit(Xtr, ytr).score(Xte, yte)
        out["bayes"] = float((_bayes(C, r, Xte, sigma) == yte).mean())
        out["untrained"] = _untrained_accuracy(W, D, C, r, Xtr, Xte, yte)
    return out


def _map(fn, tasks: list, jobs: int) -> list:
    """``[fn(*t) for t in tasks]``, in ``jobs`` processes (results in task order)."""
    if jobs <= 1:
        return [fn(*t) for t in tasks]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(fn, *t) for t in tasks]
        return [f.result() for f in futures]


_fmt = lambda v: f"{np.mean(v):.3f} +- {np.std(v):.3f}"  # noqa: E731

TOY_VARIANTS = {"rdt": {}, "loo": {"baseline": "loo"}, "random": {"random_leaves": True}}


def part_toy(runs: int, grid: list[str], epochs: int, figure: bool, jobs: int) -> None:
    print(f"## Reinforced Decision Trees: 2-D Gaussians (load {_load()})\n")
    print(f"Test accuracy, mean +- std over {runs} runs (run r: data seed r, model seed r); {epochs} epochs, "
          "M = 10 trajectories, batch 10, squared loss, prediction by the most likely path; sigma uniform "
          f"in [{SIGMA[0]}, {SIGMA[1]}].\n")
    print("| classes | W | D | leaves | RDT (paper: REINFORCE) | RDT + LOO baseline | Random Trees | Random Trees, "
          "untrained | CART (W^D leaves) | CART (full) | linear SVM | Bayes | paper RDT | s per RDT run |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    cells = [tuple(int(v) for v in cell.split(":")) for cell in grid]
    tasks = [(C, W, D, r, epochs, TOY_VARIANTS) for C, W, D in cells for r in range(runs)]
    t0 = time.perf_counter()
    results = _map(_toy_run, tasks, jobs)
    for i, (C, W, D) in enumerate(cells):
        res = results[i * runs:(i + 1) * runs]
        col = lambda k: _fmt([x[k] for x in res])  # noqa: E731
        print(f"| {C} | {W} | {D} | {W ** D} | {col('rdt')} | {col('loo')} | {col('random')} | {col('untrained')} | "
              f"{col('cart')} | {col('cartfull')} | {col('svm')} | {col('bayes')} | {PAPER_TOY.get((C, W, D), '')} | "
              f"{np.mean([x['rdt_s'] for x in res]):.1f} |", flush=True)
    print(f"\nwall time {time.perf_counter() - t0:.0f} s with {jobs} process(es)\n")
    if figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from sklearn.tree import DecisionTreeClassifier

        C, W, D = 16, 2, 5
        Xtr, ytr, Xte, yte = gaussian_toy(C, random_state=0)
        rdt = ReinforcedDecisionTree(width=W, depth=D, epochs=epochs, random_state=0).fit(Xtr, ytr, C)
        cart = DecisionTreeClassifier(max_leaf_nodes=W ** D, random_state=0).fit(Xtr, ytr)
        g = np.linspace(-1.5, 1.5, 300)
        GX, GY = np.meshgrid(g, g)
        grid_pts = np.c_[GX.ravel(), GY.ravel()]
        fig, axes = plt.subplots(1, 3, figsize=(13, 4.3))
        for ax, (name, pred) in zip(axes, [("RDT W=2 D=5", rdt.predict_index(grid_pts)),
                                          ("CART, 32 leaves", cart.predict(grid_pts)),
                                          ("Bayes", _bayes(C, 0, grid_pts))]):
            ax.contourf(GX, GY, pred.reshape(GX.shape), levels=np.arange(C + 1) - 0.5, cmap="tab20", alpha=0.5)
            ax.scatter(Xte[:, 0], Xte[:, 1], c=yte, cmap="tab20", s=6, vmin=-0.5, vmax=C - 0.5)
            ax.set_title(name)
            ax.set_xticks([])
            ax.set_yticks([])
        fig.tight_layout()
        FIGURES.mkdir(exist_ok=True)
        fig.savefig(FIGURES / "rdt_regions.png", dpi=100)
        print("figure: benchmarks/figures/rdt_regions.png\n")


GAP_VARIANTS = {"rdt": {}, "running": {"baseline": True}, "loo": {"baseline": "loo"},
                "random": {"random_leaves": True}, "balanced": {"random_leaves": "balanced"}}
GAP_SIGMAS = [(0.01, 0.1), (0.0, 0.1), (0.01, 0.05), (0.05, 0.15)]


def _gap_run(C, W, D, r, epochs, sigma, keys):
    variants = {k: dict(GAP_VARIANTS[k]) for k in keys}
    out = {}
    for k, kw in variants.items():                     # epochs may be overridden per variant
        e = kw.pop("epochs", epochs)
        out.update(_toy_run(C, W, D, r, e, {k: kw}, sigma, extras=False))
    out.update({k: v for k, v in _toy_run(C, W, D, r, epochs, {}, sigma).items()})
    return out


def part_gap(runs: int, jobs: int, epochs: int) -> None:
    """The 32-class gap: the RDT variants and the sigma readings, on 32:2:6 (and 16:2:5)."""
    print(f"## RDT: the 32-class gap, variants and readings of sigma (load {_load()})\n")
    print(f"Test accuracy (train accuracy in brackets for the RDT variants), mean +- std over runs 0-{runs - 1}; "
          f"{epochs} epochs unless said; M = 10, batch 10, squared loss, most likely path.\n")
    keys_main = ["rdt", "running", "loo"]
    keys_all = keys_main + ["random", "balanced"]
    tasks, labels = [], []
    for C, W, D in [(32, 2, 6), (16, 2, 5)]:
        for sigma in (GAP_SIGMAS if C == 32 else [SIGMA]):
            keys = keys_all if sigma == SIGMA else keys_main
            labels.append((C, W, D, sigma, keys))
            tasks += [(C, W, D, r, epochs, sigma, keys) for r in range(runs)]
    t0 = time.perf_counter()
    results = _map(_gap_run, tasks, jobs)
    names = {"rdt": "RDT (paper)", "running": "+ running-mean baseline", "loo": "+ LOO baseline",
             "random": "Random Trees (independent classes)",
             "balanced": "Random Trees (balanced classes)"}
    print("| classes | W | D | sigma | Bayes | CART (W^D leaves) | linear SVM | variant | test | (train) |\n"
          "|---|---|---|---|---|---|---|---|---|---|")
    for i, (C, W, D, sigma, keys) in enumerate(labels):
        res = results[i * runs:(i + 1) * runs]
        col = lambda k: _fmt([x[k] for x in res])  # noqa: E731
        head = f"| {C} | {W} | {D} | [{sigma[0]}, {sigma[1]}] | {col('bayes')} | {col('cart')} | {col('svm')}"
        for k in keys:
            print(f"{head} | {names[k]} | {col(k)} | ({col(k + '_train')}) |")
            head = "| | | | | | | "
        print(f"{head} | Random Trees, untrained | {col('untrained')} | |", flush=True)
    print(f"\nwall time {time.perf_counter() - t0:.0f} s with {jobs} process(es)\n")


# ------------------------------------------------------------------ against the optimum
def part_datasets(datasets: list[str], depths: list[int], episodes: int, seeds: int) -> None:
    from sklearn.tree import DecisionTreeClassifier

    from satdt.heuristics.dpdt import solve_dpdt
    from satdt.verify import certify_many

    print(f"## ADAPTTREE0 and RDT against the proven optimum (load {_load()})\n")
    print(f"Training accuracy / errors; gap = errors - optimum (the DP's proven most accurate tree of "
          f"depth <= d over the `all` binarization, via `certify_many`); nodes after pruning; time in s. "
          f"ADAPTTREE0: {episodes} episodes, `max_depth=d`, seed 0 (and the range of errors over seeds "
          f"0-{seeds - 1}); RDT: axis-aligned, depth d, defaults, seed 0 (and the range over seeds).\n")
    print("| dataset | d | optimum errors (acc) | CART errors / gap / nodes | DPDT errors / gap / nodes "
          "| ADAPTTREE0 errors / gap / nodes / s | ADAPTTREE0 errors, seeds | RDT errors / gap / nodes / s "
          "| RDT errors, seeds |\n|---|---|---|---|---|---|---|---|---|")
    for name in datasets:
        data = load_dataset(name)
        problem = Binarizer("all").problem(data)
        for d in depths:
            cart = DecisionTreeClassifier(max_depth=d, random_state=0).fit(data.X, data.labels)
            dpdt = solve_dpdt(data, max_depth=d).result.tree
            ada_runs, rdt_runs = [], []
            for seed in range(seeds):
                t0 = time.perf_counter()
                a = solve_adapttree(problem, n_episodes=episodes, max_depth=d, random_state=seed).result
                ada_runs.append((a, time.perf_counter() - t0))
                t0 = time.perf_counter()
                r, _ = solve_rdt(problem, depth=d, random_state=seed)
                rdt_runs.append((r, time.perf_counter() - t0))
            trees = [cart, dpdt, ada_runs[0][0].tree, rdt_runs[0][0].tree]
            certs = certify_many(trees, data, objective="accuracy", max_depth=d, engine="dp")
            opt = certs[0].optimum
            n = data.n_rows
            cells = []
            for cert, tree, el in zip(certs, [None, dpdt, ada_runs[0][0].tree, rdt_runs[0][0].tree],
                                      [None, None, ada_runs[0][1], rdt_runs[0][1]]):
                nodes = (2 * cart.get_n_leaves() - 1) if tree is None else tree.n_nodes
                cell = f"{int(cert.tree_value)} / {int(cert.gap)} / {nodes}"
                cells.append(cell + (f" / {el:.2f}" if el is not None else ""))
            ada_range = [int(a.stats["errors"]) for a, _ in ada_runs]
            rdt_range = [int(r.objective) for r, _ in rdt_runs]
            status = certs[0].engine.status if getattr(certs[0], "engine", None) is not None else ""
            print(f"| {name} | {d} | {int(opt)} ({1 - opt / n:.4f}) {status} | {cells[0]} | {cells[1]} | {cells[2]} | "
                  f"{min(ada_range)}-{max(ada_range)} | {cells[3]} | {min(rdt_range)}-{max(rdt_range)} |", flush=True)
    print()


def part_size(datasets: list[str], episodes: int, seeds: int, time_limit: float) -> None:
    """Preda's objective on real data: splits of a consistent tree, against DT_size."""
    from satdt.solvers.dp import solve_min_size_dp

    print(f"## ADAPTTREE0's own objective on real data: the smallest consistent tree (load {_load()})\n")
    print(f"Consistent trees (no depth limit; `all` binarization). ADAPTTREE0: {episodes} episodes, the best "
          f"of seeds 0-{seeds - 1} (and the range). Optimum: `solve_min_size_dp` at depth <= the depth D of "
          f"ADAPTTREE0's best tree ({time_limit:g} s limit; FEASIBLE = the bound is a proven lower bound).\n")
    print("| dataset | ID3 splits (depth) | ADAPTTREE0 splits (depth), best | ADAPTTREE0 splits, seeds | s per run "
          "| min splits at depth <= D | status | gap |\n|---|---|---|---|---|---|---|---|")
    for name in datasets:
        data = load_dataset(name)
        problem = Binarizer("all").problem(data)
        id3 = id3_tree(problem)
        runs = []
        for seed in range(seeds):
            t0 = time.perf_counter()
            res = solve_adapttree(problem, n_episodes=episodes, random_state=seed).result
            runs.append((res, time.perf_counter() - t0))
        best = min(runs, key=lambda r: (r[0].stats["errors"], r[0].objective))[0]
        D = best.tree.depth()
        exact = solve_min_size_dp(problem, max_depth=D, time_limit=time_limit)
        opt = None if exact.objective is None else (int(exact.objective) - 1) // 2
        bound = None if exact.bound is None else int(np.ceil((exact.bound - 1) / 2))
        splits = [int(r.objective) for r, _ in runs]
        gap = "" if opt is None else (f"{int(best.objective) - opt}" if exact.status == "OPTIMAL"
                                      else f"<= {int(best.objective) - bound}")
        print(f"| {name} | {id3.n_splits} ({id3.depth()}) | {int(best.objective)} ({D}) | {min(splits)}-{max(splits)} "
              f"| {np.mean([el for _, el in runs]):.1f} | {opt} (bound {bound}) | {exact.status} | {gap} |", flush=True)
    print()


MULTIWAY_DATASETS = ["monk1", "monk2", "monk3", "mouse", "balance-scale", "car"]


def part_multiway(seeds: int, episodes: int = 100) -> None:
    """ADAPTTREE0 with multiway splits (``multiway="discrete"``: the integer-coded attributes split
    by every value) against ID3 (multiway) and the exact fewest tests (``min_multiway_tests``)."""
    from satdt.heuristics.rl.adapttree import attributes, count_tests, min_multiway_tests

    print(f"## ADAPTTREE0 with multiway splits (load {_load()})\n")
    print(f"Consistent trees; `all` binarization; `multiway=\"discrete\"` (integer features with <= 10 values "
          f"split by every value; a test = one multiway node). ADAPTTREE0: {episodes} episodes, paper settings, "
          f"best of seeds 0-{seeds - 1} (and the range). Exact: `min_multiway_tests` (memoized search).\n")
    print("| dataset | multiway features (values) | ID3 tests (binary nodes) | ADAPTTREE0 tests (binary nodes), best "
          "| ADAPTTREE0 tests, seeds | s per run | fewest tests (exact) | s exact | gap |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for name in MULTIWAY_DATASETS:
        data = load_dataset(name)
        problem = Binarizer("all").problem(data)
        attrs = attributes(problem, "discrete")
        arity = [len(attrs.columns[a]) + 1 for a in np.flatnonzero(attrs.multi)]
        id3 = problem.to_original(id3_tree(problem, multiway="discrete"))
        runs = []
        for seed in range(seeds):
            t0 = time.perf_counter()
            res = solve_adapttree(problem, n_episodes=episodes, multiway="discrete", random_state=seed).result
            runs.append((res, time.perf_counter() - t0))
            assert res.stats["errors"] == 0 and res.objective == count_tests(res.tree, attrs.multiway_features)
        best = min(runs, key=lambda r: (r[0].objective, r[0].stats["binary_splits"]))[0]
        t0 = time.perf_counter()
        opt = min_multiway_tests(problem, "discrete")
        el = time.perf_counter() - t0
        tests = [int(r.objective) for r, _ in runs]
        gap = "" if opt is None else int(best.objective - opt)
        print(f"| {name} | {len(arity)} ({', '.join(map(str, arity))}) | {count_tests(id3, attrs.multiway_features)} "
              f"({id3.n_splits}) | {int(best.objective)} ({best.stats['binary_splits']}) | {min(tests)}-{max(tests)} "
              f"| {np.mean([e for _, e in runs]):.1f} | {'' if opt is None else int(opt)} | {el:.1f} | {gap} |",
              flush=True)
    print()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", default=["paper", "toy", "datasets", "size"],
                    choices=["paper", "toy", "gap", "datasets", "size", "multiway"])
    ap.add_argument("--jobs", type=int, default=1, help="toy, gap: processes running the runs")
    ap.add_argument("--seeds", type=int, default=10, help="paper: ADAPTTREE0 seeds; datasets: seeds for the range")
    ap.add_argument("--runs", type=int, default=5, help="toy: runs per cell")
    ap.add_argument("--grid", nargs="*", default=GRID, help="toy: CLASSES:W:D cells")
    ap.add_argument("--epochs", type=int, default=100, help="toy: RDT epochs")
    ap.add_argument("--episodes", type=int, default=100, help="datasets: ADAPTTREE0 episodes")
    ap.add_argument("--datasets", nargs="*", default=DATASETS)
    ap.add_argument("--depths", nargs="*", type=int, default=[2, 3])
    ap.add_argument("--size-datasets", nargs="*", default=SIZE_DATASETS, help="size: datasets")
    ap.add_argument("--time-limit", type=float, default=60.0, help="size: seconds per DT_size solve")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args(argv)
    for part in dict.fromkeys(a.parts):
        if part == "paper":
            part_paper(a.seeds, not a.no_figures)
        elif part == "toy":
            part_toy(a.runs, a.grid, a.epochs, not a.no_figures, a.jobs)
        elif part == "gap":
            part_gap(a.runs, a.jobs, a.epochs)
        elif part == "multiway":
            part_multiway(a.seeds)
        elif part == "datasets":
            part_datasets(a.datasets, a.depths, a.episodes, min(a.seeds, 3))
        else:
            part_size(a.size_datasets, 200, min(a.seeds, 3), a.time_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
