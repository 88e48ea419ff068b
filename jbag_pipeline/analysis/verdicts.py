"""The verdict per game: our best pair against the control arm, beside the paper's claim, with plain caveats."""

from __future__ import annotations

import math

import polars as pl

from jbag_pipeline.agents.evaluation import SENSITIVITY_VARIANT
from jbag_pipeline.analysis.stability import HALVES
from jbag_pipeline.analysis.statistics import OVERALL
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.storage.schemas import STABILITY_SUMMARY, VERDICTS

HEADLINE = "full-full"  # the pair the stability halves and the counters-kept sensitivity row rebuild
SMALL_EFFECT = 0.10  # a study that cannot detect a 10-point win-rate difference gets a caveat
PAPER_CLAIMS = {  # the seed paper's qualitative results (JSON-Bag OSLA vs baseline OSLA)
    "dominion": "beats baseline; feature selection helps most (segmented)",
    "seven_wonders": "beats baseline; feature selection helps (non-segmented)",
    "connect4": "beats baseline; feature selection helps",
    "cant_stop": "beats baseline; frequency and selection matter about equally",
    "dots_and_boxes": "loses to baseline",
    "sea_salt_paper": "loses to baseline",
}
STABILITY_COLUMNS = [c for c in STABILITY_SUMMARY if c != "stable"]  # what a half summary must provide


def _pair(row: dict) -> str:
    return f"{row['prototype_frequency']}-{row['feature_variant']}"


def stability_table(half_summary: pl.DataFrame | None) -> pl.DataFrame:
    """Overall rows of a summary keyed by half; `stable` is true when both halves reach the same verdict, false when
    they differ and null when only one half could be evaluated (no rows when there are no stability games)."""
    if half_summary is None:
        return pl.DataFrame(schema=STABILITY_SUMMARY)
    require_columns(half_summary, "stability summary", STABILITY_COLUMNS)
    overall = half_summary.filter(pl.col("scope") == OVERALL).select(STABILITY_COLUMNS)
    pair = ("game", "prototype_frequency", "feature_variant")
    both = pl.col("half").n_unique().over(*pair) == len(HALVES)
    agree = pl.col("verdict").n_unique().over(*pair) == 1
    return overall.with_columns(pl.when(both).then(agree).otherwise(None).alias("stable")).sort("game", "half")


def _caveats(best: dict, stable: bool | None, counters_kept: float | None) -> str:
    notes = []
    detectable = best["min_detectable_difference"]
    if best["verdict"] == "no clear difference":
        if detectable is None or math.isnan(detectable):
            notes.append("the control wins every game in this seat mix: no gain can be detected")
        elif detectable > SMALL_EFFECT:
            notes.append(f"n = {best['n']} detects only win-rate differences of {detectable:.2f} or more")
    if stable is False:
        notes.append("the verdict of the headline pair changes between halves of the self-play games")
    if counters_kept is not None and abs(counters_kept - best["win_rate"]) > SMALL_EFFECT:
        notes.append(f"keeping the turn-order counters gives a win rate of {counters_kept:.2f}")
    return "; ".join(notes)


def verdict_table(summary: pl.DataFrame, stability: pl.DataFrame) -> pl.DataFrame:
    """Per game: the pair with the highest overall win rate (ties by the lower Wilson bound), its verdict after Holm
    over the game's pairs, the counters-kept sensitivity row's win rate and whether the halves agree."""
    overall = summary.filter(pl.col("scope") == OVERALL)
    rows = []
    for game in sorted(overall["game"].unique().to_list()):
        of_game = overall.filter(pl.col("game") == game)
        candidates = of_game.filter(pl.col("feature_variant") != SENSITIVITY_VARIANT)
        if candidates.is_empty():
            continue
        best = candidates.sort(["win_rate", "win_rate_low", "prototype_frequency", "feature_variant"],
                               descending=[True, True, False, False]).row(0, named=True)
        kept = of_game.filter(pl.col("feature_variant") == SENSITIVITY_VARIANT)["win_rate"]
        counters_kept = float(kept[0]) if len(kept) else None
        halves = stability.filter(pl.col("game") == game)["stable"]
        stable = halves[0] if len(halves) else None
        rows.append({"game": game, "paper_claim": PAPER_CLAIMS.get(game, "(not in the paper)"), "best_pair": _pair(best),
                     "pairs_compared": len(candidates), "n": best["n"], "win_rate": best["win_rate"],
                     "win_rate_low": best["win_rate_low"], "win_rate_high": best["win_rate_high"],
                     "control_win_rate": best["control_win_rate"], "p_value_holm": best["p_value_holm"],
                     "verdict": best["verdict"], "counters_kept_win_rate": counters_kept, "stable": stable,
                     "caveat": _caveats(best, stable, counters_kept)})
    return pl.DataFrame(rows, schema=VERDICTS)
