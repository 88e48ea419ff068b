"""Winner leakage: the per-game blacklist fields, the leaky-token stump check, and the blacklist applied everywhere."""

import dagster as dg
import numpy as np
import polars as pl
import pytest
from sklearn.tree import DecisionTreeClassifier

from engines import GAMES, game_info, load_game
from engines.base import COMMON_OUTCOME_FIELDS
from engines.agents import RandomAgent
from engines.match import play_match
import jbag_pipeline.storage.lake as lake
from jbag_pipeline.analysis.ablation import full_tables
from jbag_pipeline.assets.leakage import counters_kept, leaky_tokens
from jbag_pipeline.transforms.bags_table import trajectory_bags_table
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.analysis.leakage import (COMMON_OUTCOME_FIELDS as LEAKAGE_COMMON_OUTCOME_FIELDS,
                                            DEFAULT_TOKEN_BLACKLIST, LAST_TURN, LEAKING_TURN_ORDER_FIELDS,
                                            LEAKY_TOKENS_SCHEMA, fit_stumps, leaky_tokens_table)
from jbag_pipeline.presets import GameRun, get_preset, token_filter_for
from jbag_pipeline.resources import JbagSettings
from jbag_pipeline.transforms.sampling import sampled_states
from jbag_pipeline.transforms.segments import segmented_bags
from jbag_pipeline.model.selection import select_features
from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds
from jbag_pipeline.storage.sql import run_sql
from jbag_pipeline.transforms.state_tokens import tokenize_states
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_state
from tests.helpers.materialize import materialize_with

PRESET = get_preset("smoke")
TINY = GameRun(mcts_iterations=2, rollout_length=5)
COUNTERS = ("turnCounter", "turnOwner", "moveCount")  # connect4's turn-order fields


def _top_key(token: str) -> str:
    return token[1:].replace("[", ".").split(".")[0]


@pytest.fixture(scope="module")
def selfplay_tokens() -> dict[str, list[str]]:
    """Distinct tokens of the recorded states of 3 random-agent matches of every engine (as self-play records them)."""
    tokens = {}
    for name in sorted(GAMES):
        game = load_game(name)
        records = [play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=s) for s in range(3)]
        tokens[name] = sorted(set().union(*(tokenize_state(state.doc, num_suffix=True)
                                             for record in records for state in record.states)))
    return tokens


@pytest.fixture(scope="module")
def connect4_tables():
    """(games, states, state_tokens, sampled_states) of 30 tiny MCTS Connect4 self-play games."""
    games, states = play_selfplay("connect4", TINY, selfplay_seeds(0, 0, 30))
    return games, states, tokenize_states(states), sampled_states(states, games, 0)


# the fields the default blacklist drops, per game: the outcome fields and the leaking turn-order fields that
# leakage.py documents
EXPECTED_FIELDS = {
    "cant_stop": {"gameStatus", "playerResults", "turnCounter"},
    "connect4": {"gameStatus", "playerResults", "winnerCells", "turnCounter", "turnOwner", "moveCount"},
    "dominion": {"gameStatus", "playerResults"},
    "dots_and_boxes": {"gameStatus", "playerResults"},
    "sea_salt_paper": {"gameStatus", "playerResults"},
    "seven_wonders": {"gameStatus", "playerResults"},
    "tictactoe": {"gameStatus", "playerResults", "winnerCells", "turnCounter", "turnOwner", "moveCount"},
}
# neighbours a loose substring rule could hit, which must stay
KEPT_NEIGHBOURS = {"dominion": ("gamePhase", "actionsLeft"), "sea_salt_paper": ("turnPhase", "playerTotalScores"),
                   "seven_wonders": ("turnActions", "currentAge", "direction"), "cant_stop": ("gamePhase",)}


def test_every_game_has_documented_fields():
    assert set(LEAKING_TURN_ORDER_FIELDS) == set(GAMES)
    assert LEAKAGE_COMMON_OUTCOME_FIELDS == COMMON_OUTCOME_FIELDS  # the tokenizer's default blacklist: common_json's
    for game, leaking in LEAKING_TURN_ORDER_FIELDS.items():
        assert set(leaking) <= set(game_info(game).turn_order_fields) and all(leaking.values())


def _random_matches(name: str, n: int = 30):
    game = load_game(name)
    return game.n_players, [play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=s) for s in range(n)]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_last_turn_fields_are_exactly_those_whose_last_value_names_the_winner(game):
    """LAST_TURN: where a game ends in its winner's turn, the last turnCounter names the winner (mod the seats) in
    every decided game, and such a game's turnCounter is dropped; where it does not, some random game breaks it."""
    n_players, records = _random_matches(game)
    decided = [(r.winner, r.states[-1].doc["turnCounter"]) for r in records if r.winner is not None]
    offsets = {(turn - winner) % n_players for winner, turn in decided}
    assert len(decided) >= 5
    assert (len(offsets) == 1) == (LEAKING_TURN_ORDER_FIELDS[game].get("turnCounter") == LAST_TURN)


@pytest.mark.parametrize("game", ["connect4", "tictactoe", "dots_and_boxes"])
def test_with_two_alternating_seats_the_balance_of_turn_owners_names_the_winner(game):
    """turnOwner leaks (LAST_TURN) where seat 0 won exactly the games with as many turnOwner-0 as turnOwner-1
    states: the trajectory bag's counts of those tokens give the winner away."""
    _, records = _random_matches(game)
    balanced_wins = set()
    for record in (r for r in records if r.winner is not None):
        owners = [state.doc["turnOwner"] for state in record.states]
        balanced_wins.add((owners.count(0) == owners.count(1), record.winner))
    leaks = balanced_wins in ({(True, 0), (False, 1)}, {(True, 1), (False, 0)})
    assert leaks == (LEAKING_TURN_ORDER_FIELDS[game].get("turnOwner") == LAST_TURN)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_field_rule_removes_exactly_its_own_top_level_field_on_selfplay_states(game, selfplay_tokens):
    tokens = selfplay_tokens[game]
    blacklist = PRESET.blacklist_for(game)
    assert set(blacklist) == EXPECTED_FIELDS[game]
    for field in blacklist:
        removed = [t for t in tokens if not TokenFilter([field]).keeps(t)]
        assert removed, f"{game}: field {field} removes no token"
        assert {_top_key(t) for t in removed} == {field}
        assert [t for t in tokens if _top_key(t) == field] == removed  # and every token of that field
    kept_keys = {_top_key(t) for t in tokens if TokenFilter(blacklist).keeps(t)}
    assert not kept_keys & set(blacklist)
    assert set(KEPT_NEIGHBOURS.get(game, ())) <= kept_keys
    # the game-agnostic default (the agent's fallback) drops every outcome and turn-order field of this game
    every_field = (*game_info(game).outcome_fields, *game_info(game).turn_order_fields)
    assert [t for t in tokens if TokenFilter(DEFAULT_TOKEN_BLACKLIST).keeps(t)] == \
        [t for t in tokens if TokenFilter(every_field).keeps(t)]
    assert set(PRESET.blacklist_for(game, keep_counters=True)) == set(game_info(game).outcome_fields)


def test_unknown_game_gets_tags_common_fields():
    assert PRESET.blacklist_for("Connect4") == ("gameStatus", "playerResults", "tick", "roundCounter", "turnCounter",
                                                "turnOwner", "firstPlayer")


def test_run_config_override_replaces_turn_order_fields_and_is_validated():
    preset = JbagSettings(preset="smoke", token_blacklist={"connect4": ["moveCount", "heights"]}).get_preset()
    assert preset.blacklist_for("connect4") == ("gameStatus", "playerResults", "winnerCells", "moveCount", "heights")
    assert preset.blacklist_for("connect4", keep_counters=True) == ("gameStatus", "playerResults", "winnerCells")
    assert preset.blacklist_for("dominion") == PRESET.blacklist_for("dominion")
    with pytest.raises(ValueError, match="token_blacklist: unknown game 'chess'"):
        JbagSettings(preset="smoke", token_blacklist={"chess": ["turnOwner"]}).get_preset()
    with pytest.raises(ValueError, match=r"token_blacklist\['connect4'\]: every entry must be a non-empty"):
        JbagSettings(preset="smoke", token_blacklist={"connect4": ["moveCount", " "]}).get_preset()
    assert JbagSettings(preset="smoke").get_preset() == PRESET


def test_stumps_fit_training_labels_at_least_as_well_as_sklearns_depth_one_tree():
    rng = np.random.default_rng(0)
    x = rng.random((60, 8)) * (rng.random((60, 8)) < 0.6)
    y = rng.integers(0, 3, 60)
    x[:, 0] = (y == 2) * 0.5 + 0.1  # separates seat 2 from the rest
    threshold, low, high = fit_stumps(x, y)
    for j in range(x.shape[1]):
        ours = np.mean(np.where(x[:, j] <= threshold[j], low[j], high[j]) == y)
        tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(x[:, [j]], y)
        assert ours >= tree.score(x[:, [j]], y) - 1e-12
    assert low[0] != 2 and high[0] == 2 and 0.1 < threshold[0] < 0.6
    constant = fit_stumps(np.ones((5, 1)), np.array([1, 1, 0, 1, 0]))
    assert constant[0][0] == np.inf and constant[1][0] == 1


def _planted_tables(n_games: int = 80, plant: bool = True, seed: int = 1, seats: int = 2,
                    planted_seat: int | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Connect4-like state_tokens whose noise tokens know nothing, plus (if plant) `.leak.<winner>` in every state
    (only in the games `planted_seat` won, when given)."""
    rng = np.random.default_rng(seed)
    winners = rng.integers(0, seats, n_games)
    rows = []
    for game_id, winner in enumerate(winners.tolist()):
        for state_idx in range(4):
            for k in range(12):
                rows.append(("connect4", game_id, state_idx, f".noise.{k}", int(rng.integers(1, 4))))
            if plant and planted_seat in (None, winner):
                rows.append(("connect4", game_id, state_idx, f".leak.{winner}", 1))
    tokens = pl.DataFrame(rows, schema=["game", "game_id", "state_idx", "token", "count"], orient="row") \
        .cast({"game_id": pl.Int64, "state_idx": pl.Int32, "count": pl.Int64})
    games = pl.DataFrame({"game": "connect4", "game_id": list(range(n_games)), "winner": winners.tolist()},
                         schema={"game": pl.String, "game_id": pl.Int64, "winner": pl.Int8})
    return tokens, games


def test_leaky_tokens_flags_a_planted_winner_token_and_nothing_on_a_clean_table():
    tokens, games = _planted_tables()
    table, tested = leaky_tokens_table(tokens, games, test_share=0.3, blacklist=("gameStatus",))
    assert tested == 14
    assert table.schema == pl.Schema(LEAKY_TOKENS_SCHEMA)
    assert table.select("token", "seat").rows() == [(".leak.0", None), (".leak.1", None)]
    assert (table["accuracy"] == 1.0).all() and (table["n_test"] == 24).all()
    assert (table["accuracy_low"] >= table["majority_accuracy"] + 0.1).all()
    assert not table["blacklisted"].any()
    flagged, _ = leaky_tokens_table(tokens, games, test_share=0.3, blacklist=("leak",))
    assert flagged["blacklisted"].all()
    clean, _ = leaky_tokens_table(*_planted_tables(plant=False), test_share=0.3, blacklist=())
    assert clean.is_empty()
    few, _ = leaky_tokens_table(*_planted_tables(n_games=20), test_share=0.3, blacklist=())
    assert few.is_empty()  # 6 held-out games: below MIN_TEST_GAMES nothing is called leaky


def test_in_a_four_seat_game_a_token_giving_away_one_seats_win_is_flagged_for_that_seat():
    tokens, games = _planted_tables(n_games=400, seats=4, planted_seat=2)
    table, tested = leaky_tokens_table(tokens, games, test_share=0.3, blacklist=())
    assert tested == 13
    assert table.select("token", "seat").rows() == [(".leak.2", 2)]  # "which seat won" it cannot answer alone
    assert table["accuracy"][0] == 1.0 and table["majority_accuracy"][0] > 0.6


def _check(result, name: str) -> dg.AssetCheckEvaluation:
    return next(e for e in result.get_asset_check_evaluations() if e.check_name == name)


def test_leaky_tokens_asset_warns_on_a_kept_planted_token_until_the_run_config_blacklists_it(tmp_path):
    tokens, games = _planted_tables()
    lake.write_table(tokens, tmp_path, "state_tokens", {"game": "connect4"})
    lake.write_table(games, tmp_path, "selfplay_games", {"game": "connect4"})
    for override, passed in ((None, False), ({"connect4": ["leak"]}, True)):
        settings = JbagSettings(preset="smoke", token_blacklist=override)
        result = materialize_with([leaky_tokens], settings, tmp_path, partition_key="connect4", raise_on_error=True)
        check = _check(result, "no_leaky_token_kept")
        assert check.passed is passed and check.severity == dg.AssetCheckSeverity.WARN
        table = lake.read_table(tmp_path, "leaky_tokens", {"game": "connect4"})
        assert table["token"].to_list() == [".leak.0", ".leak.1"] and table["blacklisted"].all() is passed
        if not passed:
            assert ".leak.0" in check.metadata["kept_leaky_tokens"].value


def _counter_tokens(tokens) -> set[str]:
    return {t for t in tokens if _top_key(t) in COUNTERS}


def test_blacklist_removes_turn_order_tokens_from_bags_prototypes_and_random_forest_input(connect4_tables):
    games, _, tokens, sampled = connect4_tables
    assert _counter_tokens(tokens["token"])  # the states do carry them
    blacklist = PRESET.blacklist_for("connect4")
    bags, dropped = trajectory_bags_table(tokens, sampled, blacklist)
    assert _counter_tokens(dropped) == _counter_tokens(tokens["token"].unique())
    prototypes = run_sql("winner_prototypes", {"trajectory_bags": bags, "games": games})
    segmented = segmented_bags(tokens, sampled, 2, blacklist=blacklist)
    features = select_features(segmented, games, k=20, n_estimators=10, seed=0).features
    for table in (bags, prototypes, segmented, features):
        assert not _counter_tokens(table["token"])
    kept_prototypes, kept_features = full_tables(tokens, sampled, games, blacklist=PRESET.blacklist_for(
        "connect4", keep_counters=True), k=20, n_estimators=10, seed=0)
    assert _counter_tokens(kept_prototypes["token"])
    assert set(kept_prototypes["frequency"]) == {"full"} and set(kept_features["variant"]) == {"full"}


def test_full_tables_are_built_as_winner_prototypes_and_selected_features(connect4_tables):
    games, _, tokens, sampled = connect4_tables
    blacklist = PRESET.blacklist_for("connect4", keep_counters=True)
    prototypes, features = full_tables(tokens, sampled, games, blacklist=blacklist, k=20, n_estimators=10,
                                                seed=0)
    bags, _ = trajectory_bags_table(tokens, sampled, blacklist)
    expected = run_sql("winner_prototypes", {"trajectory_bags": bags, "games": games})
    assert prototypes.equals(expected.filter(pl.col("frequency") == "full"))
    selection = select_features(segmented_bags(tokens, sampled, 3, blacklist=blacklist), games, k=20, n_estimators=10,
                                seed=0)
    assert features.equals(selection.features.filter(pl.col("variant") == "full"))


def test_counters_kept_assets_materialise_with_the_selected_features_schema(tmp_path, connect4_tables):
    games, _, tokens, sampled = connect4_tables
    for table, frame in (("selfplay_games", games), ("state_tokens", tokens), ("sampled_states", sampled)):
        lake.write_table(frame, tmp_path, table, {"game": "connect4"})
    materialize_with([counters_kept], JbagSettings(preset="smoke"), tmp_path, partition_key="connect4",
                     raise_on_error=True)
    features = lake.read_table(tmp_path, "counters_kept_features", {"game": "connect4"})
    prototypes = lake.read_table(tmp_path, "counters_kept_prototypes", {"game": "connect4"})
    assert set(features["variant"]) == {"full"} and 0 < len(features) <= PRESET.top_k
    assert {"game", "frequency", "seat", "token", "count", "p"} <= set(prototypes.columns)
    assert _counter_tokens(prototypes["token"])


def test_agent_value_with_the_games_filter_ignores_a_planted_turn_order_token(connect4_tables):
    games, _, tokens, sampled = connect4_tables
    bags, _ = trajectory_bags_table(tokens, sampled, PRESET.blacklist_for("connect4"))
    clean = run_sql("winner_prototypes", {"trajectory_bags": bags, "games": games})
    plant = {"game": "connect4", "frequency": "full", "seat": 0, "token": ".moveCount.7", "count": 10_000, "p": 0.5}
    planted = pl.concat([clean, pl.DataFrame(plant).cast(clean.schema)])
    no_features = pl.DataFrame(schema={"game": pl.String, "variant": pl.String, "token": pl.String,
                                       "importance": pl.Float64, "rank": pl.Int32, "segment": pl.Int32})
    state = GAMES["connect4"]().new_state(seed=3)
    for move in (0, 1, 2, 3, 4, 5, 6):
        state.apply(state.legal_actions()[move % len(state.legal_actions())])

    def values(prototypes, token_filter):
        value = make_jsonbag_value(prototypes, no_features, "full", "none", 2, token_filter=token_filter)
        value.begin_decision(state, state.current_player)
        return value, [value.value(state, seat) for seat in (0, 1)]

    filtered, with_plant = values(planted, token_filter_for(PRESET, "connect4"))
    assert ".moveCount.7" not in filtered.features and not _counter_tokens(filtered.features)
    assert with_plant == values(clean, token_filter_for(PRESET, "connect4"))[1]
    kept, with_counters = values(planted, token_filter_for(PRESET, "connect4", keep_counters=True))
    assert ".moveCount.7" in kept.features and with_counters != with_plant
