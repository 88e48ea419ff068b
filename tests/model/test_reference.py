"""Reproduction of the JSON-Bag paper's agent classification on the reference bags (a subset), and its parts."""

import re

import numpy as np
import pytest
from scipy import sparse

from jbag_pipeline.model.reference import GAMES, PUBLISHED, forest_accuracy, pnns_accuracy, reference_reproduction

SUBSET_GAMES = ("Dominion", "Connect4")
TOLERANCE = 0.05  # 100 bags per class, 3 splits: measured |ours - published| <= 0.03 (full run: <= 0.02)


def _separable(n_per_class: int = 10) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Class c bags hold token c (count 3) and a shared token; every other bag also holds a noise token."""
    rows, cols, vals, labels = [], [], [], []
    for i in range(3 * n_per_class):
        label = i % 3
        rows += [i, i]
        cols += [label, 3]
        vals += [3.0, 1.0]
        if i % 2:
            rows.append(i)
            cols.append(4)
            vals.append(2.0)
        labels.append(label)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(3 * n_per_class, 5)), np.array(labels)


def test_pnns_and_forest_classify_separable_bags():
    counts, labels = _separable()
    train, test = np.arange(0, 30, 2), np.arange(1, 30, 2)
    assert pnns_accuracy(counts, labels, train, test) == 1.0
    assert forest_accuracy(counts, labels, train, test, n_estimators=10, seed=0) == 1.0


def test_forest_ignores_tokens_seen_only_in_the_test_half():
    counts, labels = _separable()
    counts = counts.tolil()
    counts[:, :3] = 0  # the class tokens vanish from the training half ...
    train, test = np.arange(0, 30, 2), np.arange(1, 30, 2)
    for i in test:
        counts[i, labels[i]] = 3.0  # ... and exist only in the test half, so nothing can be learnt from them
    accuracy = forest_accuracy(counts.tocsr(), labels, train, test, n_estimators=10, seed=0)
    assert accuracy < 0.6


def test_missing_dataset_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match=str(tmp_path / "agents_bags.parquet")):
        reference_reproduction(tmp_path)


def test_unknown_game_is_rejected(shared_dir):
    with pytest.raises(ValueError, match="Chess"):
        reference_reproduction(shared_dir / "data" / "jsonbag_reference", games=["Chess"])


def test_published_numbers_are_the_readme_numbers(shared_dir):
    readme = (shared_dir / "data" / "jsonbag_reference" / "README.md").read_text()
    pnns_row = next(line for line in readme.splitlines() if line.startswith("| P-NNS"))
    pnns = [float(v) for v in re.findall(r"\| (\.\d+) ", pnns_row + " ")]
    forest = [float(v) for v in re.findall(r"(\.\d{4})±", readme)]
    assert [PUBLISHED["pnns_jsd"][g] for g in GAMES] == pnns
    assert [PUBLISHED["random_forest"][g] for g in GAMES] == forest


@pytest.mark.slow  # about 5 s of CPU; more wall time on a busy machine
def test_subset_reproduces_published_accuracy(shared_dir):
    result = reference_reproduction(shared_dir / "data" / "jsonbag_reference", games=SUBSET_GAMES, n_splits=3,
                                    max_bags_per_class=100, seed=0)
    assert result.columns == ["game", "method", "ours", "ours_sd", "published"]
    assert len(result) == 2 * len(SUBSET_GAMES)
    for row in result.iter_rows(named=True):
        assert row["published"] == PUBLISHED[row["method"]][row["game"]]
        assert abs(row["ours"] - row["published"]) < TOLERANCE, row
        assert row["ours_sd"] is not None and row["ours_sd"] < 0.1


def test_reproduction_is_deterministic_for_a_seed(shared_dir):
    folder = shared_dir / "data" / "jsonbag_reference"
    runs = [reference_reproduction(folder, games=["Connect4"], n_splits=2, max_bags_per_class=30, n_estimators=10)
            for _ in range(2)]
    assert runs[0].equals(runs[1])
