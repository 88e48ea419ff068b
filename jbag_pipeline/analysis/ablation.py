"""The value function's choices measured: the headline pair's value function with one choice changed at a time.

Factors, each with the level the preset uses (the default, whose games are evaluation_games' headline rows) and
one other:
- `top_k`: the preset's k vs its ablation_top_k, the `full` features at that k of the same ranking.
- `normalisation`: `features` (ours: prototypes and trajectory restricted to the selected features, both
  renormalised) vs `all_tokens` (the authors' agent: each prototype normalised over all its tokens,
  value_tables.make_jsonbag_value's option).
- `turn_order:<field>`: that turn-order field `dropped` vs `kept`, every other field as the default blacklist has
  it; prototypes, features and the agent's token filter are all built with that blacklist.
Each level is evaluated against the control on the evaluation seeds; ablation_table compares it with the control
(Holm across a game's non-default rows) and with its factor's default level on the same seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from engines import GAMES, game_info
from jbag_pipeline.analysis.leakage import TAG_TURN_ORDER_FIELDS
from jbag_pipeline.analysis.statistics import OVERALL, holm, stratified_exact_p, summarise, verdict
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.transforms.bags_table import trajectory_bags_table
from jbag_pipeline.schemas import VALUE_FUNCTION_ABLATION, conform
from jbag_pipeline.training.value_function import TrainingSettings, ValueFunctionTables, train_value_function

FACTORS = ("top_k", "normalisation", "turn_order")  # what a preset's ablation_factors may name
TURN_ORDER = "turn_order"  # factor `turn_order:<field>` per field; `turn_order` alone names every field
DROPPED, KEPT = "dropped", "kept"
KEYS = ("game", "factor", "level")


@dataclass(frozen=True)
class Level:
    """One level of one factor: the blacklist, k and normalisation its value function is built with."""

    factor: str
    level: str
    is_default: bool
    blacklist: tuple[str, ...]
    k: int
    normalisation: str = "features"


def check_factors(factors: tuple[str, ...] | None, where: str) -> None:
    """Refuse a factor name that is neither one of FACTORS nor `turn_order:<field>`."""
    if isinstance(factors, str):
        raise ValueError(f"{where}: ablation_factors must be a tuple of factor names, got the string {factors!r}")
    for factor in factors or ():
        name, colon, field = factor.partition(":") if isinstance(factor, str) else (None, "", "")
        if name not in FACTORS or (colon and (name != TURN_ORDER or not field)):
            raise ValueError(f"{where}: ablation factor {factor!r} is not one of {list(FACTORS)} or "
                             f"'{TURN_ORDER}:<field>'")


def turn_order_fields(preset, game: str) -> list[str]:
    """The turn-order fields of `game` the ablation varies: its GameInfo's (TAG's common fields for a game without an
    engine) and whatever the preset drops besides."""
    listed = game_info(game).turn_order_fields if game in GAMES else TAG_TURN_ORDER_FIELDS
    return list(dict.fromkeys((*listed, *preset.turn_order_fields.get(game, ()))))


def _wanted(factor: str, factors: tuple[str, ...] | None) -> bool:
    return factors is None or factor in factors or (factor.startswith(TURN_ORDER + ":") and TURN_ORDER in factors)


def ablation_levels(preset, game: str) -> list[Level]:
    """Every level the preset's ablation_factors ask for on `game`, each factor's default level first."""
    check_factors(preset.ablation_factors, f"preset {preset.name!r}")
    blacklist, k = preset.blacklist_for(game), preset.top_k
    levels = []
    if _wanted("top_k", preset.ablation_factors):
        levels.append(Level("top_k", str(k), True, blacklist, k))
        if preset.ablation_top_k != k:
            levels.append(Level("top_k", str(preset.ablation_top_k), False, blacklist, preset.ablation_top_k))
    if _wanted("normalisation", preset.ablation_factors):
        levels += [Level("normalisation", "features", True, blacklist, k),
                   Level("normalisation", "all_tokens", False, blacklist, k, "all_tokens")]
    for field in turn_order_fields(preset, game):
        factor = f"{TURN_ORDER}:{field}"
        if not _wanted(factor, preset.ablation_factors):
            continue
        dropped = field in blacklist
        other = tuple(f for f in blacklist if f != field) if dropped else (*blacklist, field)
        levels += [Level(factor, DROPPED if dropped else KEPT, True, blacklist, k),
                   Level(factor, KEPT if dropped else DROPPED, False, other, k)]
    return levels


def full_tables(state_tokens: pl.DataFrame | pl.LazyFrame, sampled_states: pl.DataFrame, games: pl.DataFrame, *,
                blacklist: tuple[str, ...], k: int, n_estimators: int, seed: int,
                memory_limit: str = "4GB") -> ValueFunctionTables:
    """Winner prototypes at frequency full and the Random-Forest `full` features, with `blacklist` dropped.

    train_value_function with the forest ranking the full-frequency bags themselves: the whole trajectory is the
    last segmented dataset D_(N_S), the one the `full` variant ranks.
    """
    full = sampled_states.filter(pl.col("frequency") == "full")
    bags, _ = trajectory_bags_table(state_tokens, full, blacklist, memory_limit)
    settings = TrainingSettings(k=k, n_estimators=n_estimators, seed=seed, memory_limit=memory_limit)
    prototypes, features = train_value_function(bags, bags, games, settings)
    return ValueFunctionTables(prototypes.filter(pl.col("frequency") == "full"),
                               features.filter(pl.col("variant") == "full"))


def features_at_k(selected_features: pl.DataFrame, k: int) -> pl.DataFrame:
    """The `full` features at another k, read off selected_features' `none` rows: the ranking of every token by the
    very forest that ranks `full` (same bags D_(N_S), seed and trees), so none is fitted again; as top_k, at most k
    tokens and none the forest did not split on."""
    ranked = selected_features.filter(pl.col("variant") == "none").sort("rank")
    kept = min(k, int((ranked["importance"] > 0).sum()))
    return ranked.head(kept).with_columns(pl.lit("full").alias("variant"))


def ablation_table(games: pl.DataFrame, control: pl.DataFrame, pair: str) -> pl.DataFrame:
    """value_function_ablation rows from one row per evaluation game of every level (game, factor, level,
    is_default, n_features, seat, score) and evaluation_control, in the games' order of levels.

    Against the control: summarise's overall row (Wilson interval, stratified exact test), Holm across each game's
    non-default rows; a default row is a family of its own (the same comparison for every factor). Against the
    default level of the same factor: the exact test stratified by seat (p_value_vs_default, null on default rows).
    """
    require_columns(games, "ablation games", (*KEYS, "is_default", "n_features", "seat", "score"))
    if games.is_empty():
        return pl.DataFrame(schema=VALUE_FUNCTION_ABLATION)
    levels = games.select(*KEYS, "is_default", "n_features").unique(maintain_order=True).with_row_index("order")
    if len(levels) != levels.select(KEYS).n_unique():
        raise ValueError("ablation games: a level's is_default and n_features must be the same in all its games")
    defaults = levels.group_by("game", "factor").agg(pl.col("is_default").sum())
    if (defaults["is_default"] != 1).any():
        raise ValueError("ablation games: every factor needs exactly one default level")
    summary = summarise(games, control, keys=KEYS).filter(pl.col("scope") == OVERALL).drop("p_value_holm", "verdict")
    rows = summary.join(levels, on=list(KEYS)).sort("game", "order").to_dicts()  # the games' order of levels
    seats = _seat_counts(games)
    for game in {row["game"] for row in rows}:
        tested = [row for row in rows if row["game"] == game and not row["is_default"]]
        for row, adjusted in zip(tested, holm([row["p_value_vs_control"] for row in tested])):
            row["p_value_holm"] = float(adjusted)
    for row in rows:
        if row["is_default"]:
            row["p_value_holm"], row["p_value_vs_default"] = row["p_value_vs_control"], None
        else:
            default = next(r for r in rows
                           if r["is_default"] and (r["game"], r["factor"]) == (row["game"], row["factor"]))
            row["p_value_vs_default"] = stratified_exact_p(_strata(seats, row, default))
        row["verdict"] = verdict(row["p_value_holm"], row["win_rate"], row["control_win_rate"])
        row["pair"] = pair
    return conform(pl.DataFrame(rows, infer_schema_length=None), VALUE_FUNCTION_ABLATION, "value_function_ablation")


def _seat_counts(games: pl.DataFrame) -> dict[tuple, tuple[int, int]]:
    """(game, factor, level, seat) -> (wins, games)."""
    counts = games.group_by(*KEYS, "seat").agg((pl.col("score") == 1).sum().alias("wins"), pl.len().alias("n"))
    return {(g, f, lv, s): (int(w), int(n)) for g, f, lv, s, w, n in counts.iter_rows()}


def _strata(seats: dict[tuple, tuple[int, int]], row: dict, default: dict) -> list[tuple[int, int, int, int]]:
    """Per seat (wins, games) of the level and of its factor's default, for stratified_exact_p."""
    strata = []
    for (game, factor, level, seat), (wins, n) in sorted(seats.items()):
        if (game, factor, level) == (row["game"], row["factor"], row["level"]):
            default_wins, default_n = seats.get((game, factor, default["level"], seat), (0, 0))
            strata.append((wins, n, default_wins, default_n))
    return strata
