"""report materialises data/report/index.html from one game's self-play and classification tables."""

import pytest

from jbag_pipeline.assets.model import state_tokens, winner_classification
from jbag_pipeline.assets.report import report
from jbag_pipeline.assets.selfplay import selfplay
from tests.helpers.materialize import GAME, check_results, materialize


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    materialize([selfplay, state_tokens, winner_classification], root, partition_key=GAME)
    return root, materialize([report], root)


def test_report_has_the_sections_of_the_tables_present(run):
    root, result = run
    index = root / "report" / "index.html"
    metadata = result.asset_materializations_for_node("report")[0].metadata
    assert metadata["path"].value == str(index)
    html = index.read_text()
    assert GAME in html and "Self-play" in html and "Winner classification (P-NNS, JSD)" in html
    assert "Verdicts" not in html and "No data yet" not in html  # sections only for the tables present
    assert (root / "report" / "report.md").is_file()


def test_report_declares_no_checks(run):
    _, result = run
    assert check_results(result) == {}
