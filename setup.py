"""Build of satdt's compiled DP core (satdt.solvers.dp._core); everything else is in pyproject.toml."""

import glob
import platform

from pybind11.setup_helpers import Pybind11Extension, build_ext
from setuptools import setup

flags = ["-O3"]
if platform.machine() in ("x86_64", "AMD64"):
    flags.append("-mpopcnt")  # every x86-64 CPU since 2008; the pair counts are popcounts
# Python's own flags (sysconfig's CFLAGS, which pip passes first) hold -fwrapv: signed overflow
# defined as wrap-around, which blocks loop optimizations; extra_compile_args come after them on
# the command line, so -fno-wrapv wins. The core never relies on wrap-around: its int64 costs stay
# below 2^53 (Search::check_costs refuses larger ones, satdt/solvers/dp/core/types.h, MAX_COST),
# hashes are unsigned, and the test files that exercise the core ran under -fsanitize=undefined,
# each report fixed (benchmarks/RESULTS.md, "The core's build without -fwrapv": the sites
# checked, the sanitizer runs, the speed measured)
if platform.system() != "Windows":
    flags.append("-fno-wrapv")

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
