"""Transfer of JSON-Bag value functions between game variants: mapped prototypes and features, and the experiment.

A target token takes the prototype mass of the source token it maps to (transfer_mapping.map_tokens);
unmatched target tokens get none. When several target tokens map to one source token, each gets a full
copy of its mass, as the policy-value transfer paper copies one source channel into every equivalent
target channel: splitting would make a source token's many target equivalents look rare each. Prototypes
are then renormalised per (frequency, seat).

Fine-tuning mixes shares, not counts: with N target games the transferred prototype weighs M / (M + N) and
the N-game target prototype the rest, so the source counts as M games (by default as many as it came from).

Every method is compared with a control played in the same run: the baseline in every seat with the same game
seeds, so each method's win rate stands against the control's
(jbag_pipeline.analysis.statistics, Holm across the methods of a source -> target pair).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from engines import load_game
from jbag_pipeline.transforms.bags_table import trajectory_bags_table
from jbag_pipeline.play.evaluation import Arm, evaluate_against_control
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.analysis.leakage import DEFAULT_TOKEN_BLACKLIST
from jbag_pipeline.presets import GameRun, TransferSettings
from jbag_pipeline.transforms.sampling import sampled_states
from jbag_pipeline.play.selfplay import play_selfplay, selfplay_seeds
from jbag_pipeline.transforms.state_tokens import tokenize_states
from jbag_pipeline.compute import Compute
from jbag_pipeline.analysis.statistics import OVERALL, outcome_statistics
from jbag_pipeline.model.tables import require_columns
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.schemas import TRANSFER_RESULTS as TRANSFER_RESULTS_SCHEMA
from jbag_pipeline.training.value_function import TrainingSettings, train_value_function, winner_prototypes
from jbag_pipeline.transfer.mapping import map_tokens, random_mapping

__all__ = ["CONTROL_METHOD", "DEFAULT_PAIRS", "TRANSFER_RESULTS_SCHEMA", "PreparedTransfer", "TrainedModel",
           "TransferSettings", "map_tokens", "mix_prototypes", "model_from_tables", "prepare_transfer",
           "random_mapping", "selfplay_tables", "source_weight", "transfer_experiment", "transfer_features",
           "transfer_prototypes", "variant_label"]

DEFAULT_PAIRS = [
    {"game": "connect4", "source_params": {"rows": 6, "cols": 7}, "target_params": {"rows": 8, "cols": 8}},
    {"game": "connect4", "source_params": {"rows": 8, "cols": 8}, "target_params": {"rows": 6, "cols": 7}},
    {"game": "dots_and_boxes", "source_params": {"rows": 3, "cols": 3}, "target_params": {"rows": 5, "cols": 7}},
    {"game": "dots_and_boxes", "source_params": {"rows": 5, "cols": 7}, "target_params": {"rows": 3, "cols": 3}},
]
CONTROL_METHOD = "control"  # the baseline in every seat, as a row of its own beside the methods
_SUMMARY_TO_RESULTS = {"n": "games", "mean": "mean_score"}
_VALUE_COLUMNS = ("token", "count", "p")


def _mapping_pairs(mapping: pl.DataFrame, where: str) -> pl.DataFrame:
    """(target_token, source_token) of the matched rows; a target token listed twice raises."""
    require_columns(mapping, f"{where}: mapping", ("target_token", "source_token"))
    if mapping["target_token"].is_duplicated().any():
        raise ValueError(f"{where}: mapping lists target token "
                         f"{mapping.filter(pl.col('target_token').is_duplicated())['target_token'][0]!r} twice")
    return mapping.select("target_token", "source_token").drop_nulls("source_token")


def transfer_prototypes(source_prototypes: pl.DataFrame, mapping: pl.DataFrame, *,
                        game: str | None = None) -> pl.DataFrame:
    """winner_prototypes over the target vocabulary: each mapped target token copies its source token's mass.

    Groups are every column but token/count/p (e.g. game, frequency, seat); `count` (the mass, if present,
    else p) is copied, p renormalised per group. `game` relabels the game column for the target.
    """
    require_columns(source_prototypes, "transfer_prototypes: source prototypes", ("seat", "token", "p"))
    pairs = _mapping_pairs(mapping, "transfer_prototypes")
    groups = [c for c in source_prototypes.columns if c not in _VALUE_COLUMNS]
    mass = "count" if "count" in source_prototypes.columns else "p"
    moved = (source_prototypes.select(*groups, "token", mass)
             .join(pairs, left_on="token", right_on="source_token", how="inner")
             .select(*groups, pl.col("target_token").alias("token"), mass))
    if mass == "p":
        moved = moved.with_columns(pl.col("p").alias("count"))
    moved = moved.filter(pl.col("count") > 0).with_columns(
        (pl.col("count") / pl.col("count").sum().over(groups)).cast(pl.Float64).alias("p"))
    if game is not None and "game" in groups:
        moved = moved.with_columns(pl.lit(game, dtype=pl.String).alias("game"))
    return moved.select(*groups, "token", "count", "p").sort(*groups, "token")


def transfer_features(source_features: pl.DataFrame, mapping: pl.DataFrame, *,
                      game: str | None = None) -> pl.DataFrame:
    """selected_features over the target vocabulary: a target token is selected when its source token is.

    It inherits the source row (importance, segment); ranks are renumbered per variant by (source rank,
    target token), so copies of one source token sit together.
    """
    require_columns(source_features, "transfer_features: source features", ("variant", "token", "rank"))
    pairs = _mapping_pairs(mapping, "transfer_features")
    columns = source_features.columns
    moved = (source_features.join(pairs, left_on="token", right_on="source_token", how="inner")
             .with_columns(pl.col("target_token").alias("token"))
             .sort("variant", "rank", "token")
             .with_columns(pl.int_range(1, pl.len() + 1).over("variant").cast(pl.Int32).alias("rank")))
    if game is not None and "game" in columns:
        moved = moved.with_columns(pl.lit(game, dtype=pl.String).alias("game"))
    return moved.select(columns).cast(dict(source_features.schema))


def source_weight(source_games: float, n_target_games: int) -> float:
    """The source prototypes' share when they count as `source_games` games beside n target games: M / (M + N)."""
    if source_games < 0 or n_target_games < 0 or source_games + n_target_games == 0:
        raise ValueError(f"source_weight: need source_games >= 0 and n_target_games >= 0, not both 0; "
                         f"got {source_games} and {n_target_games}")
    return source_games / (source_games + n_target_games)


def _shares(prototypes: pl.DataFrame, keys: list[str], name: str) -> pl.DataFrame:
    require_columns(prototypes, f"mix_prototypes: {name}", (*keys, "token", "p"))
    if prototypes.select((pl.col("p") < 0).any()).item():
        raise ValueError(f"mix_prototypes: {name} has negative p")
    rows = prototypes.group_by(*keys, "token").agg(pl.col("p").sum())
    return rows.with_columns(pl.col("p") / pl.col("p").sum().over(keys)).filter(pl.col("p") > 0)


def mix_prototypes(transferred: pl.DataFrame, target: pl.DataFrame, weight: float) -> pl.DataFrame:
    """Per (frequency, seat): weight * transferred shares + (1 - weight) * target shares, renormalised.

    `weight` is the source's share (source_weight(M, N) counts the source as M games beside N target
    games). A group only one side has keeps that side alone (a seat that never won in N target games
    keeps the transferred prototype). count = p, so the result is a winner_prototypes table.
    """
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 1:
        raise ValueError(f"mix_prototypes: weight must be a number in [0, 1], got {weight!r}")
    if ("frequency" in transferred.columns) != ("frequency" in target.columns):
        raise ValueError("mix_prototypes: only one of the prototype tables has a frequency column")
    keys = [c for c in ("frequency", "seat") if c in transferred.columns and c in target.columns]
    if "seat" not in keys:
        raise ValueError("mix_prototypes: both prototype tables need a seat column")
    source_shares = _shares(transferred, keys, "transferred prototypes")
    target_shares = _shares(target, keys, "target prototypes")
    source_groups = source_shares.select(keys).unique().with_columns(pl.lit(True).alias("in_source"))
    target_groups = target_shares.select(keys).unique().with_columns(pl.lit(True).alias("in_target"))
    both = (source_shares.rename({"p": "p_source"})
            .join(target_shares.rename({"p": "p_target"}), on=[*keys, "token"], how="full", coalesce=True)
            .join(source_groups, on=keys, how="left").join(target_groups, on=keys, how="left")
            .with_columns(pl.col("p_source", "p_target").fill_null(0.0),
                          pl.col("in_source", "in_target").fill_null(False)))
    source_share = pl.when(pl.col("in_target")).then(pl.lit(float(weight))).otherwise(1.0)
    target_share = pl.when(pl.col("in_source")).then(pl.lit(1.0 - weight)).otherwise(1.0)
    mixed = (both.with_columns((source_share * pl.col("p_source") + target_share * pl.col("p_target")).alias("p"))
             .filter(pl.col("p") > 0)
             .with_columns(pl.col("p") / pl.col("p").sum().over(keys)))
    game = target["game"][0] if "game" in target.columns and len(target) else None
    if game is None and "game" in transferred.columns and len(transferred):
        game = transferred["game"][0]
    columns = ([pl.lit(game, dtype=pl.String).alias("game")] if game is not None else []) + \
        [*keys, "token", pl.col("p").alias("count"), "p"]
    return mixed.select(columns).sort(*keys, "token")


@dataclass(frozen=True)
class TrainedModel:
    """What one variant's self-play tables give: winner prototypes, selected features (or None), vocabulary."""

    prototypes: pl.DataFrame
    features: pl.DataFrame | None
    vocabulary: list[str]
    n_games: int


def model_from_tables(games: pl.DataFrame, states: pl.DataFrame, *, run_seed: int = 0,
                      blacklist: tuple[str, ...] = DEFAULT_TOKEN_BLACKLIST, with_features: bool = True,
                      top_k: int = 100, rf_trees: int = 100) -> TrainedModel:
    """Prototypes (and RF-selected features) from self-play (games, states) tables: train_value_function, the
    forest ranking the trajectory bags themselves.

    Features come from whole trajectories (no segments), so the variants are full, interval, random, none
    and adaptive. The vocabulary is every token of the bags (outcome tokens filtered), from all frequencies.
    """
    require_columns(games, "model_from_tables: games", ("game", "game_id", "winner", "n_players"))
    require_columns(states, "model_from_tables: states", ("game", "game_id", "state_idx", "is_terminal", "doc"))
    if games.is_empty():
        raise ValueError("model_from_tables: games is empty")
    sampled = sampled_states(states, games, run_seed)
    bags, _ = trajectory_bags_table(tokenize_states(states), sampled, blacklist)
    winners = games.select("game", "game_id", "winner")
    if with_features:
        settings = TrainingSettings(k=top_k, n_estimators=rf_trees, seed=run_seed)
        prototypes, features = train_value_function(bags, bags, winners, settings)
    else:
        prototypes, features = winner_prototypes(bags, winners), None
    return TrainedModel(prototypes, features, bags["token"].unique().sort().to_list(), len(games))


def variant_label(game: str, params: dict) -> str:
    """'connect4(cols=7,rows=6)': a game with its parameters, sorted by name."""
    return f"{game}(" + ",".join(f"{k}={params[k]}" for k in sorted(params)) + ")"


def selfplay_tables(game: str, params: dict, n_games: int, block: int, settings: TransferSettings,
                    compute: Compute | None = None) -> tuple:
    """(games, states) of n MCTS self-play games of one variant at the settings' budget, seeds from `block`,
    played on `compute` (None: inline)."""
    run = GameRun(params=dict(params), mcts_iterations=settings.mcts_iterations,
                  rollout_length=settings.rollout_length)
    return play_selfplay(game, run, selfplay_seeds(settings.seed, block, n_games), compute)


def _first_games(tables: tuple[pl.DataFrame, pl.DataFrame], n: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    games, states = tables
    ids = games["game_id"].sort().head(n)
    return games.filter(pl.col("game_id").is_in(ids.implode())), states.filter(pl.col("game_id").is_in(ids.implode()))


def _control_row(control: pl.DataFrame) -> dict:
    """The control's own row of transfer_results: its counts, mean score and win rate with their intervals."""
    outcomes = outcome_statistics(*(int(control[c].sum()) for c in ("wins", "draws", "losses")))
    return {"method": CONTROL_METHOD, "n_target_games": 0,
            **{_SUMMARY_TO_RESULTS.get(k, k): v for k, v in outcomes.items()}}


@dataclass(frozen=True)
class PreparedTransfer:
    """The trained source and target models of one variant pair and the source -> target token mapping."""

    source_model: TrainedModel
    target_model: TrainedModel
    mapping: pl.DataFrame


def prepare_transfer(source_tables: tuple[pl.DataFrame, pl.DataFrame],
                     target_tables: tuple[pl.DataFrame, pl.DataFrame], settings: TransferSettings) -> PreparedTransfer:
    """Train both variants' models from their (games, states) tables and map the source tokens onto the target's."""
    train = dict(run_seed=settings.seed, blacklist=settings.blacklist, top_k=settings.top_k, rf_trees=settings.rf_trees)
    source_model = model_from_tables(*source_tables, **train)
    target_model = model_from_tables(*target_tables, **train)
    mapping = map_tokens(source_model.vocabulary, target_model.vocabulary, max_distance=settings.max_distance)
    return PreparedTransfer(source_model, target_model, mapping)


def transfer_experiment(source: tuple[str, dict], target: tuple[str, dict], *,
                        settings: TransferSettings = TransferSettings(),
                        source_tables: tuple[pl.DataFrame, pl.DataFrame] | None = None,
                        target_tables: tuple[pl.DataFrame, pl.DataFrame] | None = None,
                        prepared: PreparedTransfer | None = None, compute: Compute | None = None) -> pl.DataFrame:
    """transfer_results rows: each method's JSON-Bag OSLA against baseline OSLAs on the target, in every seat,
    against the control (baseline OSLA in every seat, the same seeds), and the control's own row.

    Methods: transferred (zero-shot: source prototypes and features mapped onto the target vocabulary),
    random_mapping (the same with a seeded random mapping), target_trained (self-play on the target), and
    finetuned_N (transferred prototypes mixed with N target games, features transferred). Tables are
    (games, states) as play_selfplay returns them; missing ones are played by MCTS self-play. The target
    vocabulary comes from the target's recorded states, never their outcomes. Every method plays the same
    evaluation seeds. Per method: counts, mean score with a bounded interval, win rate with its Wilson interval,
    the control's win rate, p_value_vs_control (stratified by seat), p_value_holm (across the methods) and verdict.
    Every batch of games runs on `compute` (None: inline).
    """
    (source_game, source_params), (target_game, target_params) = source, target
    if source_tables is None:
        source_tables = selfplay_tables(source_game, source_params, settings.source_games, 0, settings, compute)
    if target_tables is None:
        n_target = max([settings.target_games, *settings.finetune_games])
        target_tables = selfplay_tables(target_game, target_params, n_target, 1, settings, compute)
    available = target_tables[0].height
    if max(settings.finetune_games, default=0) > available:
        raise ValueError(f"transfer_experiment: finetune_games {settings.finetune_games} needs more target games "
                         f"than the {available} given")
    prepared = prepared or prepare_transfer(source_tables, target_tables, settings)
    source_model, target_model, mapping = prepared.source_model, prepared.target_model, prepared.mapping
    train = dict(run_seed=settings.seed, blacklist=settings.blacklist, top_k=settings.top_k, rf_trees=settings.rf_trees)
    control = random_mapping(source_model.vocabulary, target_model.vocabulary, settings.seed)
    transferred = transfer_prototypes(source_model.prototypes, mapping, game=target_game)
    transferred_features = transfer_features(source_model.features, mapping, game=target_game)
    methods = [
        ("transferred", 0, transferred, transferred_features),
        ("random_mapping", 0, transfer_prototypes(source_model.prototypes, control, game=target_game),
         transfer_features(source_model.features, control, game=target_game)),
        ("target_trained", target_model.n_games, target_model.prototypes, target_model.features),
    ]
    weight_games = settings.source_weight_games if settings.source_weight_games is not None else source_model.n_games
    for n in sorted(set(settings.finetune_games)):
        mixed = transferred
        if n > 0:
            few = model_from_tables(*_first_games(target_tables, n), **train, with_features=False)
            mixed = mix_prototypes(transferred, few.prototypes, source_weight(weight_games, n))
        methods.append((f"finetuned_{n}", n, mixed, transferred_features))
    n_players = load_game(target_game, **target_params).n_players
    arms, target_games_of = [], {}
    for method, n_games, prototypes, features in methods:
        def value_factory(prototypes=prototypes, features=features):
            return make_jsonbag_value(prototypes, features, settings.frequency, settings.variant, n_players, token_filter=TokenFilter(settings.blacklist))
        arms.append(Arm(settings.frequency, settings.variant, value_factory, {"method": method}))
        target_games_of[method] = n_games
    evaluated = evaluate_against_control(target_game, target_params, arms, settings.games_per_seat, settings.seed,
                                         compute, keys=("game", "method"))
    control, summary = evaluated.control, evaluated.summary.filter(pl.col("scope") == OVERALL)
    labels = {"source": variant_label(source_game, source_params), "target": variant_label(target_game, target_params)}
    rows = [{**labels, **row, "n_target_games": target_games_of[row["method"]]}
            for row in summary.rename(_SUMMARY_TO_RESULTS).iter_rows(named=True)]
    rows.append({**labels, **_control_row(control)})
    order = {method: index for index, (method, *_) in enumerate(methods)}
    results = pl.DataFrame([{c: row.get(c) for c in TRANSFER_RESULTS_SCHEMA} for row in rows],
                           schema=TRANSFER_RESULTS_SCHEMA)
    return results.sort(pl.col("method").replace_strict(order, default=len(order)))
