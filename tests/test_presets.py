"""The built-in presets keep their values: reproduce is written as the demo's games with replacements, and every
field of the demo and reproduce presets stays what it was when it was written so (2026-12-02)."""

from dataclasses import fields

from jbag_pipeline.presets import DEMO_TUNING_GRID, PRESETS, GameRun

COMMON = {"params": {}, "openspiel_rollouts": 1, "mcts_exploration": 1.0, "mcts_cutoff": "score",
          "mcts_leaf_depth": 0, "mcts_value_pair": "full-full"}
OPENSPIEL = {"selfplay_agent": "openspiel_mcts"}
OURS = {"selfplay_agent": "mcts", "openspiel_simulations": 1000}
# game -> (selfplay_games, mcts_iterations, rollout_length, eval_games_per_seat, strength_games_per_seat,
#          tuning_games_per_seat, mcts_eval_games_per_seat, agent fields)
DEMO = {
    "connect4": (280, 100, 50, 75, 50, 1, 50, {**OPENSPIEL, "openspiel_simulations": 1000}),
    "tictactoe": (200, 100, 20, 75, 50, 1, 0, OURS),
    "dots_and_boxes": (190, 30, 20, 75, 50, 1, 50, {**OPENSPIEL, "openspiel_simulations": 200}),
    "cant_stop": (400, 20, 10, 38, 25, 25, 25, OURS),
    "sea_salt_paper": (100, 15, 10, 38, 25, 15, 25, OURS),
    "dominion": (240, 15, 10, 38, 25, 10, 25, OURS),
    "seven_wonders": (100, 15, 10, 38, 25, 10, 25, OURS),
}
REPRODUCE = {
    "connect4": (800, 100, 50, 200, 50, 1, 100, {**OPENSPIEL, "openspiel_simulations": 1000}),
    "tictactoe": (200, 100, 20, 200, 50, 1, 0, OURS),
    "dots_and_boxes": (2240, 30, 20, 200, 50, 1, 100, {**OPENSPIEL, "openspiel_simulations": 200}),
    "cant_stop": (1600, 20, 10, 100, 25, 1, 50, OURS),
    "sea_salt_paper": (800, 15, 10, 100, 25, 1, 50, OURS),  # 800 since the model steps fit 6 GB there (issue 24)
    "dominion": (720, 15, 10, 100, 25, 1, 50, OURS),
    "seven_wonders": (800, 15, 10, 100, 25, 1, 50, OURS),
}
COUNTED = ("selfplay_games", "mcts_iterations", "rollout_length", "eval_games_per_seat", "strength_games_per_seat",
           "tuning_games_per_seat", "mcts_eval_games_per_seat")
TRANSFER = {"source_games": 40, "target_games": 200, "mcts_iterations": 10, "rollout_length": 20, "games_per_seat": 50}
PRESET_FIELDS = {  # every field but games, outcome_fields and turn_order_fields (the leakage module's defaults)
    "demo": {"name": "demo", "seed": 0, "test_share": 0.3, "rf_trees": 100, "top_k": 100, "segments": 4,
             "adaptive_share": 0.9, "duckdb_memory_limit": "4GB",
             "evaluation_pairs": ("full-none", "full-full", "full-full_seg"), "learning_curve_shares": (0.5, 1.0),
             "learning_curve_pairs": None, "transfer": TRANSFER, "tuning_grid": DEMO_TUNING_GRID,
             "ablation_top_k": 500, "ablation_factors": ("normalisation", "top_k", "turn_order:turnOwner")},
    "reproduce": {"name": "reproduce", "seed": 0, "test_share": 0.3, "rf_trees": 100, "top_k": 100, "segments": 4,
                  "adaptive_share": 0.9, "duckdb_memory_limit": "4GB",
                  "evaluation_pairs": ("full-none", "full-full", "full-full_seg"),
                  "learning_curve_shares": (0.25, 0.5, 1.0), "learning_curve_pairs": None, "transfer": TRANSFER,
                  "tuning_grid": {}, "ablation_top_k": 500, "ablation_factors": None},
}


def expected_run(values: tuple) -> dict:
    *counts, agent = values
    return {**COMMON, **dict(zip(COUNTED, counts)), **agent}


def test_demo_and_reproduce_keep_every_value_field_by_field():
    for name, games in (("demo", DEMO), ("reproduce", REPRODUCE)):
        preset = PRESETS[name]
        assert list(preset.games) == list(games), name
        for game, values in games.items():
            run = preset.games[game]
            assert {f.name: getattr(run, f.name) for f in fields(GameRun)} == expected_run(values), (name, game)
        for field_name, value in PRESET_FIELDS[name].items():
            assert getattr(preset, field_name) == value, (name, field_name)
        assert set(PRESET_FIELDS[name]) | {"games", "outcome_fields", "turn_order_fields"} == \
            {f.name for f in fields(preset)}
