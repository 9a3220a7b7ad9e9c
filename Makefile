# Two commands for a fresh clone: `make demo` and `make test` (each sets up .venv first).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo test bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

demo: setup
	$(BIN)/satdt solve iris --method sat-depth
	$(BIN)/satdt solve iris --method sat-size
	$(BIN)/satdt solve car --method sat-size --engine dp --time-limit 120
	$(BIN)/satdt solve bmi --method sat-size --engine dp --time-limit 300
	$(BIN)/satdt solve monk1-onehot --method cpsat --lam 0.01 --max-depth 4 --time-limit 60
	$(BIN)/satdt solve iris --method dpdt --max-depth 3 --alpha 0.01

test: setup
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
