"""The verdict per game: our best pair against the control arm, beside the paper's claim, with plain caveats."""

from __future__ import annotations

import math

import polars as pl

from jbag_pipeline.analysis.statistics import OVERALL
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.model.variants import SENSITIVITY_VARIANT
from jbag_pipeline.schemas import LEARNING_CURVE, VERDICTS

HEADLINE = "full-full"  # the pair the ablation varies and the counters-kept sensitivity row rebuilds
SMALL_EFFECT = 0.10  # a study that cannot detect a 10-point win-rate difference gets a caveat
MAX_HALF_WIDTH = 0.08  # a decided verdict's win rate is known to within +-0.08 (95% Wilson) at the last curve point
PAPER_CLAIMS = {  # the seed paper's qualitative results (JSON-Bag OSLA vs baseline OSLA)
    "dominion": "beats baseline; feature selection helps most (segmented)",
    "seven_wonders": "beats baseline; feature selection helps (non-segmented)",
    "connect4": "beats baseline; feature selection helps",
    "cant_stop": "beats baseline; frequency and selection matter about equally",
    "dots_and_boxes": "loses to baseline",
    "sea_salt_paper": "loses to baseline",
}
CURVE_COLUMNS = ("share", "train_games", "win_rate_low", "win_rate_high", "verdict")  # what the rule reads


def _pair(row: dict) -> str:
    return f"{row['prototype_frequency']}-{row['feature_variant']}"


def _points(curve_rows_of_pair: pl.DataFrame) -> list[dict]:
    require_columns(curve_rows_of_pair, "learning_curve", CURVE_COLUMNS)
    return curve_rows_of_pair.sort("share").select(CURVE_COLUMNS).to_dicts()


def _half_width(point: dict) -> float:
    return (point["win_rate_high"] - point["win_rate_low"]) / 2


def decided(curve_rows_of_pair: pl.DataFrame, max_half_width: float = MAX_HALF_WIDTH) -> bool | None:
    """The rule for a decided verdict, on one pair's learning-curve rows: its verdict is the same at the last two
    curve points and its win rate's 95% Wilson half-width at the last point is at most max_half_width. None without
    a curve; False with a single point (nothing to compare) or a NaN interval (no games)."""
    points = _points(curve_rows_of_pair)
    if not points:
        return None
    if len(points) < 2:
        return False
    before, last = points[-2], points[-1]
    return before["verdict"] == last["verdict"] and _half_width(last) <= max_half_width


def curve_note(curve_rows_of_pair: pl.DataFrame, max_half_width: float = MAX_HALF_WIDTH) -> str | None:
    """One plain sentence on where a pair's verdict settles along its learning curve, or why it has not; None
    without a curve."""
    points = _points(curve_rows_of_pair)
    if not points:
        return None
    last = points[-1]
    width = f"+-{_half_width(last):.2f}"
    if len(points) < 2:
        return (f"not settled at this budget: a single curve point ({last['verdict']} at {last['train_games']} "
                "training games)")
    before = points[-2]
    if before["verdict"] != last["verdict"]:
        return (f"not settled at this budget: {before['verdict']} at {before['train_games']} games, "
                f"{last['verdict']} at {last['train_games']}")
    if not _half_width(last) <= max_half_width:
        return (f"not settled at this budget: {last['verdict']} at {before['train_games']} and "
                f"{last['train_games']} games, but {width} is wider than +-{max_half_width:.2f}")
    since = len(points) - 1
    while since > 0 and points[since - 1]["verdict"] == last["verdict"]:
        since -= 1
    return (f"{last['verdict']} from {points[since]['train_games']} training games on (verdict the same at the last "
            f"two points, {width})")


def worst_seat(seat_rows: pl.DataFrame) -> dict:
    """The seat row where the win rate falls furthest below (or rises least above) its control's; ties by seat."""
    if seat_rows.is_empty():
        return {"worst_seat": None, "worst_seat_win_rate": None, "worst_seat_control_win_rate": None}
    row = seat_rows.with_columns((pl.col("win_rate") - pl.col("control_win_rate")).alias("gain")) \
        .sort("gain", "seat").row(0, named=True)
    return {"worst_seat": row["seat"], "worst_seat_win_rate": row["win_rate"],
            "worst_seat_control_win_rate": row["control_win_rate"]}


def _caveats(best: dict, counters_kept: float | None) -> str:
    notes = []
    detectable = best["min_detectable_difference"]
    if best["verdict"] == "no clear difference":
        if detectable is None or math.isnan(detectable):
            notes.append("the control wins every game in this seat mix: no gain can be detected")
        elif detectable > SMALL_EFFECT:
            notes.append(f"n = {best['n']} detects only win-rate differences of {detectable:.2f} or more")
    if counters_kept is not None and abs(counters_kept - best["win_rate"]) > SMALL_EFFECT:
        notes.append(f"keeping the turn-order counters gives a win rate of {counters_kept:.2f}")
    return "; ".join(notes)


def verdict_table(summary: pl.DataFrame, curve: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per game: the pair with the highest overall win rate (ties by the lower Wilson bound), its verdict after Holm
    over the selection pairs, its worst seat against the control, the counters-kept sensitivity row's win rate, and
    from its learning curve (learning_curve rows of every game, None without) whether the verdict is decided."""
    curve = pl.DataFrame(schema=LEARNING_CURVE) if curve is None else curve
    require_columns(curve, "learning_curve", ("game", "pair", *CURVE_COLUMNS))
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
        seats = summary.filter((pl.col("game") == game) & (pl.col("scope") != OVERALL)
                               & (pl.col("prototype_frequency") == best["prototype_frequency"])
                               & (pl.col("feature_variant") == best["feature_variant"]))
        of_pair = curve.filter((pl.col("game") == game) & (pl.col("pair") == _pair(best)))
        rows.append({"game": game, "paper_claim": PAPER_CLAIMS.get(game, "(not in the paper)"),
                     "best_pair": _pair(best),
                     "pairs_compared": len(candidates), "n": best["n"], "win_rate": best["win_rate"],
                     "win_rate_low": best["win_rate_low"], "win_rate_high": best["win_rate_high"],
                     "control_win_rate": best["control_win_rate"], "p_value_holm": best["p_value_holm"],
                     "verdict": best["verdict"], **worst_seat(seats), "counters_kept_win_rate": counters_kept,
                     "decided": decided(of_pair), "curve_note": curve_note(of_pair),
                     "caveat": _caveats(best, counters_kept)})
    return pl.DataFrame(rows, schema=VERDICTS)
