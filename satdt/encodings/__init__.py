"""Encodings: pure model building, one module per formulation, no solving loop."""
