"""The JSON-Bag value of one (frequency, variant) from a game's winner_prototypes and selected_features rows."""

from __future__ import annotations

import polars as pl

from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.model.value import DeterminizedJsonBagValue, with_outside_mass
from jbag_pipeline.model.variants import FEATURE_VARIANTS, NO_SELECTION

# how prototypes are normalised: over the selected features (ours), or over all their tokens (the authors' agent)
NORMALISATIONS = ("features", "all_tokens")


def _one_game(frame: pl.DataFrame, name: str) -> str | None:
    """The one game a table holds (None if it has no game column or no rows)."""
    if "game" not in frame.columns:
        return None
    games = frame["game"].unique().to_list()
    if len(games) > 1:
        raise ValueError(f"make_jsonbag_value: {name} must hold one game, got {sorted(games)}")
    return games[0] if games else None


def prototype_bags(prototypes: pl.DataFrame, frequency: str, n_players: int) -> list[dict[str, float]]:
    """Per seat 0..n_players-1, the token counts of its winner prototype at `frequency` (empty if it never won)."""
    require_columns(prototypes, "winner_prototypes", ("frequency", "seat", "token", "count"))
    rows = prototypes.filter(pl.col("frequency") == frequency)
    if rows.is_empty():
        raise ValueError(f"winner_prototypes has no rows for frequency {frequency!r}")
    bags: list[dict[str, float]] = [{} for _ in range(n_players)]
    for seat, token, count in rows.select("seat", "token", "count").iter_rows():
        if not 0 <= seat < n_players:
            raise ValueError(f"winner_prototypes: seat {seat} outside 0..{n_players - 1} (frequency {frequency!r})")
        bags[seat][token] = bags[seat].get(token, 0) + count
    return bags


def selected_tokens(features: pl.DataFrame, variant: str) -> list[str] | None:
    """The variant's tokens by rank (None for `none`: every token); a variant may keep no token at all."""
    if variant not in FEATURE_VARIANTS:
        raise ValueError(f"unknown feature variant {variant!r}; expected one of {list(FEATURE_VARIANTS)}")
    if variant == NO_SELECTION:
        return None
    require_columns(features, "selected_features", ("variant", "token", "rank"))
    rows = features.filter(pl.col("variant") == variant).sort("rank", "token")
    return rows["token"].to_list()


def make_jsonbag_value(prototypes: pl.DataFrame, features: pl.DataFrame, frequency: str, variant: str,
                       n_players: int, token_filter: TokenFilter | None = None,
                       normalisation: str = "features") -> DeterminizedJsonBagValue:
    """The JSON-Bag value for one game's winner_prototypes at `frequency` and its selected_features `variant`.

    normalisation `features` restricts prototypes and trajectory to the features and renormalises both;
    `all_tokens` normalises each prototype over all its (filtered) tokens, as TagJsonBagValue does (value.
    with_outside_mass). Without feature selection (variant none) the two are the same value.
    """
    if n_players < 2:
        raise ValueError(f"make_jsonbag_value: n_players must be >= 2, got {n_players}")
    if normalisation not in NORMALISATIONS:
        raise ValueError(f"make_jsonbag_value: normalisation must be one of {list(NORMALISATIONS)}, "
                         f"got {normalisation!r}")
    games = {_one_game(prototypes, "winner_prototypes"), _one_game(features, "selected_features")} - {None}
    if len(games) > 1:
        raise ValueError(f"make_jsonbag_value: winner_prototypes and selected_features are of different games "
                         f"{sorted(games)}")
    bags, tokens = prototype_bags(prototypes, frequency, n_players), selected_tokens(features, variant)
    if normalisation == "all_tokens" and tokens is not None:
        keep = TokenFilter() if token_filter is None else token_filter  # the outside mass counts kept tokens only
        bags, tokens = with_outside_mass([keep.apply(bag).kept for bag in bags], [t for t in tokens if keep.keeps(t)])
    return DeterminizedJsonBagValue(bags, tokens, frequency=frequency, token_filter=token_filter)
