"""The authors' published JSON-Bag value functions: read and validated, then played in our engines through TAG's
dialect against the control. Not in the default selection (`jbag run --select published_value_functions,
published_vf_evaluation`); without the data folder both write zero-row tables whose metadata say why."""

import os
import time

import dagster as dg
import polars as pl

from jbag_pipeline.play.published_evaluation import SKIPPED, evaluate_published, skipped_notes, skipped_row
from jbag_pipeline.assets.common import preview
from jbag_pipeline.model.published import (PUBLISHED_FOLDERS, SUM_TOLERANCE, from_table, provenance,
                                           prototype_sum_errors, published_table, read_published)
from jbag_pipeline.presets import game_run
from jbag_pipeline.resources import JbagCompute, JbagSettings
from jbag_pipeline.run_policy import OPT_IN, YES
from jbag_pipeline.schemas import PUBLISHED_VALUE_FUNCTIONS, PUBLISHED_VF_EVALUATION

DIR_VARIABLE = "JBAG_PUBLISHED_VF_DIR"


class PublishedVFConfig(dg.Config):
    """Where the jsonbag_vf_published folder is (default: JBAG_PUBLISHED_VF_DIR)."""

    published_vf_dir: str | None = None


def _folder_problem(folder: str | None) -> str | None:
    if not folder:
        return f"skipped: no published value-function folder (set {DIR_VARIABLE} or the asset's published_vf_dir)"
    if not os.path.isdir(folder):
        return f"skipped: the published value-function folder {folder} does not exist"
    return None


@dg.asset(group_name="published", tags={OPT_IN: YES},
          check_specs=[dg.AssetCheckSpec("prototypes_sum_to_one", asset="published_value_functions")],
          description="The authors' winner prototypes and top-k feature lists (../shared/data/jsonbag_vf_published), "
                      "validated; kind prototype rows (seat, token, count, p) and kind feature rows (rank, token). "
                      "Not in the default selection; zero rows when the folder is absent.")
def published_value_functions(context: dg.AssetExecutionContext, config: PublishedVFConfig):
    folder = config.published_vf_dir or os.environ.get(DIR_VARIABLE)
    problem = _folder_problem(folder)
    if problem is not None:
        context.log.warning(f"published_value_functions {problem}")
        yield dg.Output(pl.DataFrame(schema=PUBLISHED_VALUE_FUNCTIONS), metadata={"status": problem})
        yield dg.AssetCheckResult(check_name="prototypes_sum_to_one", passed=True, metadata={"status": problem})
        return
    table = published_table(read_published(folder))
    counts = table.group_by("game", "kind").agg(pl.len().alias("rows")).sort("game", "kind")
    yield dg.Output(table, metadata={"status": "read", **provenance(folder), "folder": dg.MetadataValue.path(folder),
                                     "rows_per_game": preview(counts, 20)})
    worst = prototype_sum_errors(table)
    yield dg.AssetCheckResult(check_name="prototypes_sum_to_one", passed=worst <= SUM_TOLERANCE,
                              metadata={"max_abs_error": worst})


@dg.asset(group_name="published", tags={OPT_IN: YES},
          check_specs=[dg.AssetCheckSpec("every_published_game_reported", asset="published_vf_evaluation"),
                       dg.AssetCheckSpec("win_rates_within_intervals", asset="published_vf_evaluation")],
          description="The authors' JSON-Bag OSLA (their prototypes and features, our states in TAG's dialect) in "
                      "each seat against baseline OSLAs, beside the control arm on the same seeds: win rates (Wilson "
                      "95%), Fisher per seat, stratified exact test overall, Holm, verdict. Games without a TAG "
                      "dialect get one row, scope skipped, with the reason.")
def published_vf_evaluation(context: dg.AssetExecutionContext, settings: JbagSettings, compute: JbagCompute,
                            published_value_functions: pl.DataFrame):
    preset = settings.get_preset()
    started, frames = time.perf_counter(), []
    for game in PUBLISHED_FOLDERS:
        if published_value_functions.filter(pl.col("game") == game).is_empty():
            frames.append(skipped_row(game, "no published value function (published_value_functions was skipped)"))
            continue
        run = game_run(preset, game)
        frames.append(evaluate_published(game, from_table(published_value_functions, game), dict(run.params),
                                         run.eval_games_per_seat, preset.seed, compute.get_compute()))
        context.log.info(f"published_vf_evaluation: {game} done after {time.perf_counter() - started:.1f}s")
    table = pl.concat(frames) if frames else pl.DataFrame(schema=PUBLISHED_VF_EVALUATION)
    status = skipped_notes(table)
    yield dg.Output(table, metadata={
        "seconds": time.perf_counter() - started, "preset": preset.name,
        "overall": preview(table.filter(pl.col("scope") == "overall"), 10),
        "skipped": dg.MetadataValue.md(status or "*(none)*"),
        "unreachable_features": {g: int(n) for g, n in table.filter(pl.col("scope") == "overall")
                                 .select("game", "unreachable_features").iter_rows()}})
    yield dg.AssetCheckResult(check_name="every_published_game_reported",
                              passed=sorted(set(table["game"])) == sorted(PUBLISHED_FOLDERS))
    played = table.filter(pl.col("scope") != SKIPPED)
    outside = played.filter(~pl.col("win_rate").is_between(pl.col("win_rate_low"), pl.col("win_rate_high")))
    yield dg.AssetCheckResult(check_name="win_rates_within_intervals", passed=outside.is_empty(),
                              metadata={"rows_outside": len(outside)})
