"""satdt: provably optimal decision trees with constraint solvers."""

from .binarize import Binarizer, BinaryProblem, BinaryTest, ConflictError
from .data import DataError, Dataset, load_csv, load_dataset, prepare
from .result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, SolveResult
from .tree import Node, Tree

__version__ = "0.1.0"

__all__ = ["Binarizer", "BinaryProblem", "BinaryTest", "ConflictError", "DataError", "Dataset",
           "load_csv", "load_dataset", "prepare", "SolveResult", "Tree", "Node",
           "OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN"]
