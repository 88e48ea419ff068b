"""TokenDelta: the change in tokens between two documents equals the difference of their full tokenizations."""

from __future__ import annotations

import random

import pytest

from engines import GAMES, load_game
from engines.agents import RandomAgent
from engines.match import play_match
from jbag_pipeline.model.tokenize import tokenize_state
from jbag_pipeline.model.tokenize_delta import MISSING, TokenDelta
from jbag_pipeline.model.tokenize_restricted import token_paths
from tests.helpers.tokens import token_delta


def _difference(old, new, wanted: set | None) -> dict[str, int]:
    before, after = (tokenize_state(doc, num_suffix=True) for doc in (old, new))
    counts = {t: after.get(t, 0) - before.get(t, 0) for t in set(before) | set(after)}
    return {t: c for t, c in counts.items() if c and (wanted is None or t in wanted)}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_delta_equals_the_difference_of_tokenizations_on_every_game(name):
    game = load_game(name)
    docs = [s.doc for s in play_match(game, [RandomAgent() for _ in range(game.n_players)], seed=4).states]
    docs = docs[::max(1, len(docs) // 15)]
    vocabulary = sorted(set().union(*(tokenize_state(d, num_suffix=True) for d in docs)))
    rng = random.Random(name)
    for wanted in (None, set(rng.sample(vocabulary, min(100, len(vocabulary))))):
        delta = TokenDelta(None if wanted is None else token_paths(wanted))
        for old, new in zip(docs, docs[1:]):
            assert token_delta(delta, old, new) == _difference(old, new, wanted)
        assert token_delta(delta, docs[-1], docs[0]) == _difference(docs[-1], docs[0], wanted)  # far apart
        assert token_delta(delta, {}, docs[0]) == _difference({}, docs[0], wanted)  # from nothing


def test_delta_handles_added_and_removed_keys_and_items_and_changed_kinds():
    cases = [
        ({"a": 1}, {"a": 1, "b": [2, 3]}),
        ({"a": 1, "b": {"c": "x"}}, {"a": 1}),
        ({"deck": [2, 5, 1]}, {"deck": [2, 5]}),
        ({"deck": [2]}, {"deck": [3, 2, 7]}),
        ({"x": [1, 2]}, {"x": {"0": 1}}),
        ({"x": "[1, 2]"}, {"x": "[1, 3]"}),  # a string holding JSON is walked as JSON
        ({"x": None}, {"x": False}),
        ([{"a": 1}, 4], [{"a": 2}, 4, "z"]),  # a list document
        ({"p": [{"n": "A", "s": 3}, {"n": "B", "s": 0}]}, {"p": [{"n": "A", "s": 4}, {"n": "C", "s": 0}]}),
        ({"pile": [{"n": "A"}, {"n": "B"}, {"n": "C"}, 4]}, {"pile": [{"n": "B"}, {"n": "C"}, 4]}),  # drawn from the front
        ({"pile": [{"n": "B"}, [1, 2], "C"]}, {"pile": ["D", {"n": "B"}, [1, 2], "C"]}),  # put on the front
        ({"pile": [1, 2, 3, 4, 5]}, {"pile": [1, 2, 9, 4, 5, 6]}),  # changed and grown in the middle
        ({"pile": ["a", "b", "c", "d", "e", "a"]}, {"pile": ["e", "a", "d", "b", "a", "c"]}),  # shuffled anew
        ({"pile": [{"n": 1}, {"n": 2}, [3], {"n": 4}, 5]}, {"pile": [5, {"n": 4}, {"n": 2}, [3], {"n": 6}]}),
        ({"pile": [1, 2, 3, 4, 5, 6]}, {"pile": [7, 8, 9, 10, 11, 6]}),  # most replaced: position by position
    ]
    for old, new in cases:
        assert token_delta(TokenDelta(None), old, new) == _difference(old, new, None), (old, new)
        wanted = set(tokenize_state(old, num_suffix=True)) | set(tokenize_state(new, num_suffix=True))
        some = set(sorted(wanted)[::2])
        assert token_delta(TokenDelta(token_paths(some)), old, new) == _difference(old, new, some), (old, new)


def test_changes_stop_at_the_smallest_differing_values_and_skip_unwanted_places():
    old = {"board": [[".", "x"], [".", "."]], "turn": 3, "notes": {"a": 1}}
    new = {"board": [[".", "x"], ["o", "."]], "turn": 4, "notes": {"a": 2}}
    changes = TokenDelta(None).changes(old, new)
    assert (".", "o", (".board[1][0]", ".board[0]", ".board[1]", ".board")) in changes
    assert (3, 4, (".turn",)) in changes and len(changes) == 3
    only_board = TokenDelta(token_paths([".board[1][0].o"])).changes(old, new)
    assert [(before, after) for before, after, _ in only_board] == [(".", "o")]
    assert TokenDelta(None).changes({"a": 1}, {})[0][:2] == (1, MISSING)


def test_token_delta_rejects_a_bad_index():
    with pytest.raises(ValueError, match="TokenPaths"):
        TokenDelta({".a.1"})
