"""Whole-document forms of the restricted tokenizer and the token delta, for tests that compare them with the
full tokenizer."""

from __future__ import annotations

from jbag_pipeline.model.tokenize_delta import TokenDelta
from jbag_pipeline.model.tokenize_restricted import TokenPaths, walk_restricted


def tokenize_state_restricted(doc: dict | list, index: TokenPaths, *, mode: str = "both",
                              num_suffix: bool = False) -> dict[str, int]:
    """tokenize_state(doc) restricted to the tokens of `index`, by the walk TokenDelta uses."""
    counts: dict[str, int] = {}
    walk_restricted(doc, [""], counts, num_suffix, index, mode != "unordered", mode != "ordered")
    return counts


def token_delta(delta: TokenDelta, old: dict | list, new: dict | list) -> dict[str, int]:
    """tokenize_state(new) - tokenize_state(old) restricted to delta's index, zeros left out: the sum of its changes."""
    counts: dict[str, int] = {}
    for change in delta.changes(old, new):
        for token, times in delta.tokens_of_change(*change).items():
            counts[token] = counts.get(token, 0) + times
    return {token: times for token, times in counts.items() if times}
