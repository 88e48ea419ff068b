"""The authors' published value functions playing in our engines: their JSON-Bag OSLA (TagJsonBagValue) in each
seat against baseline OSLAs, beside the control arm on the same seeds, summarised as [Verdicts] does.

As their agent, it sees determinized states only (TAG hands a player `copy(playerID)`): each game's bag starts
with its seat's sample of that game's initial state (OSLAAgent.begin_game), then adds each decision's sample;
in 7 Wonders it plays each child on to the end of the round (SimultaneousJsonBagOSLAAgent), as their agent does."""

from __future__ import annotations

import polars as pl

from engines import load_game
from jbag_pipeline.play.evaluation import Arm, evaluate_against_control
from jbag_pipeline.compute import Compute
from jbag_pipeline.model.published import (PublishedValueFunction, check_seats, tag_dialect_problem,
                                           unknown_fields, unreachable_features)
from jbag_pipeline.model.value import TagJsonBagValue
from jbag_pipeline.schemas import PUBLISHED_VF_EVALUATION, conform

SKIPPED = "skipped"  # the scope of a game's one row when it is not played
PUBLISHED_VARIANT = "published"  # feature_variant of the evaluation games: the authors' top-500 list


def published_value(value: PublishedValueFunction, game_name: str, params: dict) -> TagJsonBagValue:
    """The authors' value for our engine's `game_name`: their prototypes and features; each game's bag starts
    with the agent's sample of that game's initial state (OSLAAgent.begin_game)."""
    check_seats(value, load_game(game_name, **params).n_players)
    return TagJsonBagValue(value.prototypes, value.features)


def skipped_notes(table: pl.DataFrame) -> str:
    """'- game: why' per skipped game of an evaluation table, one per line (empty when none was skipped)."""
    skipped = table.filter(pl.col("scope") == SKIPPED)
    return "\n".join(f"- {game}: {note}" for game, note in skipped.select("game", "note").iter_rows())


def skipped_row(game: str, reason: str, unreachable: int | None = None) -> pl.DataFrame:
    """The one row of a game that is not played, with the reason."""
    return pl.DataFrame([{"game": game, "scope": SKIPPED, "games": 0, "unreachable_features": unreachable,
                          "verdict": "not evaluated", "note": reason}], schema=PUBLISHED_VF_EVALUATION)


def unreachable_note(game: str, value: PublishedValueFunction) -> tuple[int, str]:
    """(count, note) of the published features under fields our TAG documents cannot know."""
    unreachable = unreachable_features(game, value.features)
    if not unreachable:
        return 0, ""
    fields = ", ".join(unknown_fields(game))
    return len(unreachable), (f"{len(unreachable)} of {len(value.features)} published features lie under fields our "
                              f"TAG documents cannot know ({fields}) and never match")


def evaluate_published(game: str, value: PublishedValueFunction, params: dict, games_per_seat: int, base_seed: int,
                       compute: Compute | None = None) -> pl.DataFrame:
    """PUBLISHED_VF_EVALUATION rows of `game`: per seat and overall (win rate with its Wilson interval, the
    control's, Fisher per seat, stratified exact test overall, Holm, verdict); one skipped row if it cannot play."""
    problem = tag_dialect_problem(game)
    if problem is not None:
        return skipped_row(game, problem)
    count, note = unreachable_note(game, value)
    if games_per_seat < 1:
        return skipped_row(game, f"games_per_seat is {games_per_seat}", count)
    arm = Arm("full", PUBLISHED_VARIANT, lambda: published_value(value, game, params))
    summary = evaluate_against_control(game, params, [arm], games_per_seat, base_seed, compute).summary
    return conform(summary.rename({"n": "games"}).with_columns(
        pl.lit(count, dtype=pl.Int32).alias("unreachable_features"), pl.lit(note).alias("note")),
        PUBLISHED_VF_EVALUATION, "published_vf_evaluation")
