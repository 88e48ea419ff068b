"""Winner classification: held-out split, prefixes and the majority baseline on planted data."""

import polars as pl

from jbag_pipeline.classification import split_games, winner_classification_table


def _tables(n_games: int = 20):
    games, states, tokens = [], [], []
    for game_id in range(n_games):
        winner = game_id % 2 if game_id % 5 else None  # every fifth game a draw
        games.append({"game": "g", "game_id": game_id, "winner": winner})
        for idx in range(4):
            states.append({"game": "g", "game_id": game_id, "state_idx": idx})
            tokens.append({"game": "g", "game_id": game_id, "state_idx": idx, "token": ".common", "count": 3})
            mark = ".mark.a" if winner == 0 else ".mark.b" if winner == 1 else ".mark.c"
            tokens.append({"game": "g", "game_id": game_id, "state_idx": idx, "token": mark, "count": 1})
            tokens.append({"game": "g", "game_id": game_id, "state_idx": idx,
                           "token": f".playerResults.{winner}", "count": 1})
    schema = {"winner": pl.Int8}
    return (pl.DataFrame(tokens), pl.DataFrame(states), pl.DataFrame(games, schema_overrides=schema))


def test_split_holds_out_the_last_decided_games():
    _, _, games = _tables()
    train, test = split_games(games, 0.25)
    decided = [g for g in range(20) if g % 5]
    assert train + test == decided and len(test) == 4


def test_planted_token_is_found_at_every_prefix_and_outcome_tokens_are_filtered():
    tokens, states, games = _tables()
    table = winner_classification_table(tokens, states, games, test_share=0.25, blacklist=("playerResults",))
    assert table["prefix"].to_list() == [0.25, 0.5, 0.75, 1.0]
    assert table["accuracy"].to_list() == [1.0] * 4
    assert table["majority_accuracy"][0] == 0.5  # the four test games are won by seats 1, 0, 1, 0


def test_without_signal_accuracy_is_the_tie_break_not_perfect():
    tokens, states, games = _tables()
    tokens = tokens.filter(~pl.col("token").str.starts_with(".mark"))
    table = winner_classification_table(tokens, states, games, test_share=0.25, blacklist=("playerResults",))
    assert table["accuracy"][3] < 1.0
