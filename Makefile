# Two commands for a fresh clone: `make demo` and `make test` (each sets up .venv first).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo test test-fast fuzz bench clean

setup: $(VENV)/.installed

# the compiled DP core (satdt.solvers.dp._core, sources in satdt/solvers/dp/core/) is built by pip
# from source: it needs a C++ compiler and the Python headers; say which is missing in one line
$(VENV)/.installed: pyproject.toml setup.py $(wildcard satdt/solvers/dp/core/*.h satdt/solvers/dp/core/*.cpp)
	@command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || { \
	  echo "satdt: no C++ compiler found; the DP core needs one (Debian/Ubuntu: apt-get install g++)" >&2; exit 1; }
	@$(PYTHON) -c "import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" || { \
	  echo "satdt: no Python.h for $(PYTHON); the DP core needs the Python headers (Debian/Ubuntu: apt-get install python3-dev)" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,peers,cluster,plot,onnx]'
	touch $@

demo: setup
	$(BIN)/satdt solve iris --method sat-depth
	$(BIN)/satdt solve iris --method sat-size
	$(BIN)/satdt solve car --method sat-size --engine dp --time-limit 120
	$(BIN)/satdt solve bmi --method sat-size --engine dp --time-limit 300
	$(BIN)/satdt solve monk1-onehot --method cpsat --lam 0.01 --max-depth 4 --time-limit 60
	$(BIN)/satdt solve iris --method dpdt --max-depth 3 --alpha 0.01
	$(BIN)/satdt solve compas --method dp --max-depth 6 --time-limit 10 --progress

test: setup
	$(BIN)/python -m pytest -n 2

# the edit loop: everything but the tests marked slow (under 2 minutes on 2 cores). Both targets
# run on two processes (pytest-xdist): the whole suite takes about 6.5 minutes that way against
# 11-12 in one process; the timing tests (limits, signals, the fuzzer) assert on the engines' own
# runtime with the documented tolerance, so they hold with the second process beside them
test-fast: setup
	$(BIN)/python -m pytest -m "not slow" -n 2

# issue 22's fuzzer campaign (not part of `make test`: ~45 min on 2 cores): 2,000 satdt runs,
# a quarter of them wide / tall / extreme shapes; each run's outcome in benchmarks/out/fuzz.jsonl
fuzz: setup
	mkdir -p benchmarks/out
	$(BIN)/python tests/test_fuzz.py --runs 2000 --seed 20000 --big-share 0.25 --log benchmarks/out/fuzz.jsonl

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
