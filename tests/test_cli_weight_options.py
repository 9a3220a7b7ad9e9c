"""``--class-weight``, ``--objective`` and ``--costs`` given to a method that does not take them: a usage error
(exit 2) naming the methods they apply to, before the data is read, as every other option of ``satdt solve``
(the README's promise; they were exit 1 after reading the data: h44r's rehearsal)."""

from __future__ import annotations

import pytest

from satdt.cli import main


@pytest.mark.parametrize("method", ["sat-depth", "sat-size", "dpdt", "adapttree", "rdt"])
@pytest.mark.parametrize("option", [["--class-weight", "balanced"], ["--objective", "balanced-accuracy"],
                                    ["--costs", "costs.csv"]])
def test_a_weight_option_that_does_not_apply_is_a_usage_error(method, option, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "costs.csv").write_text("0 1\n1 0\n")
    # a data file that does not exist: the usage error comes before it is read
    assert main(["solve", "no-such-file.csv", "--method", method, *option]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{option[0]} does not apply to {method}" in err and "dp" in err


def test_the_methods_that_take_them_still_do(tmp_path, capsys):
    costs = tmp_path / "costs.csv"
    costs.write_text("0 1 1\n5 0 1\n5 1 0\n")
    assert main(["solve", "iris", "--method", "dp", "--max-depth", "2", "--costs", str(costs), "--quiet"]) == 0
    assert "cost = 6.0" in capsys.readouterr().out
    assert main(["solve", "iris", "--method", "cpsat", "--max-depth", "2", "--lam", "0.01", "--class-weight", "balanced",
                 "--quiet"]) == 0


def test_an_empty_costs_file_is_one_line(tmp_path, capsys):
    """numpy's "loadtxt: input contained no data" warning came first, then "costs has shape (0, 1)"."""
    empty = tmp_path / "costs.csv"
    empty.write_text("\n")
    assert main(["solve", "iris", "--method", "dp", "--max-depth", "1", "--costs", str(empty)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not a matrix of numbers" in err
