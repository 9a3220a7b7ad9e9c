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
    means uniform in [-1, 1]^2, sigma uniform in [0.01, 0.1]): RDT (the paper's REINFORCE), RDT
    with a running-mean baseline, Random Trees, CART, linear SVM and the Bayes classifier, test
    accuracy mean +- std over ``--runs`` runs; the decision-region figure ``figures/rdt_regions.png``.
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
    python benchmarks/bench_rl.py toy --runs 5 --grid 16:2:5 32:2:6
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
from satdt.solvers.rl.adapttree import id3_tree, paper_problem, solve_adapttree  # noqa: E402
from satdt.solvers.rl.rdt import ReinforcedDecisionTree, gaussian_toy, solve_rdt  # noqa: E402

FIGURES = ROOT / "benchmarks" / "figures"
DATASETS = ["monk1", "monk2", "monk3", "tic-tac-toe", "iris", "wine", "balance-scale", "car"]
SIZE_DATASETS = ["mouse", "monk1", "monk3", "iris", "zoo"]
GRID = ["16:2:4", "16:2:5", "16:4:2", "32:2:5", "32:2:6"]
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
def _bayes(C: int, seed: int, X: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(seed)                      # the generator's own draws, in order
    means = rng.uniform(-1, 1, size=(C, 2))
    sigmas = rng.uniform(0.01, 0.1, size=C)
    ll = -((X[:, None, :] - means[None]) ** 2).sum(-1) / (2 * sigmas ** 2) - 2 * np.log(sigmas)
    return ll.argmax(axis=1)


def part_toy(runs: int, grid: list[str], epochs: int, figure: bool) -> None:
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    print(f"## Reinforced Decision Trees: 2-D Gaussians (load {_load()})\n")
    print(f"Test accuracy, mean +- std over {runs} runs (run r: data seed r, model seed r); {epochs} epochs, "
          "M = 10 trajectories, batch 10, squared loss, prediction by the most likely path.\n")
    print("| classes | W | D | leaves | RDT (paper: REINFORCE) | RDT + baseline | Random Trees | CART (W^D leaves) "
          "| CART (full) | linear SVM | Bayes | paper RDT | time s (RDT, 1 run) |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    fmt = lambda v: f"{np.mean(v):.3f} +- {np.std(v):.3f}"  # noqa: E731
    for cell in grid:
        C, W, D = (int(v) for v in cell.split(":"))
        acc = {k: [] for k in ("rdt", "base", "random", "cart", "cartfull", "svm", "bayes")}
        el = 0.0
        for r in range(runs):
            Xtr, ytr, Xte, yte = gaussian_toy(C, random_state=r)
            for key, kw in (("rdt", {}), ("base", {"baseline": True}), ("random", {"random_leaves": True})):
                t0 = time.perf_counter()
                m = ReinforcedDecisionTree(width=W, depth=D, epochs=epochs, random_state=r, **kw).fit(Xtr, ytr, C)
                if key == "rdt" and r == 0:
                    el = time.perf_counter() - t0
                acc[key].append(float((m.predict_index(Xte) == yte).mean()))
            acc["cart"].append(DecisionTreeClassifier(max_leaf_nodes=W ** D, random_state=r).fit(Xtr, ytr).score(Xte, yte))
            acc["cartfull"].append(DecisionTreeClassifier(random_state=r).fit(Xtr, ytr).score(Xte, yte))
            acc["svm"].append(LinearSVC(random_state=r).fit(Xtr, ytr).score(Xte, yte))
            acc["bayes"].append(float((_bayes(C, r, Xte) == yte).mean()))
        print(f"| {C} | {W} | {D} | {W ** D} | {fmt(acc['rdt'])} | {fmt(acc['base'])} | {fmt(acc['random'])} | "
              f"{fmt(acc['cart'])} | {fmt(acc['cartfull'])} | {fmt(acc['svm'])} | {fmt(acc['bayes'])} | "
              f"{PAPER_TOY.get((C, W, D), '')} | {el:.1f} |", flush=True)
    print()
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


# ------------------------------------------------------------------ against the optimum
def part_datasets(datasets: list[str], depths: list[int], episodes: int, seeds: int) -> None:
    from sklearn.tree import DecisionTreeClassifier

    from satdt.solvers.dpdt import solve_dpdt
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", default=["paper", "toy", "datasets", "size"],
                    choices=["paper", "toy", "datasets", "size"])
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
            part_toy(a.runs, a.grid, a.epochs, not a.no_figures)
        elif part == "datasets":
            part_datasets(a.datasets, a.depths, a.episodes, min(a.seeds, 3))
        else:
            part_size(a.size_datasets, 200, min(a.seeds, 3), a.time_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
