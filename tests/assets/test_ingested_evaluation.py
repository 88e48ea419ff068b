"""TAG logs as training data, end to end: `jbag ingest` of the example TAG trajectories (Connect4 in mode ordered,
the others in mode both) builds the ingested model; ingested_vf_evaluation plays the ingested prototypes' JSON-Bag
OSLA in our engines on the smoke preset, every seat beside the control, and says why it skips the others; the
agent's values are those of the ingested prototypes; the catalog and the report show the table."""

from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from engines import load_game
from jbag_pipeline.play.ingested_evaluation import INGESTED_FREQUENCY, ingested_value
from jbag_pipeline.play.jsonbag_agent import JsonBagOSLAAgent
from jbag_pipeline.assets.ingested_evaluation import ingested_vf_evaluation
from jbag_pipeline.assets.ingested_model import PROTOTYPES_TABLE, ingested_blacklist
from jbag_pipeline.cli.ingest import run_ingest
from jbag_pipeline.model.bags import jsd
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.presets import PRESETS, game_run
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.storage.query import open_catalog
from jbag_pipeline.schemas import INGESTED_VF_EVALUATION
from jbag_pipeline.tokenize import tokenize_state
from tests.helpers.materialize import check_results, declared_checks, materialize_with
from tests.helpers.storage import run_query

REFERENCE = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "jsonbag_reference" / \
    "example_trajectories"
PLAYED = {"connect4": ("connect4", 2), "dotsandboxes": ("dots_and_boxes", 2)}  # both seats won an example game
FOUR_SEATS = {"cantstop", "dominion", "seasaltpaper", "wonders7"}  # 3 example games: some seat never won


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not REFERENCE.is_dir():
        pytest.skip(f"{REFERENCE} is absent (it exists beside the repository only in the team's workspace and CI)")
    root = tmp_path_factory.mktemp("ingested_vf") / "data"
    instance = dg.DagsterInstance.ephemeral()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JBAG_PRESET", "smoke")
        run_ingest([str(REFERENCE / "Connect4")], root, mode="ordered", instance=instance)
        others = [str(p) for p in sorted(REFERENCE.iterdir()) if p.name != "Connect4"]
        per_game, problems = run_ingest(others, root, instance=instance)
    assert problems == [] and len(per_game) == 5
    result = materialize_with([ingested_vf_evaluation], JbagSettings(preset="smoke"), root, instance=instance)
    assert result.success
    return root, result


def table(root) -> pl.DataFrame:
    return lake.read_table(root, "ingested_vf_evaluation")


def test_every_seat_of_the_games_we_play_is_played_beside_the_control(run):
    root, _ = run
    evaluation = table(root)
    assert evaluation.schema == pl.Schema(INGESTED_VF_EVALUATION)
    for game, (engine, seats) in PLAYED.items():
        rows = evaluation.filter(pl.col("game") == game)
        assert rows["scope"].to_list() == [f"seat {s}" for s in range(seats)] + ["overall"]
        assert set(rows["engine"]) == {engine} and set(rows["ingested_games"]) == {3}
        per_seat = game_run(PRESETS["smoke"], engine).eval_games_per_seat
        assert rows.filter(pl.col("scope") != "overall")["games"].to_list() == [per_seat] * seats
        assert rows["win_rate"].is_between(0, 1).all() and rows["control_win_rate"].is_between(0, 1).all()
        assert rows["p_value_vs_control"].is_not_null().all() and rows["verdict"].is_not_null().all()
        assert set(rows["prototype_frequency"]) == {INGESTED_FREQUENCY}


def test_games_with_a_seat_that_never_won_are_skipped_with_the_reason(run):
    root, result = run
    skipped = table(root).filter(pl.col("game").is_in(FOUR_SEATS))
    assert sorted(skipped["game"]) == sorted(FOUR_SEATS) and set(skipped["scope"]) == {"skipped"}
    (note,) = skipped.filter(pl.col("game") == "dominion")["note"]
    assert note == "seat 2 won none of its 3 ingested games: no winner prototype to value its positions by"
    results = check_results(result)
    assert set(results) == declared_checks([ingested_vf_evaluation]) and all(results.values())


def _child(state, action):
    child = state.clone()
    child.apply(action)
    return child


def test_the_agents_values_are_those_of_the_ingested_prototypes(run):
    """The value the evaluation builds from the lake's connect4 prototypes: the JSON-Bag formula over their
    distributions and the bag of the initial state and the decision's state (mode ordered, blacklist filtered);
    swapping the seats' prototypes swaps the values; the agent takes an immediate win."""
    root, _ = run
    prototypes = lake.read_table(root, PROTOTYPES_TABLE, {"game": "connect4"})
    blacklist = ingested_blacklist(PRESETS["smoke"], "connect4")
    value = ingested_value(prototypes, 2, "ordered", blacklist)
    full = prototypes.filter(pl.col("frequency") == INGESTED_FREQUENCY)
    shares = [dict(full.filter(pl.col("seat") == seat).select("token", "p").iter_rows()) for seat in (0, 1)]
    keep = TokenFilter(blacklist).keeps

    def tokens(state):
        return {t: c for t, c in tokenize_state(state.to_json(dialect="tag"), mode="ordered", num_suffix=True).items()
                if keep(t)}

    engine = load_game("connect4")
    state = engine.new_state(0)
    value.begin_game(state, 0)
    for column in (0, 7, 1, 7, 2, 6):
        state.apply(column)
    value.begin_decision(state, 0)
    children = [_child(state, action) for action in state.legal_actions()]
    ours = value.values(children, 0)
    bag = {}
    for part in (tokens(engine.new_state(0)), tokens(state)):
        for token, count in part.items():
            bag[token] = bag.get(token, 0) + count
    expected = []
    for child in children:
        candidate = dict(bag)
        for token, count in tokens(child).items():
            candidate[token] = candidate.get(token, 0) + count
        distances = np.array([jsd(share, candidate) for share in shares])
        expected.append((1 - distances[0]) / (1 - distances).sum())
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)
    assert np.ptp(ours) > 0  # the prototypes tell the children apart

    swapped = ingested_value(prototypes.with_columns((1 - pl.col("seat")).alias("seat")), 2, "ordered", blacklist)
    swapped.begin_game(engine.new_state(0), 0)
    swapped.begin_decision(state, 0)
    np.testing.assert_allclose(swapped.values(children, 0), 1 - ours, atol=1e-9)

    agent = JsonBagOSLAAgent(ingested_value(prototypes, 2, "ordered", blacklist))
    for seed in range(3):  # x on the bottom row at columns 0..2: x wins at column 3
        agent.reset(seed)
        agent.begin_game(engine.new_state(0), 0)
        assert agent.choose(state) == 3


def test_the_catalog_and_the_report_show_it(run):
    from jbag_pipeline.assets.catalog import catalog
    from jbag_pipeline.report import write_report

    root, _ = run
    assert materialize_with([catalog], JbagSettings(preset="smoke"), root,
                            instance=dg.DagsterInstance.ephemeral()).success
    _, rows = run_query(open_catalog(root), "SELECT game, count(*) FROM ingested_vf_evaluation GROUP BY game "
                                            "ORDER BY game")
    assert rows == [("cantstop", 1), ("connect4", 3), ("dominion", 1), ("dotsandboxes", 3), ("seasaltpaper", 1),
                    ("wonders7", 1)]
    markdown = (write_report(root).parent / "report.md").read_text()
    section = markdown.split("## Ingested TAG trajectories as training data")[1]
    assert all(game in section for game in (*PLAYED, *FOUR_SEATS)) and "won none of its 3 ingested games" in section


def test_without_ingested_games_the_table_is_empty_and_the_checks_pass(tmp_path):
    result = materialize_with([ingested_vf_evaluation], JbagSettings(preset="smoke"), tmp_path,
                              instance=dg.DagsterInstance.ephemeral())
    assert result.success and table(tmp_path).is_empty() and all(check_results(result).values())
