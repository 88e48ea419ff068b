"""TAG logs as training data: the winner prototypes of ingested TAG trajectories played by a JSON-Bag OSLA in our
engine of the same game (IngestedTagValue over TAG-dialect states) against baseline OSLAs, beside the control arm
on the same seeds, summarised as [Verdicts] does (the machinery of the published value functions' evaluation)."""

from __future__ import annotations

import polars as pl

from engines import load_game
from engines.registry import GAMES, game_info
from jbag_pipeline.play.evaluation import Arm, evaluate_against_control
from jbag_pipeline.compute import Compute
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.model.value import IngestedTagValue
from jbag_pipeline.model.value_tables import prototype_bags
from jbag_pipeline.schemas import INGESTED_VF_EVALUATION, conform

SKIPPED = "skipped"  # the scope of an ingested game's one row when it is not played
INGESTED_FREQUENCY = "full"  # the prototypes of every state of the won games, as the authors' prototypes are built
INGESTED_VARIANT = "ingested"  # feature_variant of the evaluation games: no selection, every ingested token


def tag_engines() -> dict[str, str]:
    """Lower-cased TAG gameType (as ingest names a game) -> our engine that speaks TAG's dialect for it."""
    return {game_info(name).tag_game_type.lower(): name for name in sorted(GAMES) if game_info(name).tag is not None}


def engine_for(ingested_game: str) -> str | None:
    """Our engine of an ingested game: named by TAG's gameType (`dotsandboxes`) or by our name; None if none."""
    engines = tag_engines()
    return ingested_game if ingested_game in engines.values() else engines.get(ingested_game.lower())


def skipped_row(game: str, engine: str | None, reason: str, ingested_games: int) -> pl.DataFrame:
    """The one row of an ingested game that is not played, with the reason."""
    return pl.DataFrame([{"game": game, "engine": engine, "prototype_frequency": INGESTED_FREQUENCY,
                          "scope": SKIPPED, "games": 0, "ingested_games": ingested_games, "verdict": "not evaluated",
                          "note": reason}], schema=INGESTED_VF_EVALUATION)


def unplayable_reason(game: str, engine: str | None, n_players: int | None, games: pl.DataFrame,
                      prototypes: pl.DataFrame) -> str | None:
    """Why the ingested `game` cannot be played against our engine (None if it can): no engine of ours, other
    player counts, no prototypes yet, or a seat that won none of the ingested games (no winner prototype)."""
    if engine is None:
        known = ", ".join(f"{tag} -> {ours}" for tag, ours in sorted(tag_engines().items()))
        return f"no engine of ours plays the TAG game {game!r} (ours: {known})"
    counts = sorted(set(games["n_players"].to_list()))
    if counts != [n_players]:
        return f"its ingested games have {counts} players, our {engine} engine plays {n_players}"
    if prototypes.filter(pl.col("frequency") == INGESTED_FREQUENCY).is_empty():
        return "ingested_prototypes has no rows for it (materialise the ingested model first)"
    won = set(games["winner"].drop_nulls().to_list())
    never = [seat for seat in range(n_players) if seat not in won]
    if never:
        seats = ", ".join(str(seat) for seat in never)
        one = len(never) == 1
        return (f"{'seat' if one else 'seats'} {seats} won none of its {len(games)} ingested games: no winner "
                f"prototype to value {'its' if one else 'their'} positions by")
    return None


def ingested_value(prototypes: pl.DataFrame, n_players: int, mode: str,
                   blacklist: tuple[str, ...]) -> IngestedTagValue:
    """The value of one ingested game's `full` winner prototypes, tokenized in its ingest `mode`, `blacklist`
    filtered as its bags were."""
    return IngestedTagValue(prototype_bags(prototypes, INGESTED_FREQUENCY, n_players), mode, TokenFilter(blacklist))


def evaluate_ingested(game: str, engine: str | None, prototypes: pl.DataFrame, games: pl.DataFrame, mode: str,
                      blacklist: tuple[str, ...], params: dict, games_per_seat: int, base_seed: int,
                      compute: Compute | None = None) -> pl.DataFrame:
    """INGESTED_VF_EVALUATION rows of ingested `game` (its ingested_prototypes and ingested_games rows) in our
    `engine` (engine_for(game)) with `params`: per seat and overall (win rate with its Wilson interval, the
    control's, Fisher per seat, stratified exact test overall, Holm, verdict); one skipped row with the reason if
    it cannot be played."""
    n_players = load_game(engine, **params).n_players if engine is not None else None
    reason = unplayable_reason(game, engine, n_players, games, prototypes)
    if reason is None and games_per_seat < 1:
        reason = f"games_per_seat is {games_per_seat}"
    if reason is not None:
        return skipped_row(game, engine, reason, len(games))
    arm = Arm(INGESTED_FREQUENCY, INGESTED_VARIANT, lambda: ingested_value(prototypes, n_players, mode, blacklist))
    summary = evaluate_against_control(engine, params, [arm], games_per_seat, base_seed, compute).summary
    return conform(summary.rename({"n": "games", "game": "engine"}).with_columns(
        pl.lit(game).alias("game"), pl.lit(INGESTED_FREQUENCY).alias("prototype_frequency"),
        pl.lit(len(games)).alias("ingested_games"), pl.lit("").alias("note")),
        INGESTED_VF_EVALUATION, "ingested_vf_evaluation")


def unplayed_seats(table: pl.DataFrame, expected: dict[str, tuple[int, int]]) -> list[str]:
    """The played games of INGESTED_VF_EVALUATION rows whose seat rows are not seats 0..n-1 with g games each,
    (n, g) = expected[game]."""
    short = []
    for (game,), rows in table.filter(pl.col("scope") != SKIPPED).partition_by("game", as_dict=True).items():
        n_players, games_per_seat = expected[game]
        seat_rows = rows.filter(pl.col("scope") != "overall").sort("seat")
        if seat_rows["seat"].to_list() != list(range(n_players)) or set(seat_rows["games"]) != {games_per_seat}:
            short.append(game)
    return sorted(short)
