"""Winner leakage: the fields each game's token blacklist removes, and the tokens that alone give the winner away.

Blacklist entries are field names (jbag_pipeline.model.tokenize.TokenFilter matches them as whole keys of the token
path, ignoring case). Two kinds, per game, read off each engine's to_json() and declared in its GameInfo
(engines/info.py: outcome_fields, turn_order_fields):
- outcome fields state the result: engines.base.common_json's `gameStatus` and `playerResults`, and in
  connect4 and tictactoe `winnerCells` (empty until a line is won, so non-empty means "the game was won").
- turn-order fields count turns, rounds or moves, or name whose turn it is or who started.
  Fields that are game content are not among them: phases within a turn (gamePhase, turnPhase), turn resources
  (actionsLeft, buysLeft), the 7 Wonders age and its passing direction (they fix which cards are dealt and who
  receives them), pending choices (turnActions), scores.
The default blacklist drops the outcome fields always and a turn-order field only where it leaks
(LEAKING_TURN_ORDER_FIELDS, with the reason per field): where leaky_tokens flags one of its tokens, or where the
rules make its tokens in a complete trajectory name the winner (LAST_TURN: the game ends in its winner's turn, so
the last turn's number, or with two alternating seats the balance of the seats' states, says who won). A
turn-order field that does not leak stays: it tells a state after a move from the state before it (in Can't
Stop, without turnOwner, stopping before a roll gives a document identical to the decision's state).
Games not listed (ingested TAG data) get TAG's AbstractGameStateContainer fields (docs/RULES.md section 1).

The evidence, demo self-play of seed 0 (`jbag run --preset demo --select selfplay_games,state_tokens,leaky_tokens`).
leaky_tokens flags no token of any game there: its bar (the Wilson lower bound at 95% simultaneous over every
token, majority + 0.10) is out of reach with 11-30 held-out games (best turn-order stumps, accuracy / lower bound
/ bar: Connect4 .80/.45/.73, Dots and Boxes .61/.22/.54, tic-tac-toe 1.00/.63/1.10, Can't Stop .83/.28/.93,
Dominion .91/.27/1.01, Sea Salt & Paper 1.00/.32/1.10, 7 Wonders .92/.27/1.02). The rules' leak, measured over
the decided games:
- connect4, tictactoe: the last mover wins. The last turnCounter and moveCount name the winner by parity in
  100/100 (Connect4) and 70/70 (tic-tac-toe) games; seat 0 won exactly the games whose trajectory holds as many
  turnOwner-0 as turnOwner-1 states (100/100, 70/70). All three dropped.
- cant_stop: a game ends in its winner's turn: the last turnCounter mod 4 names the winner in 40/40 games;
  dropped. turnOwner's counts do not (the seat with most states won 8 of 40): kept.
- dots_and_boxes: the last box need not win: last turnCounter parity 31/60, turnOwner balance 32/60. Kept.
- dominion (last value or most states names the winner in 4-13/37 games for every field), sea_salt_paper
  (7-17/38), seven_wonders (2-12/39): kept.

A token is leaky when a one-token decision stump trained on the train games' complete trajectories predicts
the winner of held-out complete trajectories far better than always naming the train set's majority seat
(or, in games won by more than two seats, whether one seat s won, far better than the train set's majority
answer): the lower bound of its held-out accuracy's Wilson interval, at 95% simultaneous confidence over
every (token, question) tested (Bonferroni), exceeds the majority's held-out accuracy by LEAK_MARGIN or more.
With fewer than MIN_TEST_GAMES held-out games no token is called leaky: there the majority seat's own
accuracy is too noisy a baseline (at 2 games it is often 0). The bar is high by design: at demo scale
(30 held-out 4-player games) even a token that states one seat's win cannot clear it.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from engines import GAMES, game_info
from jbag_pipeline.analysis.classification import split_games
from jbag_pipeline.analysis.statistics import wilson_interval
from jbag_pipeline.model.tokenize import DEFAULT_BLACKLIST, TokenFilter
from jbag_pipeline.transforms.game_blocks import detached, game_blocks
from jbag_pipeline.schemas import LEAKY_TOKENS as LEAKY_TOKENS_SCHEMA

COMMON_OUTCOME_FIELDS = DEFAULT_BLACKLIST  # ("gameStatus", "playerResults"): engines.base.common_json
TAG_TURN_ORDER_FIELDS = ("tick", "roundCounter", "turnCounter", "turnOwner", "firstPlayer")  # TAG's common fields

LAST_TURN = "the game ends in its winner's turn"  # see the module docstring
# The turn-order fields the default blacklist drops, each with the reason (the module docstring gives the evidence).
LEAKING_TURN_ORDER_FIELDS: dict[str, dict[str, str]] = {
    "cant_stop": {"turnCounter": LAST_TURN},
    "connect4": {"turnCounter": LAST_TURN, "turnOwner": LAST_TURN, "moveCount": LAST_TURN},
    "dominion": {},
    "dots_and_boxes": {},
    "sea_salt_paper": {},
    "seven_wonders": {},
    "tictactoe": {"turnCounter": LAST_TURN, "turnOwner": LAST_TURN, "moveCount": LAST_TURN},
}
# Every game's outcome and turn-order fields at once, for code that does not know its game (the transfer
# experiment's default): it drops the leaking fields of every engine and, conservatively, the others too.
DEFAULT_TOKEN_BLACKLIST: tuple[str, ...] = tuple(dict.fromkeys(
    [f for game in sorted(GAMES) for f in game_info(game).outcome_fields] + list(TAG_TURN_ORDER_FIELDS)
    + [f for game in sorted(GAMES) for f in game_info(game).turn_order_fields]))

LEAK_MARGIN = 0.10  # how far the accuracy's Wilson lower bound must clear the majority seat's accuracy
LEAK_ALPHA = 0.05  # family-wise error over the (token, question) pairs tested
MIN_TEST_GAMES = 10
MIN_GAME_SHARE = 0.05  # a token is tested when it occurs in at least this share of the train games (and 2)
_CHUNK = 512  # tokens per vectorised stump batch: bounds the (games x tokens x seats) cumulative counts


def trajectory_shares(state_tokens: pl.DataFrame) -> pl.DataFrame:
    """(game_id, token, p): each game's whole trajectory as one bag, every token kept (blacklisted ones too)."""
    bags = state_tokens.group_by("game_id", "token").agg(pl.col("count").sum())
    return bags.with_columns((pl.col("count") / pl.col("count").sum().over("game_id")).alias("p")) \
        .select("game_id", "token", "p").sort("game_id", "token")


def fit_stumps(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One decision stump per column of x (games x tokens): the threshold with the most correct training labels.

    Returns (threshold, seat at or below it, seat above it) per column; a leaf names its majority seat (ties:
    the lowest seat), ties between thresholds go to the lowest, and a column without a useful split gets the
    threshold +inf (every game in the lower leaf, so it names the overall majority seat).
    """
    seats = np.unique(y)
    n, m = x.shape
    order = np.argsort(x, axis=0, kind="stable")
    ordered = np.take_along_axis(x, order, axis=0)
    one_hot = (y[:, None] == seats[None, :]).astype(np.int32)
    below = np.cumsum(one_hot[order], axis=0)  # (n, m, seats): seat counts among the k+1 smallest values
    above = below[-1][None, :, :] - below
    correct = below.max(axis=2) + above.max(axis=2)
    splits = np.vstack([ordered[:-1] < ordered[1:], np.ones((1, m), dtype=bool)])  # last row: no split at all
    best = np.argmax(np.where(splits, correct, -1), axis=0)
    columns = np.arange(m)
    upper = np.minimum(best + 1, n - 1)
    threshold = np.where(best < n - 1, (ordered[best, columns] + ordered[upper, columns]) / 2, np.inf)
    low_seat = seats[np.argmax(below[best, columns], axis=1)]
    high_seat = seats[np.argmax(above[best, columns], axis=1)]
    return threshold, low_seat, high_seat


def stump_correct(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray) -> np.ndarray:
    """Per column: how many test labels the column's training stump predicts right (batched over columns)."""
    correct = np.zeros(x_train.shape[1], dtype=np.int64)
    for start in range(0, x_train.shape[1], _CHUNK):
        part = slice(start, start + _CHUNK)
        threshold, low_seat, high_seat = fit_stumps(x_train[:, part], y_train)
        predicted = np.where(x_test[:, part] <= threshold, low_seat, high_seat)
        correct[part] = (predicted == y_test[:, None]).sum(axis=0)
    return correct


def _dense(shares: pl.DataFrame, game_ids: list[int], tokens: list[str]) -> np.ndarray:
    """(games x tokens) matrix of p, 0 where a game lacks a token."""
    matrix = np.zeros((len(game_ids), len(tokens)))
    part = shares.filter(pl.col("game_id").is_in(game_ids) & pl.col("token").is_in(tokens)).select(
        pl.col("game_id").replace_strict(game_ids, list(range(len(game_ids)))).alias("row"),
        pl.col("token").replace_strict(tokens, list(range(len(tokens)))).alias("column"), "p")
    matrix[part["row"].to_numpy(), part["column"].to_numpy()] = part["p"].to_numpy()
    return matrix


def _majority(labels: list[int]) -> int:
    """The most frequent label (ties: the lowest), as classification's majority seat."""
    return max(set(labels), key=lambda s: (labels.count(s), -s))


def leaky_tokens_table(state_tokens: pl.DataFrame, games: pl.DataFrame, *, test_share: float,
                       blacklist: tuple[str, ...], margin: float = LEAK_MARGIN) -> tuple[pl.DataFrame, int]:
    """(the leaky tokens, how many tokens were tested) of one game's complete self-play trajectories.

    The split is classification.split_games's (decided games; the last test_share held out). Each token's
    stump answers "which seat won" (seat null) and, with more than two winning seats, "did seat s win" per
    seat s (a one-token stump can name at most two seats, so in a 4-player game a token that gives away one
    seat's win would pass unseen otherwise). `blacklisted` says whether the game's blacklist removes the
    token. Leaky tokens come most accurate first.
    """
    game = games["game"][0] if len(games) else ""
    train_ids, test_ids = split_games(games, test_share)
    if not train_ids or not test_ids:
        return pl.DataFrame(schema=LEAKY_TOKENS_SCHEMA), 0
    winner = dict(zip(games["game_id"].to_list(), games["winner"].to_list()))
    # one game's shares at a time suffice: blocks of whole games, by ascending game_id as trajectory_shares sorts
    pieces = [detached(trajectory_shares(block)) for block in game_blocks(
        state_tokens, game_ids=train_ids + test_ids, columns=["game_id", "token", "count"])]
    shares = pl.concat(pieces) if pieces else trajectory_shares(state_tokens.lazy().head(0).collect())
    presence = shares.filter(pl.col("game_id").is_in(train_ids)).group_by("token").len()
    needed = max(2, math.ceil(MIN_GAME_SHARE * len(train_ids)))
    tokens = presence.filter(pl.col("len") >= needed)["token"].sort().to_list()
    y_train = np.array([winner[g] for g in train_ids])
    y_test = np.array([winner[g] for g in test_ids])
    seats = sorted(set(y_train.tolist()))
    questions = [(None, y_train, y_test)] + ([(s, (y_train == s).astype(int), (y_test == s).astype(int))
                                             for s in seats] if len(seats) > 2 else [])
    x_train, x_test = _dense(shares, train_ids, tokens), _dense(shares, test_ids, tokens)
    n_test, keep, rows = len(test_ids), TokenFilter(blacklist), []
    confidence = 1 - LEAK_ALPHA / max(1, len(tokens) * len(questions))
    for seat, train_labels, test_labels in questions:
        if n_test < MIN_TEST_GAMES:
            break
        majority_accuracy = float(np.mean(test_labels == _majority(train_labels.tolist())))
        correct = stump_correct(x_train, train_labels, x_test, test_labels)
        for j in np.flatnonzero(correct / n_test > majority_accuracy + margin).tolist():  # the bound is lower still
            low, _ = wilson_interval(int(correct[j]), n_test, confidence=confidence)
            if low >= majority_accuracy + margin:
                rows.append({"game": game, "token": tokens[j], "seat": seat, "accuracy": float(correct[j] / n_test),
                             "accuracy_low": low, "majority_accuracy": majority_accuracy, "n_test": n_test,
                             "blacklisted": not keep.keeps(tokens[j])})
    table = pl.DataFrame(rows, schema=LEAKY_TOKENS_SCHEMA)
    return table.sort(["accuracy", "token", "seat"], descending=[True, False, False], nulls_last=False), len(tokens)
