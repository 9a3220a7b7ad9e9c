"""Sets outside the shared suites, for checking that the anytime schedule was not tuned to them.

Writes CSV files (label last) into ``benchmarks/out/unseen/`` (or ``--out``):

- ``cancer``: scikit-learn's breast cancer data, 569 x 30 continuous features, 2 classes;
- ``digits``: scikit-learn's 8 x 8 digits, 1,797 x 64 integer features 0-16, 10 classes;
- ``synth15k``: ``make_classification``, 15,000 x 12, 3 classes, 8 % of labels flipped;
- ``imbal8k``: ``make_classification``, 8,000 x 20, 2 classes at 89 / 11 %;
- ``skinlike``: ``make_classification`` quantized to integers 0-255 (the shape of Quant-BnB's
  skin set), 200,000 x 3, 2 classes;
- ``avilalike``: ``make_classification``, 10,430 x 10, 12 classes in the proportions of Quant-BnB's
  avila set (41 % down to 0.05 %);
- ``beanlike``: ``make_classification``, 10,888 x 16 (5 informative, 11 linear combinations of
  them: correlated like the bean set's shape measures), 7 classes in the bean set's proportions;
- ``eeglike``: ``make_classification``, 11,984 x 14, 2 classes at 55 / 45 %, 10 % of labels
  flipped, 0.5 % of entries scaled by 100 (the eeg set's outliers);
- ``tall1m`` (with ``--tall``): 10^6 x 10 normal features, label from x0 + x1 * x2 plus noise.

Example::

    python benchmarks/make_unseen_sets.py
    python benchmarks/bench_anytime.py --sets benchmarks/out/unseen/digits.csv --depths 4 5 6 --limits 30 --tools satdt,lds,contree
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def _save(path: Path, X: np.ndarray, y: np.ndarray) -> None:
    import pandas as pd

    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    frame["y"] = y
    frame.to_csv(path, index=False)
    print(path, X.shape, np.bincount(y).tolist())


def main() -> None:
    from sklearn.datasets import load_breast_cancer, load_digits, make_classification

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "out" / "unseen"))
    ap.add_argument("--tall", action="store_true", help="also the 10^6-row file (66 MB)")
    a = ap.parse_args()
    out, tall = Path(a.out), a.tall
    out.mkdir(parents=True, exist_ok=True)
    cancer = load_breast_cancer()
    _save(out / "cancer.csv", cancer.data, cancer.target)
    digits = load_digits()
    _save(out / "digits.csv", digits.data, digits.target)
    X, y = make_classification(15000, 12, n_informative=7, n_redundant=2, n_classes=3, flip_y=0.08, class_sep=0.8,
                               random_state=1)
    _save(out / "synth15k.csv", np.round(X, 4), y)
    X, y = make_classification(8000, 20, n_informative=5, n_redundant=5, weights=[0.9], flip_y=0.03, random_state=3)
    _save(out / "imbal8k.csv", np.round(X, 3), y)
    X, y = make_classification(200000, 3, n_informative=3, n_redundant=0, n_classes=2, flip_y=0.02, class_sep=0.9,
                               random_state=2)
    Xq = np.clip(((X - X.min(0)) / (X.max(0) - X.min(0)) * 255).round(), 0, 255).astype(int)
    _save(out / "skinlike.csv", Xq, y)
    avila = [4286, 5, 103, 352, 1095, 1961, 446, 519, 831, 44, 522, 266]
    X, y = make_classification(10430, 10, n_informative=8, n_redundant=1, n_classes=12, weights=np.divide(avila, sum(avila)),
                               flip_y=0.02, class_sep=1.0, random_state=6)
    _save(out / "avilalike.csv", np.round(X, 5), y)
    bean = [1322, 522, 1630, 2837, 1928, 2027, 2636]
    X, y = make_classification(10888, 16, n_informative=5, n_redundant=11, n_classes=7, weights=np.divide(bean, sum(bean)),
                               flip_y=0.01, class_sep=1.5, random_state=7)
    _save(out / "beanlike.csv", np.round(X, 5), y)
    X, y = make_classification(11984, 14, n_informative=6, n_redundant=2, weights=[0.55], flip_y=0.1, class_sep=0.5,
                               random_state=8)
    spikes = np.random.default_rng(8).random(X.shape) < 0.005
    X[spikes] *= 100
    _save(out / "eeglike.csv", np.round(X, 3), y)
    if tall:
        rng = np.random.default_rng(5)
        X = np.round(rng.normal(size=(1_000_000, 10)), 3)
        y = ((X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=len(X))) > 0).astype(int)
        _save(out / "tall1m.csv", X, y)


if __name__ == "__main__":
    main()
