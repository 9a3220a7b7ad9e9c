"""satdt.plot: pictures of trees (matplotlib is an optional extra: skipped without it)."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from satdt.cli import main
from satdt.tree import Node, Tree

pytest.importorskip("matplotlib")

from satdt.plot import plot_tree  # noqa: E402


def iris_like_tree() -> Tree:
    root = Node.split(2, 2.45, Node.leaf(0, np.array([50.0, 0, 0])),
                      Node.split(3, 1.75, Node.leaf(1, np.array([0, 49.0, 5])),
                                 Node.leaf(2, np.array([0, 1.0, 45]))))
    root.counts = np.array([50.0, 50, 50])
    root.right.counts = np.array([0, 50.0, 50])
    return Tree(root, classes=np.array(["setosa", "versicolor", "virginica"]),
                feature_names=["sepal length", "sepal width", "petal length", "petal width"])


def texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_picture_shows_tests_in_original_units_and_leaf_counts(tmp_path):
    fig = plot_tree(iris_like_tree(), tmp_path / "tree.png")
    shown = texts(fig)
    assert "petal length <= 2.45\nrows: 150" in shown
    assert "petal width <= 1.75\nrows: 100" in shown
    assert "setosa\n[50, 0, 0]" in shown and "virginica\n[0, 1, 45]" in shown
    assert shown.count("yes") == 2 and shown.count("no") == 2
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["setosa", "versicolor", "virginica"]
    import matplotlib.image

    image = matplotlib.image.imread(tmp_path / "tree.png")
    assert image.shape[0] > 200 and image.shape[1] > 300
    assert len(np.unique(image.reshape(-1, image.shape[2]), axis=0)) > 20   # drawn, not blank


def test_svg_pdf_and_categorical_tests(tmp_path):
    tree = Tree(Node.split(0, 64.95, Node.leaf(1, np.array([0.0, 18])),
                           Node.split(1, 2.0, Node.leaf(0, np.array([15.0, 0])),
                                      Node.leaf(1, np.array([0.0, 27])), category="red")),
                classes=np.array(["heavy-red", "other"]), feature_names=["weight", "colour"])
    fig = plot_tree(tree, tmp_path / "tree.svg")
    assert any(t.startswith("colour == red") for t in texts(fig))
    assert (tmp_path / "tree.svg").read_text().lstrip().startswith("<?xml")
    plot_tree(tree, tmp_path / "tree.pdf")
    assert (tmp_path / "tree.pdf").read_bytes()[:4] == b"%PDF"


def test_estimators_counts_from_data_names_and_axes(tmp_path):
    import matplotlib.figure

    from satdt.estimators import make_estimator

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 60, 40), "income": rng.normal(50, 10, 40).round(1)})
    y = np.where(X.age > 40, "old", "young")
    model = make_estimator("sat-depth").fit(X, y)
    shown = texts(plot_tree(model))
    assert any(t.startswith("age <= 40.5") for t in shown)
    # counts of other rows, names given, into an existing axes
    fig = matplotlib.figure.Figure()
    ax = fig.add_subplot()
    assert plot_tree(model.tree_, X=X.to_numpy()[:10], y=y[:10], feature_names=["A", "B"], ax=ax) is fig
    assert any(t.startswith("A <= 40.5\nrows: 10") for t in texts(fig))
    leaf = Tree(Node.leaf(0), classes=np.array([0, 1]))
    assert texts(plot_tree(leaf, class_names=["no", "yes"])) == ["no"]
    with pytest.raises(ValueError, match="class names"):
        plot_tree(leaf, class_names=["no"])
    with pytest.raises(ValueError, match="needs y"):
        plot_tree(leaf, X=np.zeros((2, 1)))


def test_cli_export_png_and_svg(tmp_path, capsys):
    png, svg = tmp_path / "tree.png", tmp_path / "tree.svg"
    assert main(["solve", "iris", "--method", "sat-depth", "--export", "png", "--output", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["solve", "iris", "--method", "sat-depth", "--json", "--export", "svg",
                 "--output", str(svg)]) == 0
    assert "<svg" in svg.read_text()
    capsys.readouterr()
    assert main(["solve", "iris", "--method", "sat-depth", "--export", "png"]) == 2
    err = capsys.readouterr().err
    assert "needs --output" in err and err.count("\n") == 1


def test_importing_satdt_plot_does_not_import_matplotlib():
    code = "import sys, satdt.plot; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_layout_keeps_nodes_apart_and_splits_centred():
    from satdt.plot import _layout

    def chain(depth: int) -> Node:   # a comb: one leaf per level, then two leaves
        node = Node.split(0, float(depth), Node.leaf(0), Node.leaf(1))
        for d in range(depth - 1, 0, -1):
            node = Node.split(0, float(d), Node.leaf(0), node) if d % 2 else Node.split(0, float(d), node, Node.leaf(1))
        return node

    root = Node.split(1, 0.5, chain(5), chain(4))
    pos = _layout(root)
    by_depth: dict[int, list[float]] = {}
    for node in root.walk():
        x, d = pos[id(node)]
        by_depth.setdefault(d, []).append(x)
        if not node.is_leaf:
            assert x == pytest.approx((pos[id(node.left)][0] + pos[id(node.right)][0]) / 2)
            assert pos[id(node.left)][0] < pos[id(node.right)][0] and pos[id(node.left)][1] == d + 1
    for xs in by_depth.values():
        xs.sort()
        assert all(b - a >= 1 - 1e-9 for a, b in zip(xs, xs[1:]))
    n_leaves = sum(1 for n in root.walk() if n.is_leaf)
    assert max(x for x, _ in pos.values()) + 1 < n_leaves     # narrower than one slot per leaf


def test_a_scikit_learn_tree_is_drawn_too():
    from sklearn.tree import DecisionTreeClassifier

    from satdt.data import load_dataset

    data = load_dataset("iris")
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(data.X, data.labels)
    shown = texts(plot_tree(cart, X=data.X, y=data.labels, feature_names=["a", "b", "c", "d"]))
    root = [t for t in shown if t.endswith("\nrows: 150")]
    assert len(root) == 1 and root[0][0] in "abcd" and " <= " in root[0]
    assert "0.0\n[50, 0, 0]" in shown
    with pytest.raises(ValueError, match="expected a satdt Tree"):
        plot_tree(object())
