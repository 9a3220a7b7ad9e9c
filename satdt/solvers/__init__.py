"""Solvers: each drives one kind of engine and returns a :class:`satdt.result.SolveResult`."""
