"""The satdt command: contract of DESIGN.md (keys, exit codes, one-line errors)."""

import json

import pytest

from satdt.cli import main

JSON_KEYS = {"method", "status", "objective", "bound", "errors", "train_accuracy", "depth", "n_nodes",
             "n_leaves", "runtime_s", "binarization", "stats", "tree"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_datasets_lists_bundled(capsys):
    code, out, _ = run(capsys, "datasets")
    assert code == 0
    for name in ("iris", "monk1", "monk2", "monk3", "mouse", "wine", "balance-scale", "car", "zoo", "tic-tac-toe"):
        assert name in out


@pytest.mark.parametrize("content, message", [
    ("a,b,label\n1,nan,0\n2,3,1\n", "NaN"),
    ("a,b,label\n1,inf,0\n2,3,1\n", "infinite"),
    ("", "empty"),
    ("a,b,label\n", "no data row"),
    ("a,b,label\n1,2,0\n3,4,0\n", "single class (0);"),  # the plain value, not np.int64(0)
    ("a,b,label\n1,2,0\n3,4\n", "missing label"),
])
def test_bad_data_exits_1_with_one_line(capsys, tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = run(capsys, "solve", str(path), "--method", "dpdt")
    assert code == 1
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_contradictory_rows_exit_1_for_sat(capsys, tmp_path):
    path = tmp_path / "conflict.csv"
    path.write_text("a,label\n1,0\n1,1\n2,0\n")
    code, _, err = run(capsys, "solve", str(path), "--method", "sat-depth")
    assert code == 1 and "identical after" in err and "rows 0, 1" in err


@pytest.mark.parametrize("argv", [
    ["solve", "iris", "--method", "nope"],
    ["solve", "iris"],
    ["solve", "iris", "--method", "sat-depth", "--time-limit", "-1"],
    ["solve", "iris", "--method", "cpsat", "--max-depth", "x"],
    ["frobnicate"],
])
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and "usage" in err


def test_unknown_dataset_and_missing_file_exit_1(capsys):
    code, _, err = run(capsys, "solve", "no-such-data", "--method", "sat-depth")
    assert code == 1 and "unknown dataset" in err
    code, _, err = run(capsys, "verify", "iris", "--tree", "/no/such/tree.json")
    assert code == 1 and "No such file" in err


def test_bench_runs_heuristics(capsys):
    code, out, err = run(capsys, "bench", "--methods", "cart-gini", "--datasets", "iris", "--depths", "2", "--json")
    assert code == 0
    rows = json.loads(out)
    assert rows[0]["errors"] == 6 and rows[0]["status"] == "HEURISTIC"
    assert "[1/1]" in err
    code, _, err = run(capsys, "bench", "--methods", "nope", "--datasets", "iris")
    assert code == 1 and "unknown method" in err


@pytest.mark.parametrize("method, extra", [
    ("sat-depth", []), ("sat-size", []), ("sat-depth", ["--engine", "dp"]), ("sat-size", ["--engine", "dp"]),
    ("maxsat", ["--max-depth", "2"]), ("dp", ["--max-depth", "2"]), ("binoct", ["--max-depth", "2"]),
    ("oct", ["--max-depth", "2", "--alpha", "0.001"]), ("cpsat", ["--max-depth", "2", "--lam", "0.01"]),
    ("dpdt", ["--max-depth", "2", "--cart-depth", "3,2", "--alpha", "0.001"]),
])
def test_solve_json_follows_the_contract(capsys, method, extra):
    code, out, err = run(capsys, "solve", "mouse", "--method", method, "--json", "--time-limit", "60", *extra)
    assert code == 0, err
    d = json.loads(out)
    assert JSON_KEYS <= set(d)
    assert d["method"] == method and d["status"] in ("OPTIMAL", "FEASIBLE")
    assert 0.0 <= d["train_accuracy"] <= 1.0
    assert d["train_accuracy"] == pytest.approx(1 - d["errors"] / 70)
    assert d["tree"]["feature_names"] == ["A", "B", "C", "D", "E"]
    if method.startswith("sat"):
        assert d["errors"] == 0 and d["depth"] == 4 and d["status"] == "OPTIMAL"
        assert d["objective"] == (4 if method == "sat-depth" else 15)
    else:
        assert d["depth"] <= 2
    if method in ("maxsat", "dp"):
        assert d["status"] == "OPTIMAL" and d["objective"] == d["errors"] == 2
    if method == "dpdt":
        assert d["pareto_front"] and d["status"] == "FEASIBLE"


def test_export_formats_to_file(capsys, tmp_path):
    from satdt.tree import Tree

    for fmt in ("text", "json", "dot"):
        path = tmp_path / f"tree.{fmt}"
        code, out, _ = run(capsys, "solve", "lung-cancer", "--method", "sat-depth", "--export", fmt, "--output", str(path))
        assert code == 0 and "sat-depth on lung-cancer: OPTIMAL" in out
        text = path.read_text()
        if fmt == "json":
            tree = Tree.from_json(text)
            assert tree.depth() == 3
        elif fmt == "dot":
            assert text.startswith("digraph Tree")
        else:
            assert "class:" in text and any(name in text for name in ("Age", "Smokes", "AreaQ", "Alkhol"))


def test_engine_applies_to_sat_methods_only(capsys):
    code, out, err = run(capsys, "solve", "mouse", "--method", "dpdt", "--engine", "dp")
    assert code == 1 and "engine applies to sat-depth and sat-size only" in err and err.count("\n") == 1


def test_warm_start_from_dpdt(capsys):
    code, out, _ = run(capsys, "solve", "monk3", "--method", "binoct", "--max-depth", "2", "--warm-start", "dpdt", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["status"] == "OPTIMAL" and summary["errors"] == 8
    code, _, err = run(capsys, "solve", "monk3", "--method", "dpdt", "--warm-start", "dpdt")
    assert code == 1 and "warm start applies to binoct, oct and cpsat only" in err and err.count("\n") == 1


def test_oct_min_leaf_and_dpdt_fronts(capsys):
    code, out, _ = run(capsys, "solve", "monk3", "--method", "oct", "--max-depth", "2", "--min-leaf", "30", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["stats"]["min_leaf"] == 30
    leaves = [n for n in _walk(summary["tree"]["root"]) if "class" in n]
    assert len(leaves) >= 2 and all(sum(leaf["counts"]) >= 30 for leaf in leaves)
    code, _, err = run(capsys, "solve", "monk3", "--method", "binoct", "--min-leaf", "3")
    assert code == 1 and "min leaf applies to oct only" in err
    code, out, _ = run(capsys, "solve", "monk3", "--method", "dpdt", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["pareto_front"] and summary["pareto_front_nodes"]
    nodes = [p["n_nodes"] for p in summary["pareto_front_nodes"]]
    assert nodes == sorted(nodes)


def _walk(node):
    yield node
    for key in ("left", "right"):
        if isinstance(node.get(key), dict):
            yield from _walk(node[key])


# --- INFEASIBLE is a result: a proof, reported with its bound, exit 0 (issue 16, item 5) ----
@pytest.mark.parametrize("method, engine", [("sat-size", "sat"), ("sat-size", "dp"), ("sat-size", None),
                                            ("sat-depth", "sat"), ("sat-depth", "dp")])
def test_proven_infeasible_is_a_result_in_text_and_json(capsys, method, engine):
    extra = [] if engine is None else ["--engine", engine]
    # monk3's minimum depth of an error-free tree is 6
    code, out, err = run(capsys, "solve", "monk3", "--method", method, "--max-depth", "5", *extra)
    assert code == 0 and err == ""
    assert f"{method} on monk3: INFEASIBLE  (bound: depth >= 6)" in out
    assert "proven: no tree of depth <= 5 classifies every training row" in out
    assert "time_limit" not in out
    code, out, err = run(capsys, "solve", "monk3", "--method", method, "--max-depth", "5", "--json", *extra)
    assert code == 0 and err == ""
    summary = json.loads(out)
    assert JSON_KEYS <= set(summary)
    assert summary["status"] == "INFEASIBLE" and summary["depth_bound"] == 6 and summary["tree"] is None
    assert summary["objective"] is None and summary["errors"] is None
    assert summary["bound"] == (6 if method == "sat-depth" else None)   # depth >= 6; nodes: none
    assert "no tree of depth <= 5" in summary["proof"]


def test_proven_infeasible_from_a_csv_and_an_export_request(capsys, tmp_path):
    path = tmp_path / "xor.csv"  # XOR of two bits: depth 2 is needed
    path.write_text("a,b,label\n0,0,0\n0,1,1\n1,0,1\n1,1,0\n")
    out_file = tmp_path / "tree.json"
    code, out, err = run(capsys, "solve", str(path), "--method", "sat-size", "--max-depth", "1",
                         "--export", "json", "--output", str(out_file))
    assert code == 0 and "INFEASIBLE  (bound: depth >= 2)" in out
    assert "no tree to export (INFEASIBLE)" in err and not out_file.exists()


def test_oct_min_leaf_above_the_rows_is_infeasible(capsys):
    code, out, err = run(capsys, "solve", "iris", "--method", "oct", "--max-depth", "1", "--min-leaf", "200",
                         "--json")
    assert code == 0 and err == ""
    summary = json.loads(out)
    assert summary["status"] == "INFEASIBLE" and "at least 200 training rows" in summary["proof"]


def test_verify_reports_an_empty_search_space_as_infeasible(capsys, tmp_path):
    tree = tmp_path / "tree.json"
    assert run(capsys, "solve", "monk3", "--method", "sat-depth", "--export", "json",
               "--output", str(tree))[0] == 0
    code, out, err = run(capsys, "verify", "monk3", "--tree", str(tree), "--objective", "size",
                         "--max-depth", "5")
    assert code == 0 and err == ""
    assert out.startswith("INFEASIBLE: objective size (depth <= 5)") and "minimum depth is at least 6" in out
    code, out, _ = run(capsys, "verify", "monk3", "--tree", str(tree), "--objective", "size",
                       "--max-depth", "5", "--json")
    cert = json.loads(out)
    assert code == 0 and cert["status"] == "INFEASIBLE" and cert["depth_bound"] == 6
    assert cert["better_tree"] is None and "no tree of depth <= 5" in cert["proof"]


def test_bench_rows_report_infeasible_not_error(capsys):
    code, out, _ = run(capsys, "bench", "--methods", "sat-size", "--datasets", "monk3", "--depths", "5", "--json")
    row = json.loads(out)[0]
    assert code == 0 and row["status"] == "INFEASIBLE" and "error" not in row
    assert "minimum depth is at least 6" in row["proof"]
