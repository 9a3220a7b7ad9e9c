"""Rebuild benchmarks/RESULTS.md from the per-engine sections in benchmarks/results/.

Each section names the exact command that produced each of its figures; this script only joins
them in a fixed order under one header: ``python benchmarks/assemble_results.py``.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ["anytime", "threads", "peers", "dl85", "sat", "maxsat", "mip", "dp", "cpsat", "dpdt", "cart_vs_optimal", "select", "startup", "rl", "progress", "limits", "proof", "weights"]
TITLES = {"anytime": "Good trees at a time limit: the anytime DP against pytrees-rs LDS and CART (issue 21)",
          "threads": "The DP on two threads (n_jobs, issue 21)",
          "proof": "Certificates: producing and checking them (issue 23)",
          "weights": "Weights, balanced accuracy, costs and missing values (issue 24)",
          "peers": "The exact DP against STreeD and ConTree, side by side (issue 13)",
          "dl85": "The exact DP on the DL8.5 / MurTree binary sets against STreeD",
          "sat": "DT_depth and DT_size (SAT, issue 2)", "maxsat": "MaxSAT (issue 3)",
          "mip": "BinOCT and OCT (MIP, issue 3)", "dp": "Dynamic programming, max accuracy (issue 3)",
          "cpsat": "Regularized objective (CP-SAT, issue 4)", "dpdt": "DPDT (issue 5)",
          "cart_vs_optimal": "How far CART and DPDT are from optimal (issue 6)",
          "select": "Choosing the complexity by cross-validation (issue 16)",
          "startup": "CLI start (issue 13)",
          "rl": "RL tree builders: ADAPTTREE0 and RDT against the optimum (issue 15)",
          "progress": "Progress reporting overhead (issue 16)",
          "limits": "Time-limit overruns on the largest sets (issue 16)"}

HEADER = """# satdt benchmark results

Every figure below was produced on this project's machine type (2 cores, 24 GB), which is shared
and was loaded by other work while these ran: compare ratios measured side by side in one run,
not absolute seconds across sections. Each section gives the command that produced it. Datasets
are the files of the shared benchmark folder (see `satdt/datasets/README.md` for the bundled
copies and their sources). Optimality is stated only where the engine proved it.

Running a benchmark beside other work on Linux: with the kernel's autogroups on
(`/proc/sys/kernel/sched_autogroup_enabled` = 1, the default on many systems) `nice` has no effect
between terminal sessions, and a `nice -n 19` build in another session still takes a full core
from the benchmark; turn them off (`echo 0 > /proc/sys/kernel/sched_autogroup_enabled`, as root)
so that the other work yields (sections from 2026-11-27 13:50 UTC on were run that way).

"""


def main() -> None:
    parts = [HEADER, "## Contents\n"]
    present = [name for name in ORDER if (HERE / "results" / f"{name}.md").is_file()]
    parts += [f"- [{TITLES[n]}](#{n.replace('_', '-')})" for n in present]
    parts.append("")
    for name in present:
        body = (HERE / "results" / f"{name}.md").read_text().strip()
        parts.append(f'<a id="{name.replace("_", "-")}"></a>\n\n{body}\n')
    (HERE / "RESULTS.md").write_text("\n".join(parts))
    print(f"wrote {HERE / 'RESULTS.md'} from {', '.join(present)}")


if __name__ == "__main__":
    main()
