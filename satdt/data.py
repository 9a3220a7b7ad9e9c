"""Loading and validating data.

Everything below this module sees only numpy arrays: a float feature matrix ``X`` in which
categorical (text) columns hold integer codes, and an integer label vector ``y`` indexing
``classes``. Bad input raises :class:`DataError` (a ``ValueError``) with one readable sentence.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

# pandas and scikit-learn are imported inside the functions that need them: the `satdt` command
# reads a plain numeric CSV without them (see _read_simple_csv) and starts in a fraction of a second

__all__ = [
    "DataError",
    "Dataset",
    "FeatureSchema",
    "load_csv",
    "load_dataset",
    "bundled_datasets",
    "prepare",
    "encode_features",
    "encode_labels",
]


class DataError(ValueError):
    """Input data that cannot be used; the message names the problem."""


class DataTypeError(DataError, TypeError):
    """A value of a type that is neither a number nor text."""


@dataclass
class FeatureSchema:
    """How raw feature columns map to the numeric matrix seen by the engines.

    Attributes
    ----------
    names : list of str
        Feature names, one per column.
    categories : dict
        ``{column index: list of category values}`` for text (categorical) columns; such a
        column is coded as the index of its value in that list.
    """

    names: list[str]
    categories: dict[int, list[Any]] = field(default_factory=dict)

    @property
    def n_features(self) -> int:
        return len(self.names)

    def is_categorical(self, j: int) -> bool:
        return j in self.categories

    def describe_category(self, j: int, code: float) -> Any:
        return self.categories[j][int(code)]


@dataclass
class Dataset:
    """Validated data: ``X`` float (n, p), ``y`` int (n,) indexing ``classes``; ``weight``
    (int64 (n,) or None for all ones): each row counts ``weight`` times (see :mod:`satdt.weights`)."""

    X: np.ndarray
    y: np.ndarray
    classes: np.ndarray
    schema: FeatureSchema
    name: str = ""
    weight: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]

    @property
    def total_weight(self) -> int:
        """The weighted number of rows (``n_rows`` without weights)."""
        return self.n_rows if self.weight is None else int(self.weight.sum())

    @property
    def feature_names(self) -> list[str]:
        return self.schema.names

    @property
    def labels(self) -> np.ndarray:
        """The labels in their original values."""
        return self.classes[self.y]


def _as_frame(X: Any) -> pd.DataFrame:
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        return X
    if isinstance(X, pd.Series):
        raise DataError("X must be two-dimensional (rows x features), got a single column Series")
    if X is None:
        raise DataError("X is None; expected a two-dimensional array or DataFrame")
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        raise DataError("sparse input is not supported: convert X with X.toarray()")
    arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
    if arr.ndim != 2:
        raise DataError(f"X must be two-dimensional (rows x features), got {arr.ndim} dimension(s); "
                        "Reshape your data, e.g. X.reshape(-1, 1) for a single feature")
    if np.iscomplexobj(arr):
        raise DataError("X holds complex numbers: Complex data not supported")
    return pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])


def _plain_numeric(X: Any) -> bool:
    """``X`` a two-dimensional numpy array of booleans, integers or floats: read as it is, the
    DataFrame of :func:`_as_frame` (the same values, columns ``x0``, ``x1``...) not needed."""
    return isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "biuf"


def _exact_integers(source: Any, values: np.ndarray, name: str) -> None:
    """DataError when an integer column holds values past 2**53 that differ but are equal as float64 (every search
    compares the floats: its optimum would be over fewer distinct values than the data's, and called optimal)."""
    src = np.asarray(source)
    if src.dtype.kind not in "iu" or not (np.abs(values) > 2.0 ** 53).any():
        return
    if np.unique(src).size != np.unique(values).size:
        raise DataError(f"feature '{name}' holds integers past 2**53 that differ but are equal as float64 values, "
                        "which satdt compares; subtract an offset from the column or rescale it")


def _integer_columns(frame: Any) -> range | list[int]:
    """The columns of ``frame`` (an array or a numeric DataFrame) held as integers (no temporary of the
    whole matrix: a wide frame's floats are not looked at)."""
    if isinstance(frame, np.ndarray):
        return range(frame.shape[1]) if frame.dtype.kind in "iu" else []
    return [j for j, dt in enumerate(frame.dtypes) if getattr(dt, "kind", "") in "iu"]


def _numeric_column(col: pd.Series) -> np.ndarray | None:
    """The column as floats, or None if it holds text that is not numbers. A ``"?"`` among numbers is a
    missing value (NaN; the UCI files' spelling), as pandas' own missing-value strings are: the column
    stays numeric (it was read as categories, tests ``x == v`` only, without a word). A column of ``"?"``
    with no number in it is text (a constant category), as before."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(col):
        return col.to_numpy(dtype=float)
    if pd.api.types.is_numeric_dtype(col):
        return col.to_numpy(dtype=float)
    converted = pd.to_numeric(col, errors="coerce")
    lost = converted.isna().to_numpy() & ~col.isna().to_numpy()
    if lost.any() and (converted.isna().all() or not all(isinstance(v, str) and v.strip() == "?" for v in col[lost])):
        return None  # (words, or "?" with no number: a column of one category)
    return converted.to_numpy(dtype=float)


#: the category of a missing value in a text (categorical) column, with ``missing=True``
MISSING_CATEGORY = "<missing>"


def _all_numeric(frame: Any) -> bool:
    """Every column of ``frame`` a numeric (or boolean) dtype."""
    import pandas as pd

    return all(pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t) for t in frame.dtypes)


#: how to fit on data with missing values (a NaN's message; not for judging a given tree: satdt.verify)
MISSING_HINT = "or fit with missing='learn' (satdt solve --missing learn)"


def _check_finite(values: np.ndarray, name: str, allow_nan: bool = False) -> None:
    bad = ~np.isfinite(values)
    if allow_nan:
        bad &= ~np.isnan(values)
    if bad.any():
        rows = np.flatnonzero(bad)
        kind = "missing (NaN)" if np.isnan(values[rows[0]]) else "infinite"
        question = " ('?' counts as a missing value)" if np.isnan(values[rows[0]]) else ""
        raise DataError(
            f"feature '{name}' has {len(rows)} {kind} or non-finite value(s){question}, first at row {rows[0]}; "
            + "impute or drop them first" + (f", {MISSING_HINT}" if np.isnan(values[rows[0]]) else "")
        )


def encode_features(X: Any, schema: FeatureSchema | None = None,
                    categorical: Sequence[int | str] | None = None,
                    missing: bool = False) -> tuple[np.ndarray, FeatureSchema]:
    """Turn raw features into the float matrix of the engines.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, p)
    schema : FeatureSchema, optional
        The schema learnt at fit time; when given, ``X`` is coded with it (predict time).
    categorical : sequence of int or str, optional
        Columns to treat as categories even if numeric. Text columns are always categorical.
    missing : bool
        Accept missing values: NaN stays NaN in numeric columns (inf is still an error) and is
        the category :data:`MISSING_CATEGORY` in text columns. False: a missing value is an error.

    Returns
    -------
    X : ndarray of float, shape (n, p)
    schema : FeatureSchema
    """
    frame = X if _plain_numeric(X) else _as_frame(X)   # a numeric ndarray: no DataFrame made
    n, p = frame.shape
    if p == 0:
        raise DataError(f"X has no feature column: 0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required.")
    if n == 0:
        raise DataError("X has no row")
    if schema is not None and p != schema.n_features:
        raise DataError(f"X has {p} features, but the model was fitted with {schema.n_features}")
    names = ([f"x{j}" for j in range(p)] if isinstance(frame, np.ndarray) else [str(c) for c in frame.columns]
             ) if schema is None else schema.names
    forced = set()
    for c in categorical or ():
        forced.add(names.index(c) if isinstance(c, str) else int(c))
    out = np.empty((n, p), dtype=float)
    categories: dict[int, list[Any]] = {} if schema is None else schema.categories
    if isinstance(frame, np.ndarray) and (forced or categories):
        frame = _as_frame(frame)                    # coded a column at a time below
    if not forced and not categories and (isinstance(frame, np.ndarray) or _all_numeric(frame)):
        # wide numeric data (thousands of columns): one conversion, not a column at a time
        out[:] = frame if isinstance(frame, np.ndarray) else frame.to_numpy(dtype=float)
        for j in _integer_columns(frame) if schema is None else ():  # (at fit: exact values)
            _exact_integers(frame[:, j] if isinstance(frame, np.ndarray) else frame.iloc[:, j].to_numpy(), out[:, j],
                            names[j])
        bad = ~np.isfinite(out)
        if missing:
            bad &= ~np.isnan(out)
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            _check_finite(out[:, j], names[j], allow_nan=missing)
        return out, FeatureSchema(names=names, categories=categories)
    for j in range(p):
        col = frame.iloc[:, j]
        if schema is not None and j in categories:
            codes = {v: i for i, v in enumerate(categories[j])}
            if missing and MISSING_CATEGORY in codes:  # (as object: a pandas category column has no such category)
                col = col.astype(object).where(~col.isna(), MISSING_CATEGORY)
            mapped = col.map(lambda v: codes.get(v, np.nan)).to_numpy(dtype=float)
            if np.isnan(mapped).any():
                bad = col[np.isnan(mapped)].iloc[0]
                raise DataError(f"feature '{names[j]}' has category {bad!r} not seen at fit time")
            out[:, j] = mapped
            continue
        values = None if j in forced else _numeric_column(col)
        if values is None:
            if schema is not None:
                raise DataError(f"feature '{names[j]}' holds text but was numeric at fit time")
            if col.isna().any():
                if not missing:
                    raise DataError(f"feature '{names[j]}' has {int(col.isna().sum())} missing value(s)")
                col = col.astype(object).where(~col.isna(), MISSING_CATEGORY)
            try:
                cats = sorted(col.unique().tolist(), key=str)
            except TypeError:
                raise DataTypeError(f"feature '{names[j]}' holds values that are neither numbers nor text "
                                "(each argument must be a string or a number)") from None
            codes = {v: i for i, v in enumerate(cats)}
            categories[j] = cats
            out[:, j] = col.map(codes).to_numpy(dtype=float)
        else:
            _check_finite(values, names[j], allow_nan=missing)
            if schema is None:
                _exact_integers(col.to_numpy(), values, names[j])
            out[:, j] = values
    return out, FeatureSchema(names=names, categories=categories)


def _missing_labels(arr: np.ndarray) -> int:
    """Missing labels (None, NaN, pandas' NA), counted as ``pandas.isna`` does; numbers and plain
    strings are checked without loading pandas."""
    if arr.dtype.kind in "iub":
        return 0
    if arr.dtype.kind == "f":
        return int(np.isnan(arr).sum())
    if arr.dtype.kind in "US" or (arr.dtype.kind == "O" and all(isinstance(v, str) for v in arr.ravel().tolist())):
        return 0
    import pandas as pd

    return int(pd.isna(pd.Series(arr.ravel())).sum())


def _continuous(arr: np.ndarray) -> bool:
    """Float labels that are not all whole numbers (scikit-learn's ``type_of_target`` says
    "continuous" on the same test)."""
    with np.errstate(invalid="ignore"):
        return bool(np.any(arr != arr.astype(np.int64).astype(arr.dtype)))


def encode_labels(y: Any, n_rows: int | None = None,
                  classes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Labels as class indices.

    Returns
    -------
    y : ndarray of int, shape (n,)
    classes : ndarray, the sorted distinct labels (or ``classes`` when given)
    """
    if y is None:
        raise DataError("requires y to be passed, but the target y is None")
    # a pandas object implies pandas is loaded (and not half-way: another thread may be importing
    # it, e.g. scikit-learn's CART fitted beside a DP search, and then y is no pandas object)
    pd = sys.modules.get("pandas")
    frames = tuple(t for t in (getattr(pd, "Series", None), getattr(pd, "DataFrame", None)) if t is not None)
    arr = np.asarray(y.to_numpy() if frames and isinstance(y, frames) else y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning

        warnings.warn("A column-vector y was passed when a 1d array was expected; it is used as a 1d array of labels",
                      DataConversionWarning, stacklevel=3)
        arr = arr.ravel()
    if arr.ndim != 1:
        raise DataError(f"y must be one label per row, got shape {arr.shape}")
    if n_rows is not None and arr.shape[0] != n_rows:
        raise DataError(f"X has {n_rows} rows but y has {arr.shape[0]} labels")
    if arr.shape[0] == 0:
        raise DataError("y has no label")
    missing = _missing_labels(arr)
    if missing:
        raise DataError(f"y has {missing} missing label(s)")
    if np.iscomplexobj(arr):
        raise DataError("y holds complex numbers: Complex data not supported")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise DataError("y has infinite label(s)")
    if classes is None:
        if arr.dtype.kind == "f" and _continuous(arr):
            raise DataError("Unknown label type: continuous target values; satdt builds classifiers, "
                            "so y must hold class labels")
        try:
            classes, codes = np.unique(arr, return_inverse=True)
        except TypeError:  # object labels that do not compare: e.g. 1 and "a"
            kinds = sorted({type(v).__name__ for v in arr.tolist()})
            raise DataError(f"y mixes label types ({', '.join(kinds)}) that cannot be ordered; "
                            "convert the labels to one type (e.g. all str)") from None
    else:
        lookup = {v: i for i, v in enumerate(classes.tolist())}
        try:
            codes = np.array([lookup[v] for v in arr.tolist()], dtype=np.int64)
        except KeyError as exc:
            raise DataError(f"label {exc.args[0]!r} is not one of the classes {classes.tolist()}") from None
    return codes.astype(np.int64), classes


def prepare(X: Any, y: Any, categorical: Sequence[int | str] | None = None,
            require_two_classes: bool = True, name: str = "", missing: bool = False) -> Dataset:
    """Validate ``X`` and ``y`` and return a :class:`Dataset`.

    Raises
    ------
    DataError
        Empty data, NaN or inf, mismatched lengths, missing labels, a single class (when
        ``require_two_classes``), fewer than two rows.
    """
    frame = X if _plain_numeric(X) else _as_frame(X)
    if len(frame) == 0:
        raise DataError("the data has no row")
    Xf, schema = encode_features(frame, categorical=categorical, missing=missing)
    yc, classes = encode_labels(y, n_rows=Xf.shape[0])
    if Xf.shape[0] < 2:
        raise DataError("the data has a single row (1 sample); a tree needs at least two")
    if require_two_classes and len(classes) < 2:
        raise DataError(f"y has a single class ({classes.tolist()[0]!r}); a classifier needs at least two")
    return Dataset(X=Xf, y=yc, classes=classes, schema=schema, name=name)


def load_csv(path: str | os.PathLike, categorical: Sequence[int | str] | None = None,
             require_two_classes: bool = True, missing: bool = False) -> Dataset:
    """Read a CSV file: a header row, the last column is the label; UTF-8 with or without BOM.
    ``missing``: accept empty / NaN feature values (see :func:`encode_features`)."""
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{path} is a directory, not a CSV file")
    if not path.is_file():
        raise DataError(f"no such file: {path}")
    _check_header(path)
    if categorical is None:
        simple = _read_simple_csv(path, require_two_classes)
        if simple is None and path.stat().st_size > _SIMPLE_CSV_MAX_BYTES and _header_fields(path) > _WIDE_CSV_FIELDS:
            simple = _read_numeric_csv(path, require_two_classes)
        if simple is not None:
            return simple
    import pandas as pd

    try:
        frame = pd.read_csv(path, encoding="utf-8-sig", skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise DataError(f"{path} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise DataError(f"{path} is not a readable CSV file: {str(exc).splitlines()[0]}") from None
    if frame.shape[1] < 2:
        raise DataError(f"{path} needs at least one feature column and a label column")
    if len(frame) == 0:
        raise DataError(f"{path} has a header but no data row")
    try:
        return prepare(frame.iloc[:, :-1], frame.iloc[:, -1], categorical=categorical,
                       require_two_classes=require_two_classes, name=path.stem, missing=missing)
    except DataError as exc:  # a row index of the data: say which line of the file it is
        message = re.sub(r"first at row (\d+)",
                         lambda m: f"first at row {m.group(1)} (line {int(m.group(1)) + 2} of {path.name})",
                         str(exc))
        raise DataError(message) from None


def _check_header(path: Path) -> None:
    """Refuse a header that names two columns alike (the printed tree would be ambiguous;
    pandas would rename the second one silently)."""
    import csv

    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            header = next(csv.reader(f), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return  # the reader reports it
    seen: dict[str, int] = {}
    for j, name in enumerate(n.strip() for n in header):
        if name in seen and name:
            raise DataError(f"{path.name}: the header names two columns '{name}' (columns {seen[name] + 1} and "
                            f"{j + 1}); give every column its own name")
        seen.setdefault(name, j)


# _read_simple_csv: files read without pandas (larger ones, where pandas' import is a small part of
# the work, go to pandas: at ~1 us a field, 250,000 fields cost about pandas' import, ~0.35 s), the
# tokens it accepts, and pandas' default missing-value strings
_SIMPLE_CSV_MAX_BYTES = 4_000_000
_SIMPLE_CSV_MAX_FIELDS = 250_000
# a column of plain decimals (no exponent, no "+": as pandas parses them), one a line, each of at
# most 16 characters and 15 digits (the only 16-character token with 16 digits has neither sign
# nor point), matched in one call per column
_PLAIN_DECIMAL_LINES = re.compile(r"(?:(?!\d{16}\n)(?=[^\n]{1,16}\n)-?(?:\d+\.?\d*|\.\d+)\n)*")
_PLAIN_INTEGER = re.compile(r"-?\d{1,18}\Z")
_PLAIN_FLOAT = re.compile(r"-?\d+\.\d+\Z")
_NA_STRINGS = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                         "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})


def _read_simple_csv(path: Path, require_two_classes: bool) -> Dataset | None:
    """A plain CSV file as :func:`load_csv` reads it with pandas, without loading pandas.

    Plain: at most :data:`_SIMPLE_CSV_MAX_BYTES` and :data:`_SIMPLE_CSV_MAX_FIELDS`, UTF-8, no
    quotes, distinct non-empty header names, every row as many fields as the header, every feature
    a decimal number of at most 15
    digits without exponent (parsed to the same double as pandas' parser), labels all integers,
    all decimals, or all text that pandas would keep as text, at least two rows (and two classes
    when required). Anything else returns None, and pandas reads the file with its own checks and
    error messages, so both readers give the same :class:`Dataset`
    (``tests/test_import_time.py`` compares them on every bundled and shared dataset).
    """
    try:
        if path.stat().st_size > _SIMPLE_CSV_MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    if '"' in text or "\r" in text.replace("\r\n", "\n") or text.count(",") > _SIMPLE_CSV_MAX_FIELDS:
        return None
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if line]
    if len(lines) < 3:
        return None
    names = lines[0].split(",")
    p = len(names)
    if p < 2 or len(set(names)) < p or any(not n or n != n.strip() for n in names):
        return None
    rows = [line.split(",") for line in lines[1:]]
    if any(len(r) != p for r in rows):
        return None
    columns = list(zip(*rows))
    features = columns[:-1]
    if not all(_PLAIN_DECIMAL_LINES.fullmatch("\n".join(col) + "\n") for col in features):
        return None
    y = _plain_labels(columns[-1])
    if y is None:
        return None
    X = np.array([[float(t) for t in col] for col in features], dtype=np.float64).T.copy()
    yc, classes = encode_labels(y, n_rows=X.shape[0])
    if require_two_classes and len(classes) < 2:
        return None
    return Dataset(X=X, y=yc, classes=classes, schema=FeatureSchema(names=list(names[:-1])), name=path.stem)


def _plain_labels(labels: Sequence[str]) -> np.ndarray | None:
    """The label tokens as pandas would type them (all integers: int64, all decimals: float64,
    text pandas keeps as text: object), or None when pandas should decide."""
    if all(_PLAIN_INTEGER.match(t) for t in labels):
        return np.array([int(t) for t in labels], dtype=np.int64)
    if all(_PLAIN_INTEGER.match(t) or (_PLAIN_FLOAT.match(t) and len(t) <= 16) for t in labels):
        return np.array([float(t) for t in labels], dtype=np.float64)
    if any(t in _NA_STRINGS or t != t.strip() or t.lower() in ("true", "false") or t[:1] in "+-.0123456789"
           for t in labels):
        return None
    return np.array(labels, dtype=object)


#: the numpy reader takes files with more header fields than this (wide data, where pandas' frame of
#: one object per column costs seconds); on tall files pandas' C parser is faster than numpy's
_WIDE_CSV_FIELDS = 1000


def _header_fields(path: Path) -> int:
    """The number of comma-separated fields of the file's first line (0 when unreadable)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            return f.readline().count(",") + 1
    except (OSError, UnicodeDecodeError):
        return 0


def _read_numeric_csv(path: Path, require_two_classes: bool) -> Dataset | None:
    """A large CSV file whose features are all finite numbers, read by numpy's C parser
    (``np.loadtxt``) without pandas: on 200 x 50,000 floats 0.7 s of CPU where pandas' import,
    parser and frame took ~3 s (issue 22's wide data; :func:`load_csv` calls it for files of more
    than :data:`_WIDE_CSV_FIELDS` columns). Plain files only: no quotes, distinct
    non-empty header names, every non-blank line as many fields as the header, labels as
    :func:`_plain_labels` types them; anything else (text, empty or non-finite values) returns
    None and pandas reads the file with its own checks and messages. Numbers are parsed correctly
    rounded (pandas' default parser may differ in the last bit on tokens of more than 15 digits)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            names = f.readline().rstrip("\r\n").split(",")
            p = len(names)
            if p < 2 or len(set(names)) < p or any(not n or n != n.strip() or '"' in n for n in names):
                return None
            labels = []
            for line in f:
                if not line.strip():
                    continue
                if line.count(",") != p - 1 or '"' in line:
                    return None
                labels.append(line[line.rindex(",") + 1:].strip("\r\n"))
        if len(labels) < 2:
            return None
        y = _plain_labels(labels)
        if y is None:
            return None
        X = np.loadtxt(path, delimiter=",", skiprows=1, usecols=range(p - 1), dtype=np.float64, comments=None,
                       encoding="utf-8-sig", ndmin=2)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if X.shape != (len(labels), p - 1) or not np.isfinite(X).all():
        return None
    yc, classes = encode_labels(y, n_rows=X.shape[0])
    if require_two_classes and len(classes) < 2:
        return None
    return Dataset(X=X, y=yc, classes=classes, schema=FeatureSchema(names=list(names[:-1])), name=path.stem)


def bundled_datasets() -> dict[str, Path]:
    """Datasets shipped inside the package: ``{name: csv path}``."""
    folder = resources.files("satdt") / "datasets"
    return {Path(str(p)).stem: Path(str(p)) for p in sorted(folder.iterdir(), key=lambda q: q.name)
            if str(p).endswith(".csv")}


def load_dataset(name_or_path: str | os.PathLike, **kwargs: Any) -> Dataset:
    """Load a bundled dataset by name (see :func:`bundled_datasets`) or a CSV file by path."""
    bundled = bundled_datasets()
    key = str(name_or_path)
    if key in bundled and not Path(key).is_file():
        return load_csv(bundled[key], **kwargs)
    if not Path(key).exists() and not key.endswith(".csv"):
        raise DataError(f"unknown dataset '{key}': not a file, and not one of {', '.join(bundled)}")
    return load_csv(key, **kwargs)
