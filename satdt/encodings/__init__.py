"""Encodings: pure model building, one module per formulation, no solving loop.

References are numbered as in ``satdt/REFERENCES.md``: Avellaneda's SAT encodings [6]
(``sat_depth``, ``sat_size``, ``maxsat``), BinOCT [7], OCT [8], the OSDT/GOSDT objective in CP-SAT [4, 5, 14]."""
