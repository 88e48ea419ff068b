"""Evaluation assets: the control arm, JSON-Bag OSLA against baseline OSLAs per (game, frequency x variant), and the
summary tables with a verdict per game (decided by the learning curve, assets/learning_curve.py)."""

import time

import dagster as dg
import polars as pl

from jbag_pipeline.assets.common import game_partitions, game_setup, preview
from jbag_pipeline.assets.conditions import SUMMARY_CONDITION
from jbag_pipeline.play.evaluation import control_arm, play_evaluation, split_pair
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.model.variants import FEATURE_VARIANTS, FREQUENCIES, SENSITIVITY_VARIANT
from jbag_pipeline.presets import game_run, token_filter_for
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.resources.io_manager import OPTIONAL
from jbag_pipeline.analysis.statistics import PAIR, best_frequency_without_selection, effect_sizes, summarise, top_pairs
from jbag_pipeline.analysis.verdicts import verdict_table

PAIRS = [f"{frequency}-{variant}" for frequency in FREQUENCIES for variant in FEATURE_VARIANTS]
PAIRS.append(f"full-{SENSITIVITY_VARIANT}")


def _games_metadata(games: pl.DataFrame, seconds: float) -> dict:
    per_seat = games.group_by("seat").agg(pl.col("score").mean().alias("mean_score"),
                                          (pl.col("score") == 1).mean().alias("win_rate"),
                                          pl.len().alias("games")).sort("seat")
    return {"preview": preview(games.drop("actions")), "seconds": seconds,
            "win_rate": float((games["score"] == 1).mean() or 0.0), "per_seat": preview(per_seat)}


@dg.asset(group_name="evaluation", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("every_seat_controlled", asset="evaluation_control")],
          description="Control arm: baseline OSLA in every seat on the games the pairs play; results per seat.")
def evaluation_control(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                       selfplay_games: pl.DataFrame):
    game = context.partition_key
    preset = settings.get_preset()
    n_players, params = game_setup(selfplay_games)
    games_per_seat = game_run(preset, game).eval_games_per_seat
    started = time.perf_counter()
    table = control_arm(game, params, games_per_seat, preset.seed, compute.get_compute())
    seconds = time.perf_counter() - started
    yield dg.Output(table, metadata={"seconds": seconds, "chance_win_rate": 1 / n_players})
    yield dg.AssetCheckResult(check_name="every_seat_controlled",
                              passed=games_per_seat == 0 or table["seat"].to_list() == list(range(n_players)))


def evaluated_pairs(preset) -> list[str]:
    """The (frequency-variant) pairs a preset evaluates, sorted: the order of the rows of evaluation_games."""
    unknown = sorted(set(preset.evaluation_pairs or ()) - set(PAIRS))
    if unknown:
        raise ValueError(f"preset {preset.name!r}: evaluation_pairs {unknown} are not pairs; known: {PAIRS}")
    return sorted(preset.evaluation_pairs or PAIRS)


@dg.asset(group_name="evaluation", partitions_def=game_partitions,
          check_specs=[dg.AssetCheckSpec("every_seat_played", asset="evaluation_games")],
          description="One row per evaluation game of every pair the preset evaluates: the JSON-Bag OSLA in one "
                      "seat, baseline OSLAs in the others.")
def evaluation_games(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                     selfplay_games: pl.DataFrame, winner_prototypes: pl.LazyFrame, selected_features: pl.LazyFrame,
                     counters_kept_prototypes: pl.LazyFrame, counters_kept_features: pl.LazyFrame):
    game = context.partition_key
    preset = settings.get_preset()
    run = game_run(preset, game)
    n_players, params = game_setup(selfplay_games)
    tables = {"winner_prototypes": winner_prototypes, "selected_features": selected_features,
              "counters_kept_prototypes": counters_kept_prototypes, "counters_kept_features": counters_kept_features}
    started, played = time.perf_counter(), []
    for pair in evaluated_pairs(preset):
        played.append(_play_pair(settings, compute, tables, game, pair, n_players, params, run.eval_games_per_seat))
    seconds = time.perf_counter() - started
    games = pl.concat(played)
    per_pair = games.group_by("prototype_frequency", "feature_variant", maintain_order=True).agg(
        (pl.col("score") == 1).mean().alias("win_rate"), pl.len().alias("games"))
    yield dg.Output(games, metadata={**_games_metadata(games, seconds), "per_pair": preview(per_pair, 30)})
    seats = games.group_by("prototype_frequency", "feature_variant").agg(pl.col("seat").unique().sort())
    yield dg.AssetCheckResult(check_name="every_seat_played", passed=run.eval_games_per_seat == 0 or all(
        seat_list == list(range(n_players)) for seat_list in seats["seat"].to_list()))


def _play_pair(settings: JbagSettings, compute: JbagCompute, tables: dict[str, pl.LazyFrame], game: str, pair: str,
               n_players: int, params: dict, games_per_seat: int) -> pl.DataFrame:
    """One pair's evaluation games of `game`, its value function built from this game's tables (scans of its lake
    partitions: only the pair's two are read)."""
    frequency, variant = split_pair(pair)
    preset = settings.get_preset()
    sensitivity = variant == SENSITIVITY_VARIANT  # the headline pair with the turn-order counters kept
    names = ("counters_kept_prototypes", "counters_kept_features") if sensitivity else \
        ("winner_prototypes", "selected_features")
    prototypes, features = (tables[name].collect() for name in names)
    token_filter = token_filter_for(preset, game, keep_counters=sensitivity)

    def value_factory():
        return make_jsonbag_value(prototypes, features, frequency, "full" if sensitivity else variant, n_players,
                                  token_filter=token_filter)

    games = play_evaluation(game, params, frequency, variant, value_factory, games_per_seat, preset.seed,
                            compute.get_compute())
    return games.drop("seconds")  # wall time would make reruns differ; the asset's metadata has it


def summary_of_pairs(games: pl.DataFrame, control: pl.DataFrame) -> pl.DataFrame:
    """evaluation_summary: summarise with Holm over the selection pairs of a game, the pairs the verdict picks its best
    from (picking the best is what the adjustment pays for); the counters-kept sensitivity row is a family of its own,
    so its Holm p is its own p."""
    sensitivity = pl.col("feature_variant") == SENSITIVITY_VARIANT
    parts = [summarise(games.filter(rows), control) for rows in (~sensitivity, sensitivity)
             if not games.filter(rows).is_empty()]
    summary = pl.concat(parts) if parts else summarise(games, control)
    return summary.sort(*PAIR, pl.col("seat").is_null(), "seat")


SUMMARY_INPUTS = {  # summary table -> what it is computed from (its lineage in the asset graph)
    "evaluation_summary": {"evaluation_games", "evaluation_control"},
    "paper_table_1": {"evaluation_games", "evaluation_control"},
    "paper_table_2": {"evaluation_games", "evaluation_control"},
    "effect_sizes": {"evaluation_games"},
    "verdicts": {"evaluation_games", "evaluation_control", "learning_curve"},
}


@dg.multi_asset(
    outs={
        "evaluation_summary": dg.AssetOut(group_name="evaluation", automation_condition=SUMMARY_CONDITION, description=(
            "Per pair and seat: win rate (Wilson 95%), mean score (bounded 95% interval), exact test against the "
            "control, Holm-adjusted p and a verdict.")),
        "paper_table_1": dg.AssetOut(group_name="evaluation", automation_condition=SUMMARY_CONDITION, description=(
            "Table I: the top-3 (prototype frequency, feature variant) pairs per game.")),
        "paper_table_2": dg.AssetOut(group_name="evaluation", automation_condition=SUMMARY_CONDITION, description=(
            "Table II: the best prototype frequency without feature selection per game.")),
        "effect_sizes": dg.AssetOut(group_name="evaluation", automation_condition=SUMMARY_CONDITION, description=(
            "Table III: eta-squared, partial eta-squared, omega-squared and the ANOVA F test of prototype frequency "
            "and feature selection per game, beside the null expectation.")),
        "verdicts": dg.AssetOut(group_name="evaluation", automation_condition=SUMMARY_CONDITION, description=(
            "One row per game: the paper's claim, our best pair against the control, the verdict, its worst seat "
            "and whether its learning curve decides it.")),
    },
    ins={"learning_curve": dg.AssetIn(metadata={OPTIONAL: True})},  # None until some game's curve exists
    internal_asset_deps={name: {dg.AssetKey(table) for table in inputs} for name, inputs in SUMMARY_INPUTS.items()},
    check_specs=[dg.AssetCheckSpec("eta_squared_in_unit_interval", asset="effect_sizes"),
                 dg.AssetCheckSpec("control_for_every_evaluated_game", asset="evaluation_summary")],
)
def evaluation_tables(evaluation_games: pl.DataFrame, evaluation_control: pl.DataFrame,
                      learning_curve: pl.DataFrame | None):
    games = evaluation_games
    control = evaluation_control
    uncontrolled = sorted(set(games["game"]) - set(control["game"]))
    control = control.filter(pl.col("game").is_in(games["game"].unique().implode()))
    controlled = games.filter(pl.col("game").is_in(control["game"].unique().implode()))
    summary = summary_of_pairs(controlled, control)
    selection_pairs = summary.filter(pl.col("feature_variant") != SENSITIVITY_VARIANT)
    factorial = games.filter(pl.col("feature_variant") != SENSITIVITY_VARIANT)
    verdicts = verdict_table(summary, learning_curve)
    tables = {"evaluation_summary": summary, "paper_table_1": top_pairs(selection_pairs, 3),
              "paper_table_2": best_frequency_without_selection(selection_pairs),
              "effect_sizes": effect_sizes(factorial), "verdicts": verdicts}
    for name, table in tables.items():
        shown = table.filter(pl.col("scope") == "overall") if name == "evaluation_summary" else table
        metadata = {"table": preview(shown, 40)}
        if name == "evaluation_summary":
            metadata["verdicts"] = preview(verdicts, 20)
        yield dg.Output(table, output_name=name, metadata=metadata)
    eta = tables["effect_sizes"]["eta_squared"].drop_nans().drop_nulls()
    yield dg.AssetCheckResult(asset_key="effect_sizes", check_name="eta_squared_in_unit_interval",
                              passed=bool(eta.is_between(0, 1).all()))
    yield dg.AssetCheckResult(asset_key="evaluation_summary", check_name="control_for_every_evaluated_game",
                              passed=not uncontrolled,
                              metadata={"games_without_control": ", ".join(uncontrolled) or "none"})
