"""Build of satdt's compiled DP core (satdt.solvers.dp._core); everything else is in pyproject.toml."""

import platform

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

flags = ["-O3"]
if platform.machine() in ("x86_64", "AMD64"):
    flags.append("-mpopcnt")  # every x86-64 CPU since 2008; the pair counts are popcounts

setup(
    ext_modules=[Pybind11Extension("satdt.solvers.dp._core", ["satdt/solvers/dp/_core.cpp"], cxx_std=17,
                                   extra_compile_args=flags)],
    cmdclass={"build_ext": build_ext},
)
