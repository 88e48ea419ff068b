"""The schema of every lake table that has a fixed one, defined once: column name -> Polars dtype, in column order.

Each constant is named by its table and is the schema of the frame its builder returns; a schema shared by several
tables says so, and TABLE_SCHEMAS gives what a reader of each table finds in the lake. This module imports nothing
but polars, so any module can import it without an import circle.
"""

from __future__ import annotations

import polars as pl


def win_rate_statistics(*, against_control: bool = True, p_value_vs_control: bool = True,
                        min_detectable_difference: bool = False) -> dict[str, pl.DataType]:
    """The columns of a win rate with its 95% interval and, against_control, the control's win rate, the p-values
    against it (p_value_vs_control optional), the verdict and optionally the minimum detectable difference."""
    columns = {"win_rate": pl.Float64, "win_rate_low": pl.Float64, "win_rate_high": pl.Float64}
    if against_control:
        columns["control_win_rate"] = pl.Float64
        if p_value_vs_control:
            columns["p_value_vs_control"] = pl.Float64
        columns |= {"p_value_holm": pl.Float64, "verdict": pl.String}
        if min_detectable_difference:
            columns["min_detectable_difference"] = pl.Float64
    return columns


# selfplay_games and ingested_games
SELFPLAY_GAMES = {
    "game": pl.String, "game_id": pl.Int64, "seed": pl.Int64, "n_players": pl.Int8, "params": pl.String,
    "agents": pl.List(pl.String), "winner": pl.Int8, "returns": pl.List(pl.Int8), "scores": pl.List(pl.Float64),
    "actions": pl.String, "n_actions": pl.Int32, "n_states": pl.Int32,
}
# selfplay_states and ingested_states
SELFPLAY_STATES = {
    "game": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32, "turn": pl.Int32, "player": pl.Int8,
    "is_terminal": pl.Boolean, "doc": pl.String,
}
# state_tokens and ingested_tokens
STATE_TOKENS = {"game": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32, "token": pl.String, "count": pl.Int64}
# sampled_states and ingested_sampled_states
SAMPLED_STATES = {"game": pl.String, "frequency": pl.String, "game_id": pl.Int64, "state_idx": pl.Int32}
# trajectory_bags and ingested_bags (sql/trajectory_bags.sql)
TRAJECTORY_BAGS = {"game": pl.String, "frequency": pl.String, "game_id": pl.Int64, "token": pl.String,
                   "count": pl.Int64, "p": pl.Float64}
# winner_prototypes, counters_kept_prototypes and ingested_prototypes (sql/winner_prototypes.sql)
WINNER_PROTOTYPES = {"game": pl.String, "frequency": pl.String, "seat": pl.Int8, "token": pl.String,
                     "count": pl.Int64, "p": pl.Float64}
SEGMENTED_BAGS = {"game": pl.String, "frequency": pl.String, "segment": pl.Int32, "game_id": pl.Int64,
                  "token": pl.String, "p": pl.Float64}
INGESTED_SOURCES = {"game": pl.String, "game_id": pl.Int64, "file": pl.String, "first_line": pl.Int64,
                    "format": pl.String, "mode": pl.String, "n_states": pl.Int32}
INGEST_QUARANTINE = {"game": pl.String, "file": pl.String, "line_or_index": pl.Int64, "reason": pl.String,
                     "file_mtime": pl.Datetime("us", "UTC")}

# selected_features and counters_kept_features
SELECTED_FEATURES = {"game": pl.String, "variant": pl.String, "token": pl.String, "importance": pl.Float64,
                     "rank": pl.Int32, "segment": pl.Int32}
FEATURE_SUMMARY = {"game": pl.String, "variant": pl.String, "tokens_kept": pl.Int32, "accuracy": pl.Float64,
                   "n_trajectories": pl.Int32}
LEAKY_TOKENS = {"game": pl.String, "token": pl.String, "seat": pl.Int8, "accuracy": pl.Float64,
                "accuracy_low": pl.Float64,
                "majority_accuracy": pl.Float64, "n_test": pl.Int32, "blacklisted": pl.Boolean}
# winner_classification, variant_classification and ingested_classification
CLASSIFICATION = {
    "game": pl.String, "frequency": pl.String, "feature_variant": pl.String, "prefix": pl.Float64,
    "n_tokens": pl.Int32, "n_train": pl.Int32, "n_test": pl.Int32, "correct": pl.Int32, "accuracy": pl.Float64,
    "accuracy_low": pl.Float64, "accuracy_high": pl.Float64, "majority_accuracy": pl.Float64,
    "above_majority": pl.Boolean,
}
REFERENCE_REPRODUCTION = {"game": pl.String, "method": pl.String, "ours": pl.Float64, "ours_sd": pl.Float64,
                          "published": pl.Float64}

# as play_evaluation returns it; the lake table drops the wall-clock seconds, which would make reruns differ
EVALUATION_GAMES = {
    "game": pl.String, "prototype_frequency": pl.String, "feature_variant": pl.String, "seat": pl.Int8,
    "game_index": pl.Int32, "seed": pl.Int64, "params": pl.String, "score": pl.Int8, "jsonbag_score": pl.Float64,
    "opponents_best_score": pl.Float64, "n_actions": pl.Int32, "actions": pl.String, "seconds": pl.Float64,
}
EVALUATION_GAMES_STORED = {c: t for c, t in EVALUATION_GAMES.items() if c != "seconds"}
EVALUATION_CONTROL = {"game": pl.String, "seat": pl.Int8, "games": pl.Int64, "wins": pl.Int64, "draws": pl.Int64,
                      "losses": pl.Int64, "win_rate": pl.Float64, "mean_score": pl.Float64}
# the statistics columns of a summary row, after its key columns (not a table by itself)
OUTCOME_STATISTICS = {
    "scope": pl.String, "seat": pl.Int8, "n": pl.Int64, "wins": pl.Int64, "draws": pl.Int64, "losses": pl.Int64,
    "mean": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    **win_rate_statistics(min_detectable_difference=True), "best_worst_diff": pl.Float64,
}
EVALUATION_SUMMARY = {"game": pl.String, "prototype_frequency": pl.String, "feature_variant": pl.String,
                      **OUTCOME_STATISTICS}
MCTS_EVALUATION_GAMES = {
    "game": pl.String, "agent": pl.String, "opponent": pl.String, "iterations": pl.Int32, "leaf_depth": pl.Int32,
    "value_pair": pl.String, "seat": pl.Int8, "game_index": pl.Int32,
    "seed": pl.Int64, "params": pl.String, "score": pl.Int8, "seat_score": pl.Float64,
    "opponents_best_score": pl.Float64, "n_actions": pl.Int32, "actions": pl.String, "cpu_seconds": pl.Float64,
}
MCTS_EVALUATION_GAMES_STORED = {c: t for c, t in MCTS_EVALUATION_GAMES.items() if c != "cpu_seconds"}
MCTS_EVALUATION_SUMMARY = {"game": pl.String, "agent": pl.String, "opponent": pl.String, "iterations": pl.Int32,
                           "leaf_depth": pl.Int32, "value_pair": pl.String,
                           **{("games" if c == "n" else c): t for c, t in OUTCOME_STATISTICS.items()},
                           "win_rate_half_width": pl.Float64, "decided": pl.Boolean}
MCTS_PATTERNS = {
    "game": pl.String, "agent": pl.String, "opponent": pl.String, "kind": pl.String, "pattern": pl.String,
    "count": pl.Int64, "games": pl.Int64, "per_game": pl.Float64, "share": pl.Float64,
}
EFFECT_SIZES = {"game": pl.String, "factor": pl.String, "levels": pl.Int32, "n": pl.Int64,
                "eta_squared": pl.Float64, "null_eta_squared": pl.Float64, "partial_eta_squared": pl.Float64,
                "omega_squared": pl.Float64, "p_value": pl.Float64}
# Table II: an overall evaluation_summary row without scope, seat and the counts; Table I adds the rank
PAPER_TABLE_2 = {c: EVALUATION_SUMMARY[c] for c in (
    "game", "prototype_frequency", "feature_variant", "n", "mean", "ci_low", "ci_high", *win_rate_statistics(),
    "best_worst_diff")}
PAPER_TABLE_1 = {"game": pl.String, "rank": pl.Int32, **PAPER_TABLE_2}
# per game, share of the self-play games and pair: the overall row against the control (play/learning_curve.py);
# selfplay_agent and budget split the self-play `agents` label: mcts + iterations=10,rollout=20
LEARNING_CURVE = {
    "game": pl.String, "share": pl.Float64, "train_games": pl.Int32, "selfplay_agent": pl.String, "budget": pl.String,
    "pair": pl.String, "n": pl.Int64, "wins": pl.Int64, **win_rate_statistics(),
}
VERDICTS = {
    "game": pl.String, "paper_claim": pl.String, "best_pair": pl.String, "pairs_compared": pl.Int32, "n": pl.Int64,
    **win_rate_statistics(p_value_vs_control=False), "worst_seat": pl.Int8, "worst_seat_win_rate": pl.Float64,
    "worst_seat_control_win_rate": pl.Float64, "counters_kept_win_rate": pl.Float64, "decided": pl.Boolean,
    "curve_note": pl.String, "caveat": pl.String,
}
# the authors' published value functions (model/published.py): kind "prototype" rows (seat, token, count, p over the
# whole prototype) and kind "feature" rows (rank, token)
# value_function_ablation: the headline pair's value function with one choice changed (analysis/ablation.py)
VALUE_FUNCTION_ABLATION = {
    "game": pl.String, "factor": pl.String, "level": pl.String, "is_default": pl.Boolean, "pair": pl.String,
    "n_features": pl.Int64, "n": pl.Int64, "wins": pl.Int64, **win_rate_statistics(),
    "p_value_vs_default": pl.Float64,
}
PUBLISHED_VALUE_FUNCTIONS = {"game": pl.String, "kind": pl.String, "seat": pl.Int8, "rank": pl.Int32,
                             "token": pl.String, "count": pl.Int64, "p": pl.Float64}
# their value functions playing in our engines (TAG dialect) against the control, per game and scope; a game that
# cannot be played has one row, scope "skipped", and the reason in note
PUBLISHED_VF_EVALUATION = {
    "game": pl.String, "scope": pl.String, "seat": pl.Int8, "games": pl.Int64, "wins": pl.Int64, "draws": pl.Int64,
    "losses": pl.Int64, **win_rate_statistics(min_detectable_difference=True), "unreachable_features": pl.Int32,
    "note": pl.String,
}
# winner prototypes of ingested TAG trajectories played in our engine of the game (TAG dialect) against the
# control, per ingested game and scope; a game that cannot be played has one row, scope "skipped", and the reason
INGESTED_VF_EVALUATION = {
    "game": pl.String, "engine": pl.String, "prototype_frequency": pl.String, "scope": pl.String, "seat": pl.Int8,
    "games": pl.Int64, "wins": pl.Int64, "draws": pl.Int64, "losses": pl.Int64,
    **win_rate_statistics(min_detectable_difference=True), "ingested_games": pl.Int64, "note": pl.String,
}

# tic-tac-toe: exact win/draw/loss of an agent per setting (tictactoe/table.py SETTINGS), from the agent's side
TICTACTOE_OUTCOMES = {f"{setting}_{outcome}": pl.Float64
                      for setting in ("vs_random_first", "vs_random_second", "vs_full_first", "vs_full_second")
                      for outcome in ("win", "draw", "loss")}
# counts stay Int64 (as numpy and Python ints arrive): a narrower type would change the stored files
TICTACTOE_VALUES = {"board": pl.Int64, "cells": pl.String, "valid": pl.Boolean, "terminal": pl.Boolean,
                    "moves": pl.Int64, "winner": pl.Int64, "f_all": pl.Float64}
TICTACTOE_COMPRESSION = {"method": pl.String, "r": pl.Int64, "Cr": pl.Float64, "E": pl.Float64, **TICTACTOE_OUTCOMES}
TICTACTOE_JSONBAG = {
    "frequency": pl.String, "variant": pl.String, "n_boards": pl.Int64, "n_prototypes": pl.Int64,
    "n_tokens": pl.Int64, "compression_ratio": pl.Float64, "spearman_within_move_count": pl.Float64,
    "pearson_within_move_count": pl.Float64, "n_contested_boards": pl.Int64, "best_move_agreement": pl.Float64,
    "undecided_share": pl.Float64, "best_move_probability": pl.Float64, "random_best_move_probability": pl.Float64,
    "spearman_pooled": pl.Float64, "pearson_pooled": pl.Float64,
    **{f"{r}_moves_{n}": pl.Float64 for n in range(1, 9) for r in ("spearman", "pearson")},  # jsonbag.STRATA
    **TICTACTOE_OUTCOMES,
}

# token_mappings and transfer_results as the transfer functions return them; the asset adds the partition's pair
TOKEN_MAPPINGS = {"target_token": pl.String, "source_token": pl.String, "match_kind": pl.String,
                  "distance": pl.Float64}
TRANSFER_RESULTS = {
    "source": pl.String, "target": pl.String, "method": pl.String, "n_target_games": pl.Int32, "games": pl.Int32,
    "wins": pl.Int64, "draws": pl.Int64, "losses": pl.Int64, "mean_score": pl.Float64, "ci_low": pl.Float64,
    "ci_high": pl.Float64, **win_rate_statistics(min_detectable_difference=True),
}

# selfplay_strength: a game's self-play agent against baseline OSLAs (win rate), and its self-play habits
SELFPLAY_STRENGTH = {
    "game": pl.String, "selfplay_agent": pl.String, "opponent": pl.String, "n": pl.Int64, "wins": pl.Int64,
    "draws": pl.Int64, **win_rate_statistics(against_control=False), "chance_rate": pl.Float64,
    "worst_seat_win_rate": pl.Float64, "selfplay_games": pl.Int64,
    "rolls_per_turn": pl.Float64, "busts_per_turn": pl.Float64,
}
# selfplay_tuning: MCTS candidates against the game's self-play agent, best first; the CPU seconds per decision are
# its only columns that differ between reruns (equal time per decision is what the grid compares)
SELFPLAY_TUNING = {
    "game": pl.String, "rank": pl.Int32, "candidate": pl.String, "iterations": pl.Int64, "rollout_length": pl.Int64,
    "exploration": pl.Float64, "cutoff": pl.String, "opponent": pl.String, "n": pl.Int64, "wins": pl.Int64,
    "draws": pl.Int64, **win_rate_statistics(against_control=False), "chance_rate": pl.Float64,
    "seconds_per_decision": pl.Float64, "opponent_seconds_per_decision": pl.Float64,
    "rolls_per_turn": pl.Float64, "busts_per_turn": pl.Float64,
}

TABLE_SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "selfplay_games": SELFPLAY_GAMES, "ingested_games": SELFPLAY_GAMES,
    "selfplay_states": SELFPLAY_STATES, "ingested_states": SELFPLAY_STATES,
    "state_tokens": STATE_TOKENS, "ingested_tokens": STATE_TOKENS,
    "sampled_states": SAMPLED_STATES, "ingested_sampled_states": SAMPLED_STATES,
    "trajectory_bags": TRAJECTORY_BAGS, "ingested_bags": TRAJECTORY_BAGS,
    "winner_prototypes": WINNER_PROTOTYPES, "counters_kept_prototypes": WINNER_PROTOTYPES,
    "ingested_prototypes": WINNER_PROTOTYPES,
    "segmented_bags": SEGMENTED_BAGS, "ingested_sources": INGESTED_SOURCES, "ingest_quarantine": INGEST_QUARANTINE,
    "selected_features": SELECTED_FEATURES, "counters_kept_features": SELECTED_FEATURES,
    "feature_summary": FEATURE_SUMMARY, "leaky_tokens": LEAKY_TOKENS,
    "winner_classification": CLASSIFICATION, "variant_classification": CLASSIFICATION,
    "ingested_classification": CLASSIFICATION, "reference_reproduction": REFERENCE_REPRODUCTION,
    "published_value_functions": PUBLISHED_VALUE_FUNCTIONS, "published_vf_evaluation": PUBLISHED_VF_EVALUATION,
    "ingested_vf_evaluation": INGESTED_VF_EVALUATION,
    "evaluation_games": EVALUATION_GAMES_STORED, "learning_curve": LEARNING_CURVE,
    "evaluation_control": EVALUATION_CONTROL,
    "evaluation_summary": EVALUATION_SUMMARY, "paper_table_1": PAPER_TABLE_1, "paper_table_2": PAPER_TABLE_2,
    "effect_sizes": EFFECT_SIZES,
    "verdicts": VERDICTS, "value_function_ablation": VALUE_FUNCTION_ABLATION,
    "token_mappings": {**TOKEN_MAPPINGS, "pair": pl.String},
    "transfer_results": {**TRANSFER_RESULTS, "pair": pl.String},
    "tictactoe_values": TICTACTOE_VALUES, "tictactoe_compression": TICTACTOE_COMPRESSION,
    "tictactoe_jsonbag": TICTACTOE_JSONBAG,
    "selfplay_strength": SELFPLAY_STRENGTH, "selfplay_tuning": SELFPLAY_TUNING,
    "mcts_evaluation_games": MCTS_EVALUATION_GAMES_STORED, "mcts_evaluation_summary": MCTS_EVALUATION_SUMMARY,
    "mcts_winning_patterns": MCTS_PATTERNS,
}
"""Lake table name -> the schema of its Parquet files: every table the pipeline writes."""


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType], table: str) -> pl.DataFrame:
    """The columns of `schema` from `frame`, in the schema's order and cast to its dtypes (strictly: a value the
    dtype cannot hold raises); a missing column raises a ValueError naming `table`."""
    missing = [c for c in schema if c not in frame.columns]
    if missing:
        raise ValueError(f"{table} lacks columns {missing} of its schema (has {frame.columns})")
    return frame.select(list(schema)).cast(schema)
