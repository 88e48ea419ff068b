"""JSON-Bag value functions on every tic-tac-toe board, measured against the exact values f_all (issue 8, part 4).

A board's bag is the tokens of its own state JSON only, no history: many move orders reach the same board,
so no single trajectory belongs to it. Its V is computed as the evaluation's JSON-Bag value does
(model.value_tables.make_jsonbag_value: outcome tokens filtered; a feature variant restricts board and
prototypes to its tokens; variant "none" is exact JSD over the full token union), vectorised over the
5,478 valid boards. The JSON-Bag policy is OSLA's rule: a winning child first (+inf), a losing one last
(-inf), every other child, drawn terminal boards included, by the mover's V; ties split evenly.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import polars as pl
import scipy.sparse as sp
from scipy import stats

from engines.tictactoe import TicTacToe
from jbag_pipeline.model.bags import Vocabulary, jsd_matrix
from jbag_pipeline.tictactoe.agents import greedy_policy, softmax_policy, uniform_policy
from jbag_pipeline.tictactoe.exact import N_BOARDS, board_index, board_space, exact_values
from jbag_pipeline.schemas import TICTACTOE_JSONBAG, conform
from jbag_pipeline.tictactoe.table import SETTINGS, agent_results
from jbag_pipeline.model.tokenize import TokenFilter, tokenize_state
from jbag_pipeline.model.value import JsonBagValue, seat_values
from jbag_pipeline.model.value_tables import make_jsonbag_value
from jbag_pipeline.model.variants import FEATURE_VARIANTS, FREQUENCIES, NO_SELECTION

GAME = "tictactoe"
CELL_VALUES = {".": 0, "x": 1, "o": 2}  # the engine's pieces as exact.py's cell values
CERTAIN = 2.0  # a won child's score from the winner's view: above every V_0 - V_1 in [-1, 1], as OSLA's +inf
TIE_TOLERANCE = 1e-12  # as agents.greedy_policy
STRATA = tuple(range(1, 9))  # mark counts of boards in play with more than two boards (0 marks: the empty board)
NO_FEATURES_SCHEMA = {"game": pl.String, "variant": pl.String, "token": pl.String, "rank": pl.Int32}


def document_board(doc: dict) -> int:
    """The board index (exact.py) of a tic-tac-toe state document: its rows read row-major, x = 1, o = 2."""
    try:
        cells = [CELL_VALUES[cell] for row in doc["board"] for cell in row]
    except (KeyError, TypeError):
        raise ValueError(f"document_board: expected a tictactoe document with a 'board' of 'x'/'o'/'.' cells, "
                         f"got {str(doc)[:80]}") from None
    return board_index(cells)


@functools.cache
def board_documents() -> dict[int, dict]:
    """The engine's to_json of every valid board, by index (cached: do not change them): the game tree expanded once
    per distinct position.

    Each board keeps the first move order that reached it; the JSON depends only on the board (moveCount,
    turnCounter and turnOwner follow from the mark count), so any order gives the same document.
    """
    root = TicTacToe().new_state()
    documents = {document_board(root.to_json()): root.to_json()}
    seen, frontier = {root.key()}, [root]
    while frontier:
        reached = []
        for state in frontier:
            for action in state.legal_actions():
                child = state.clone()
                child.apply(action)
                if child.key() not in seen:
                    seen.add(child.key())
                    doc = child.to_json()
                    documents[document_board(doc)] = doc
                    reached.append(child)
        frontier = reached
    return documents


@functools.cache
def _board_tokens() -> tuple[np.ndarray, Vocabulary, sp.csr_matrix]:
    """Valid board indices (ascending), the vocabulary of their tokens and the (boards x tokens) count matrix."""
    documents = board_documents()
    boards = np.array(sorted(documents), dtype=np.int64)
    bags = [tokenize_state(documents[board], mode="both", num_suffix=True) for board in boards.tolist()]
    vocabulary = Vocabulary.from_bags(bags)
    return boards, vocabulary, vocabulary.matrix(bags)


def board_seat_values(value: JsonBagValue) -> np.ndarray:
    """(3^9, seats): value.values_of each valid board's own state bag, for every seat; NaN on invalid boards."""
    boards, vocabulary, matrix = _board_tokens()
    feature_column = {token: column for column, token in enumerate(value.features)}
    rows, columns, outside = [], [], []
    for column, token in enumerate(vocabulary.tokens):
        if not value.token_filter.keeps(token):
            continue
        if token in feature_column:
            rows.append(column)
            columns.append(feature_column[token])
        elif not value.restricted:
            outside.append(column)  # no prototype holds it, but it is part of the bag's mass
    selector = sp.csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(vocabulary), len(value.features)))
    outside_mass = np.asarray(matrix[:, outside].sum(axis=1)).ravel()
    distances = jsd_matrix(matrix @ selector, value.prototypes, outside_mass)
    values = np.full((N_BOARDS, value.n_seats), np.nan)
    values[boards] = seat_values(distances)
    return values


def _value(prototypes_df: pl.DataFrame, features_df: pl.DataFrame | None, frequency: str, variant: str,
           token_filter: TokenFilter | None = None) -> JsonBagValue:
    """The evaluation's JSON-Bag value for tic-tac-toe at (frequency, variant) (token_filter: the agent's, as
    presets.token_filter_for gives it; None: the outcome fields only)."""
    features_df = pl.DataFrame(schema=NO_FEATURES_SCHEMA) if features_df is None else features_df
    for name, frame in (("winner_prototypes", prototypes_df), ("selected_features", features_df)):
        if "game" in frame.columns and not frame.filter(pl.col("game") != GAME).is_empty():
            raise ValueError(f"{name}: expected only game {GAME!r} rows, got {sorted(frame['game'].unique())}")
    return make_jsonbag_value(prototypes_df, features_df, frequency, variant, n_players=2,
                              token_filter=token_filter)


def _mover_sign() -> np.ndarray:
    """+1 on boards where the first player moves (even mark count), -1 where the second does."""
    return np.where(board_space().moves % 2 == 0, 1.0, -1.0)


def first_player_scores(seats: np.ndarray) -> np.ndarray:
    """Finite board scores from the first player's view whose greedy policy is OSLA on V.

    V_0 - V_1 on boards in play and drawn ones (OSLA values a draw by V); +2 / -2 where the first / second
    player has won (OSLA's +inf / -inf for the mover); 0 on invalid boards, which are never children.
    """
    boards = board_space()
    scores = np.where(boards.valid, seats[:, 0] - seats[:, 1], 0.0)
    scores[boards.terminal & (boards.winner == 1)] = CERTAIN
    scores[boards.terminal & (boards.winner == 2)] = -CERTAIN
    return scores


def best_children(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every board in play (ascending index): which cells lead to a best child by mover-signed `values`
    (ties within 1e-12 all count), and which cells are legal; both (4520, 9)."""
    boards = board_space()
    rows = np.flatnonzero(boards.valid & ~boards.terminal)
    children = boards.children[rows]
    legal = children >= 0
    child_values = np.where(legal, _mover_sign()[rows, None] * values[np.where(legal, children, 0)], -np.inf)
    return legal & (child_values >= child_values.max(axis=1, keepdims=True) - TIE_TOLERANCE), legal


def _correlations(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    """Pearson and Spearman r; None when x is constant (a value that sees no difference between boards)."""
    if np.ptp(x) == 0:
        return None, None
    return float(stats.pearsonr(x, y).statistic), float(stats.spearmanr(x, y).statistic)


def correlations_by_move_count(x: np.ndarray, y: np.ndarray, moves: np.ndarray) -> dict[int, tuple]:
    """Per mark count with more than two boards and varying y: (boards, Pearson r, Spearman r), r None where x
    is constant. Within one mark count the mover is fixed, so this does not depend on the view, and it leaves
    out what tokens like moveCount alone can tell apart: which mark count a board has."""
    strata = {}
    for n in np.unique(moves).tolist():
        group = moves == n
        if group.sum() > 2 and np.ptp(y[group]) > 0:
            strata[n] = (int(group.sum()), *_correlations(x[group], y[group]))
    return strata


def _weighted_mean(strata: dict[int, tuple], which: int) -> float | None:
    """Board-weighted mean of one correlation over the strata; a stratum where x is constant ranks nothing and
    counts as 0 (leaving it out would credit a value that only tells mark counts apart)."""
    weight = sum(boards for boards, *_ in strata.values())
    if not weight:
        return None
    return sum(boards * (r[which] or 0.0) for boards, *r in strata.values()) / weight


def spearman_within_move_count(strata: dict[int, tuple]) -> float | None:
    """Spearman r within each mark count, averaged weighted by boards (strata from correlations_by_move_count)."""
    return _weighted_mean(strata, 1)


def pearson_within_move_count(strata: dict[int, tuple]) -> float | None:
    """Pearson r within each mark count, averaged weighted by boards (strata from correlations_by_move_count)."""
    return _weighted_mean(strata, 0)


def best_move_metrics(value_best: np.ndarray, exact_best: np.ndarray, legal: np.ndarray) -> dict:
    """Best-move agreement of V with f_all from (boards, cells) masks of V's best moves, the exact best moves
    and the legal moves (ties within the tolerance are all best moves).

    Only contested boards count, where f_all separates the legal moves (not all are exact best): elsewhere
    every move is right. A contested board is undecided when V's best moves include an exact best move and
    one that is not (V ties moves that f_all separates, so the agent's coin flip decides); otherwise it agrees
    when all of V's best moves are exact best, else it disagrees. best_move_agreement = agreeing / decided
    boards (None when none is decided); undecided_share = undecided / contested boards;
    best_move_probability = the mean chance over contested boards that V's policy (ties split evenly, as the
    agent plays) picks an exact best move, beside random_best_move_probability for a uniformly random move.
    """
    value_best, exact_best, legal = (np.asarray(a, dtype=bool) for a in (value_best, exact_best, legal))
    if not value_best.shape == exact_best.shape == legal.shape or value_best.ndim != 2 \
            or not value_best.any(axis=1).all() or (value_best & ~legal).any() or (exact_best & ~legal).any():
        raise ValueError(f"best_move_metrics: need three (boards, cells) masks of one shape, best moves legal and "
                         f"one on every board, got shapes {value_best.shape}, {exact_best.shape}, {legal.shape}")
    contested = (exact_best != legal).any(axis=1)
    value_best, exact_best, legal = value_best[contested], exact_best[contested], legal[contested]
    hits = (value_best & exact_best).sum(axis=1)
    misses = (value_best & ~exact_best).sum(axis=1)
    undecided = (hits > 0) & (misses > 0)
    decided = int((~undecided).sum())
    n = int(contested.sum())
    return {"n_contested_boards": n,
            "best_move_agreement": float((misses == 0).sum() / decided) if decided else None,
            "undecided_share": float(undecided.mean()) if n else None,
            "best_move_probability": float((hits / (hits + misses)).mean()) if n else None,
            "random_best_move_probability": float((exact_best.sum(axis=1) / legal.sum(axis=1)).mean()) if n else None}


def _row(value: JsonBagValue, f: np.ndarray, opponents: dict[str, np.ndarray]) -> dict:
    boards = board_space()
    in_play = boards.valid & ~boards.terminal
    scores = first_player_scores(board_seat_values(value))
    sign = _mover_sign()[in_play]
    # The mover's view: V_mover - V_other = sign * (V_0 - V_1), against the mover-signed f_all.
    x, y = sign * scores[in_play], sign * f[in_play]
    strata = correlations_by_move_count(x, y, boards.moves[in_play])
    pearson, spearman = _correlations(x, y)
    n_prototypes = int((value.prototypes.sum(axis=1) > 0).sum())
    row = {"n_boards": int(in_play.sum()), "n_prototypes": n_prototypes, "n_tokens": len(value.features),
           "compression_ratio": n_prototypes * len(value.features) / N_BOARDS,
           "spearman_within_move_count": spearman_within_move_count(strata),
           "pearson_within_move_count": pearson_within_move_count(strata),
           **best_move_metrics(best_children(scores)[0], *best_children(f)),
           "spearman_pooled": spearman, "pearson_pooled": pearson}
    for n in STRATA:
        _, stratum_pearson, stratum_spearman = strata.get(n, (0, None, None))
        row |= {f"spearman_moves_{n}": stratum_spearman, f"pearson_moves_{n}": stratum_pearson}
    agent = greedy_policy(scores, TIE_TOLERANCE)
    for setting, (opponent, seat) in SETTINGS.items():
        win, draw, loss = agent_results(agent, opponents[opponent], seat)
        row |= {f"{setting}_win": win, f"{setting}_draw": draw, f"{setting}_loss": loss}
    return row


def jsonbag_vs_exact_table(prototypes_df: pl.DataFrame, features_df: pl.DataFrame | None = None,
                           w: float = 10.0, token_filter: TokenFilter | None = None) -> pl.DataFrame:
    """One row per (frequency, variant) present: V against f_all over the 4,520 boards in play, and exact outcomes.

    Frequencies come from winner_prototypes; variants from selected_features, plus "none" always.
    Correlations compare V_mover - V_other with the mover-signed f_all. The headline is within mark-count
    strata (spearman/pearson_within_move_count: the board-weighted mean over 1..8 marks, a stratum where V is
    constant counting 0; per stratum spearman/pearson_moves_<n>, null where V is constant), because mark count
    alone explains most of the pooled correlation over all boards (spearman/pearson_pooled).
    Best moves: over the boards where f_all separates the legal moves, best_move_agreement (decided boards),
    undecided_share and best_move_probability beside random play's, as best_move_metrics defines them.
    Outcomes (win/draw/loss from the JSON-Bag agent's side, as tictactoe_compression's columns): the greedy
    JSON-Bag policy as first and as second player against uniformly random play and against the softmax agent
    (inverse temperature w) on f_all. compression_ratio = non-empty prototypes x tokens the value uses (a
    variant's features; for "none" the prototypes' vocabulary) / 3^9, comparable with the SVD/HOSVD Cr.
    """
    if "frequency" not in prototypes_df.columns or prototypes_df.is_empty():
        raise ValueError(f"jsonbag_vs_exact_table: winner_prototypes is empty or lacks column 'frequency' "
                         f"(has {prototypes_df.columns})")
    present = set(prototypes_df["frequency"].unique().to_list())
    unknown = sorted(present - set(FREQUENCIES), key=str)
    if unknown:
        raise ValueError(f"jsonbag_vs_exact_table: winner_prototypes has unknown frequencies {unknown}")
    chosen = set() if features_df is None or "variant" not in features_df.columns else set(features_df["variant"])
    unknown = sorted(chosen - set(FEATURE_VARIANTS), key=str)
    if unknown:
        raise ValueError(f"jsonbag_vs_exact_table: selected_features has unknown variants {unknown}")
    variants = [v for v in FEATURE_VARIANTS if v in chosen or v == NO_SELECTION]
    f = exact_values()
    opponents = {"random": uniform_policy(), "full": softmax_policy(f, w)}
    rows = []
    for frequency in (fr for fr in FREQUENCIES if fr in present):
        for variant in variants:
            value = _value(prototypes_df, features_df, frequency, variant, token_filter)
            rows.append({"frequency": frequency, "variant": variant} | _row(value, f, opponents))
    return conform(pl.DataFrame(rows, infer_schema_length=None), TICTACTOE_JSONBAG, "tictactoe_jsonbag")


def plot_jsonbag_vs_compression(jsonbag_table: pl.DataFrame, compression_table: pl.DataFrame,
                                path: str | Path) -> Path:
    """Win probability vs random as first player against compression ratio: SVD/HOSVD curves, JSON-Bag points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    for name, table, needed in (("jsonbag_table", jsonbag_table, {"frequency", "variant", "compression_ratio"}),
                                ("compression_table", compression_table, {"method", "Cr"})):
        missing = sorted((needed | {"vs_random_first_win"}) - set(table.columns))
        if missing or table.height == 0:
            raise ValueError(f"plot_jsonbag_vs_compression: {name} lacks rows or columns {missing}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure, axis = plt.subplots(figsize=(8, 5))
    for method, style in (("svd", "-"), ("hosvd", "--")):
        rows = compression_table.filter((pl.col("method") == method) & (pl.col("Cr") > 0)).sort("Cr")
        axis.plot(rows["Cr"].to_numpy(), rows["vs_random_first_win"].to_numpy(), style, color="grey",
                  label=f"{method.upper()} softmax agent")
    markers = dict(zip(FREQUENCIES, "o^s"))
    colours = dict(zip(FEATURE_VARIANTS, plt.get_cmap("tab10").colors))
    for frequency, variant, ratio, win in jsonbag_table.select(
            "frequency", "variant", "compression_ratio", "vs_random_first_win").iter_rows():
        axis.scatter(ratio, win, marker=markers.get(frequency, "x"), color=colours.get(variant, "black"), zorder=3)
    handles, labels = axis.get_legend_handles_labels()
    for variant in dict.fromkeys(jsonbag_table["variant"].to_list()):
        handles.append(Line2D([], [], linestyle="", marker="o", color=colours.get(variant, "black")))
        labels.append(f"JSON-Bag features: {variant}")
    for frequency in dict.fromkeys(jsonbag_table["frequency"].to_list()):
        handles.append(Line2D([], [], linestyle="", marker=markers.get(frequency, "x"), color="black"))
        labels.append(f"JSON-Bag prototypes: {frequency}")
    axis.legend(handles, labels, fontsize=7, ncol=2, loc="lower right")
    axis.set_xscale("log")
    axis.set_xlabel("compression ratio (log scale)")
    axis.set_ylabel("win probability vs random, as first player")
    axis.set_title("JSON-Bag OSLA beside SVD/HOSVD compression of f_all")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
