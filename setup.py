"""Build of satdt's compiled DP core (satdt.solvers.dp._core); everything else is in pyproject.toml."""

import glob
import platform

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

flags = ["-O3"]
if platform.machine() in ("x86_64", "AMD64"):
    flags.append("-mpopcnt")  # every x86-64 CPU since 2008; the pair counts are popcounts

# the core's components (satdt/solvers/dp/core/search.h lists them): bindings.cpp, the only file
# that includes pybind11, and unity.cpp, the search's components as one translation unit (the
# compiler inlines across them; unity.cpp says what it measured)
CORE = "satdt/solvers/dp/core"
CORE_SOURCES = [f"{CORE}/bindings.cpp", f"{CORE}/unity.cpp"]

setup(
    ext_modules=[Pybind11Extension("satdt.solvers.dp._core", CORE_SOURCES, include_dirs=[CORE],
                                   depends=sorted(glob.glob(f"{CORE}/*.h") + glob.glob(f"{CORE}/*.cpp")),
                                   cxx_std=17, extra_compile_args=flags)],
    cmdclass={"build_ext": build_ext},
)
