"""The anytime curve over all cells: each tool's training errors at every time limit, from the CSVs
of ``bench_anytime.py`` (issue 21, item 4).

Reads one CSV per run (any number of limits, sets and tools in each; a later file replaces a
(set, depth, limit, tool) row of an earlier one; CART's tree does not depend on the limit, so a
cell without a CART row takes it from another limit), and prints

- a Markdown table, one row per (set, depth): satdt's errors and proven bound at each limit, with
  the best of the peers (LDS, ConTree, STreeD) and CART beside it;
- per limit: the cells where satdt is at or below the best peer, strictly below CART, and each
  anytime tool's geometric mean of (errors + 1) / (CART's errors + 1) over the cells that satdt,
  LDS, ConTree and CART answered at every limit (the same cells for every limit);

and with ``--plot FILE`` draws that geometric mean against the limit for every tool (log axis).

    python benchmarks/anytime_summary.py benchmarks/results/anytime5_s35.csv \
        benchmarks/results/anytime30_s35.csv --plot benchmarks/figures/anytime_summary.png
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

PEERS = ("lds", "contree", "streed")
NAMES = {"satdt": "satdt", "lds": "LDS (pytrees-rs)", "contree": "ConTree", "streed": "STreeD", "cart": "CART"}


def load(paths: list[Path]) -> dict[tuple[str, int, float], dict[str, dict]]:
    """(set, depth, limit) -> tool -> row, the later files replacing the earlier ones' rows."""
    cells: dict[tuple[str, int, float], dict[str, dict]] = {}
    for path in paths:
        with path.open() as fh:
            for r in csv.DictReader(fh):
                key = (Path(r["set"]).stem if r["set"].endswith(".csv") else r["set"], int(r["depth"]),
                       float(r["limit"]))
                cells.setdefault(key, {})[r["tool"]] = r
    cart = {(s, d): by["cart"] for (s, d, _), by in cells.items() if "cart" in by}
    for (s, d, _), by in cells.items():  # CART does not depend on the limit: any run's row serves
        if "cart" not in by and (s, d) in cart:
            by["cart"] = cart[(s, d)]
    return cells


def errors(row: dict | None) -> int | None:
    """A row's training errors (None: no tree, e.g. killed at the watchdog)."""
    if row is None or row.get("errors") in ("", None):
        return None
    return int(float(row["errors"]))


def best_peer(by: dict[str, dict]) -> int | None:
    """The fewest errors among the peers that answered (None: none did)."""
    found = [errors(by.get(t)) for t in PEERS if errors(by.get(t)) is not None]
    return min(found) if found else None


def satdt_leads(by: dict[str, dict]) -> bool:
    """Whether satdt's errors are at or below the best peer's (True when no peer answered)."""
    peer = best_peer(by)
    return peer is None or errors(by["satdt"]) <= peer


def table(cells: dict, limits: list[float]) -> str:
    """Markdown: one row per (set, depth); per limit satdt [bound] and the best peer."""
    head = ["set", "depth"] + [f"{lim:g} s: satdt [bound] / best peer / CART" for lim in limits]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, depth in sorted({(s, d) for s, d, _ in cells}, key=lambda k: (k[0], k[1])):
        line = [name, str(depth)]
        for lim in limits:
            by = cells.get((name, depth, lim))
            if not by or errors(by.get("satdt")) is None:
                line.append("—")
                continue
            s = by["satdt"]
            e, peer = errors(s), best_peer(by)
            mark = "**" if satdt_leads(by) else ""
            bound = s.get("bound") or "0"
            opt = " OPT" if s.get("status") == "OPTIMAL" else f" [{bound}]"
            cart = errors(by.get("cart"))
            line.append(f"{mark}{e}{mark}{opt} / {'—' if peer is None else peer} / "
                        f"{'—' if cart is None else cart}")
        out.append("| " + " | ".join(line) + " |")
    return "\n".join(out)


def summary(cells: dict, limits: list[float]) -> tuple[str, dict[str, list[tuple[float, float]]]]:
    """Per limit: satdt at or below the best peer, strictly below CART (where a better tree is
    known: some tool has fewer errors than CART), and each tool's geometric mean of
    (errors + 1) / (CART + 1) over the same cells at every limit: those where satdt, LDS, ConTree
    and CART all answered at every limit (STreeD, not anytime, answers few: left out of the mean)."""
    tools = ("satdt", "lds", "contree")
    pairs = {(s, d) for s, d, _ in cells}
    common = sorted(p for p in pairs if all(errors(cells.get((*p, lim), {}).get(t)) is not None
                                            for lim in limits for t in tools + ("cart",)))
    lines = ["| limit (s) | cells | satdt <= best peer | satdt < CART (of the cells where some tool beats CART) | "
             f"geometric mean of (errors + 1) / (CART + 1) over the same {len(common)} cells at every limit |",
             "|---|---|---|---|---|"]
    curves: dict[str, list[tuple[float, float]]] = {}
    for lim in limits:
        keys = [k for k in cells if k[2] == lim and errors(cells[k].get("satdt")) is not None]
        le = sum(1 for k in keys if satdt_leads(cells[k]))
        beatable = [k for k in keys if errors(cells[k].get("cart")) is not None and
                    min(errors(r) for r in cells[k].values() if errors(r) is not None) < errors(cells[k]["cart"])]
        below = sum(1 for k in beatable if errors(cells[k]["satdt"]) < errors(cells[k]["cart"]))
        means = []
        for t in tools if common else ():
            ratios = [(errors(cells[(*p, lim)][t]) + 1) / (errors(cells[(*p, lim)]["cart"]) + 1) for p in common]
            g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            curves.setdefault(t, []).append((lim, g))
            means.append(f"{NAMES[t].split(' ')[0]} {g:.3f}")
        lines.append(f"| {lim:g} | {len(keys)} | {le} | {below} of {len(beatable)} | {', '.join(means) or '—'} |")
    return "\n".join(lines), curves


def plot(curves: dict[str, list[tuple[float, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.8))
    for tool, pts in curves.items():
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=NAMES[tool])
    ax.axhline(1.0, color="grey", lw=0.8, ls="--", label="CART")
    ax.set_xscale("log")
    limits = sorted({p[0] for pts in curves.values() for p in pts})
    ax.set_xticks(limits, [f"{lim:g}" for lim in limits])
    ax.minorticks_off()
    ax.set_xlabel("time limit (s)")
    ax.set_ylabel("geometric mean of (errors+1)/(CART+1)")
    ax.set_title("Training errors at a time limit, relative to CART (lower is better)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+", type=Path, help="CSV files of bench_anytime.py (later ones win)")
    ap.add_argument("--plot", type=Path, default=None, help="write the summary figure here")
    a = ap.parse_args()
    cells = load(a.csv)
    limits = sorted({k[2] for k in cells})
    print(table(cells, limits))
    print()
    text, curves = summary(cells, limits)
    print(text)
    if a.plot:
        plot(curves, a.plot)


if __name__ == "__main__":
    main()
