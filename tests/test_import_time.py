"""The `satdt` command starts fast: heavy libraries load only in the commands that use them.

Not timed (timings: ``benchmarks/bench_startup.py``, ``benchmarks/RESULTS.md`` "CLI start"):
these tests check *which* modules a fresh interpreter has loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from satdt import data as satdt_data

HEAVY = ("sklearn", "pandas", "ortools", "scipy", "matplotlib", "joblib")

_LIST_HEAVY = ("import sys; print(sorted({m.split('.')[0] for m in sys.modules} & set(%r)), file=sys.stderr)"
               % (HEAVY,))


def _heavy_after(code: str) -> tuple[list[str], str]:
    """Run ``code`` in a fresh interpreter; return the heavy top-level packages it loaded and its stdout."""
    proc = subprocess.run([sys.executable, "-c", code + "\n" + _LIST_HEAVY], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1].replace("'", '"')), proc.stdout


def test_import_cli_loads_no_heavy_module():
    loaded, _ = _heavy_after("import satdt.cli")
    assert loaded == [], f"import satdt.cli loads {loaded}"


def test_cli_parser_builds_without_heavy_modules():
    loaded, _ = _heavy_after("import satdt.cli; satdt.cli.build_parser().parse_args(['solve', 'iris', '--method', 'sat-depth'])")
    assert loaded == [], loaded


# sat-size on iris is left out: the SAT engine builds its CART incumbent (scikit-learn) once a
# call has run 0.5 s (satdt.solvers.sat.CART_AFTER_S), which a loaded machine reaches
@pytest.mark.parametrize("method, dataset, optimum", [("sat-depth", "iris", 4), ("sat-size", "lung-cancer", 7)])
def test_solve_sat_loads_no_sklearn_pandas_ortools(method, dataset, optimum):
    loaded, out = _heavy_after(
        "import sys; from satdt.cli import main\n"
        f"code = main(['solve', '{dataset}', '--method', '{method}', '--json'])\n"
        "assert code == 0, code")
    summary = json.loads(out)
    assert summary["status"] == "OPTIMAL" and summary["objective"] == optimum
    assert summary["stats"]["engine"] in ("sat", "dp") and summary["stats"]["engine_reason"]
    assert loaded == [], f"satdt solve {dataset} --method {method} loads {loaded}"


def test_other_methods_still_listed_and_checked(capsys):
    from satdt.cli import main
    from satdt.estimators import METHODS

    assert main(["solve", "iris", "--method", "no-such-method"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and all(m in err for m in METHODS)


def test_public_import_paths_still_work():
    from satdt.estimators import NoTreeFoundError
    from satdt.result import NoTreeFoundError as same

    assert NoTreeFoundError is same


# ---------------------------------------------------------------------------- the plain CSV reader
def _both(path: Path):
    import pandas as pd

    fast = satdt_data._read_simple_csv(path, True)
    frame = pd.read_csv(path, encoding="utf-8-sig", skipinitialspace=True)
    slow = satdt_data.prepare(frame.iloc[:, :-1], frame.iloc[:, -1], name=path.stem)
    return fast, slow


def _same(a, b) -> bool:
    return (np.array_equal(a.X, b.X) and a.X.dtype == b.X.dtype and np.array_equal(a.y, b.y)
            and a.classes.dtype == b.classes.dtype and a.classes.tolist() == b.classes.tolist()
            and a.schema == b.schema and a.name == b.name)


def _csv_files() -> list[Path]:
    root = Path(__file__).resolve().parents[1]
    return sorted((root / "satdt" / "datasets").glob("*.csv"))


def test_plain_reader_equals_pandas_on_every_dataset():
    checked = 0
    for path in _csv_files():
        fast, slow = _both(path)
        if fast is not None:
            assert _same(fast, slow), path
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("content, plain", [
    ("a,b,label\n1,2.5,x\n3,-4,y\n", True),                 # text labels
    ("a,b,label\n1,2.5,0.0\n3,-.5,1.0\n", True),            # float labels
    ("a,b,label\n1,2,0\n3,4,1\n\n", True),                  # trailing blank line
    ("\ufeffa,b,label\r\n1,2,0\r\n3,4,1\r\n", True),       # BOM, CRLF
    ("a,b,label\n1,2,1\n3,4,2.0\n", True),                  # mixed int/float labels: floats
    ("a,b,label\n1,x,0\n3,4,1\n", False),                   # text feature: categories
    ("a,b,label\n1,,0\n3,4,1\n", False),                    # missing value
    ("a,b,label\n1,nan,0\n3,4,1\n", False),
    ("a,b,label\n1,1e3,0\n3,4,1\n", False),                 # exponent
    ("a,b,label\n1,2,NA\n3,4,1\n", False),                  # missing label
    ("a,b,label\n1,2,True\n3,4,False\n", False),            # booleans
    ("a,b,label\n1,2,1\n3,4,x\n", False),                   # mixed number/text labels
    ('a,b,label\n"1",2,0\n3,4,1\n', False),                 # quotes
    ("a, b,label\n1,2,0\n3,4,1\n", False),                  # space after comma
    ("a,a,label\n1,2,0\n3,4,1\n", False),                   # duplicate names
    ("a,b,label\n1,2,0\n3,4\n", False),                     # short row
    ("a,b,label\n1,2,0\n3,4,0\n", False),                   # one class: pandas path raises
])
def test_plain_reader_agrees_with_pandas(tmp_path, content, plain):
    path = tmp_path / "d.csv"
    path.write_bytes(content.encode("utf-8"))
    fast = satdt_data._read_simple_csv(path, True)
    assert (fast is not None) == plain
    if plain:
        _, slow = _both(path)
        assert _same(fast, slow)
    else:
        try:  # load_csv falls back to pandas: the same result as before
            via = satdt_data.load_csv(path)
        except satdt_data.DataError:
            return
        _, slow = _both(path)
        assert _same(via, slow)
