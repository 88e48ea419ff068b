"""Token mappings between game variants: which source token each target token inherits its weight from.

As the policy-value transfer paper maps input channels (exact name first, else the nearest by edit distance,
else no transfer), a target token takes an exactly equal source token, else the nearest source token of the
same value and shape by edit distance over the path, else none (weight 0).

String distance is rapidfuzz's Levenshtein: maintained, C++ speed, and the right measure on path strings
like `.board[5][6]`; tree edit distance (zss, apted) is unmaintained and far slower for thousands of tokens,
and a token path is a chain, not a tree, so it would add nothing.

Token anatomy (docs/DESIGN.md section 3): a token is path + "." + value, or a bare path that the positive-integer
rule emits beside path + "." + n. The split, on a whole vocabulary:
- bare: the token ends with "]", or the vocabulary holds token + "." + n (n a positive int) and the token is
  not itself X + "." + m of a token X in the vocabulary (m a positive int: then it is X's value token);
- otherwise the value starts after the token's last "." (a run of dots counts from its first, so `.board..`
  has value "."), extended left over `.-?digits` when the value is digits (floats: `.x.1.5` has value 1.5).
Keys never hold "." in our engines; a string value holding "." is split inside it (then it only finds
tokens with the same tail, never a wrong one). Shape: the path with every list index `[i]` written `[]`.
"""

from __future__ import annotations

import re
from typing import Iterable, NamedTuple

import numpy as np
import polars as pl
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from jbag_pipeline.schemas import TOKEN_MAPPINGS

MATCH_KINDS = ("exact", "nearest", "unmatched", "random")
DEFAULT_MAX_DISTANCE = 0.5

_POSITIVE_INT = re.compile(r"[1-9][0-9]*")
_FRACTION = re.compile(r"[0-9]+(e[+-][0-9]+)?")
_INTEGER_TAIL = re.compile(r"\.(-?[0-9]+)$")
_INDEX = re.compile(r"\[([0-9]+)\]")


class TokenParts(NamedTuple):
    """A token's path, value (None for a bare positive-int token), shape and list indices."""

    path: str
    value: str | None
    shape: str
    indices: tuple[int, ...]


def _tokens(tokens: Iterable[str], name: str) -> list[str]:
    """Sorted distinct tokens; a non-string raises."""
    if isinstance(tokens, str):
        raise ValueError(f"{name}: must be a collection of tokens, not one string")
    found = list(tokens)
    for token in found:
        if not isinstance(token, str):
            raise ValueError(f"{name}: tokens must be strings, got {token!r}")
    return sorted(set(found))


def _positive_child_parents(vocabulary: set[str]) -> set[str]:
    """Every X for which X + "." + n (n a positive int) is in the vocabulary."""
    parents = set()
    for token in vocabulary:
        head, dot, tail = token.rpartition(".")
        if dot and _POSITIVE_INT.fullmatch(tail):
            parents.add(head)
    return parents


def split_value(token: str) -> tuple[str, str]:
    """(path, value) of a token that is not bare: the value after the last dot run, floats kept whole."""
    cut = token.rfind(".")
    if cut < 0:
        raise ValueError(f"split_value: token {token!r} has no '.' before a value")
    while cut > 0 and token[cut - 1] == ".":
        cut -= 1
    path, value = token[:cut], token[cut + 1:]
    if _FRACTION.fullmatch(value):
        whole = _INTEGER_TAIL.search(path)
        if whole:
            path, value = path[:whole.start()], f"{whole.group(1)}.{value}"
    return path, value


def token_parts(tokens: Iterable[str]) -> dict[str, TokenParts]:
    """TokenParts of every token, with bareness decided over the whole vocabulary (see the module docstring)."""
    vocabulary = set(_tokens(tokens, "token_parts"))
    parents = _positive_child_parents(vocabulary)
    parts = {}
    for token in sorted(vocabulary):
        head, dot, tail = token.rpartition(".")
        value_of_bare = bool(dot) and head in vocabulary and _POSITIVE_INT.fullmatch(tail) is not None
        if token.endswith("]") or (token in parents and not value_of_bare):
            path, value = token, None
        else:
            path, value = split_value(token)
        parts[token] = TokenParts(path, value, _INDEX.sub("[]", path),
                                  tuple(int(i) for i in _INDEX.findall(path)))
    return parts


def _check_max_distance(max_distance: float) -> float:
    if isinstance(max_distance, bool) or not isinstance(max_distance, (int, float)) or not 0 <= max_distance <= 1:
        raise ValueError(f"map_tokens: max_distance must be a number in [0, 1], got {max_distance!r}")
    return float(max_distance)


def _nearest_in_group(targets: list[str], target_parts: list[TokenParts], sources: list[str],
                      source_parts: list[TokenParts], max_distance: float) -> list[tuple]:
    """(target, source | None, kind, distance) rows for targets and sources of one (shape, value) group.

    Order: normalised Levenshtein distance of the paths, then the L1 distance of the list indices, then
    the source token; the best source beyond max_distance leaves the target unmatched.
    """
    target_paths = [p.path for p in target_parts]
    source_paths = [p.path for p in source_parts]
    edits = cdist(target_paths, source_paths, scorer=Levenshtein.distance, dtype=np.int32, workers=1)
    lengths = np.maximum.outer(np.array([len(p) for p in target_paths]), np.array([len(p) for p in source_paths]))
    normalised = edits / np.maximum(lengths, 1)
    target_indices = np.array([p.indices for p in target_parts], dtype=np.int64).reshape(len(targets), -1)
    source_indices = np.array([p.indices for p in source_parts], dtype=np.int64).reshape(len(sources), -1)
    rows = []
    for row, target in enumerate(targets):
        closest = np.flatnonzero(normalised[row] == normalised[row].min())
        l1 = np.abs(source_indices[closest] - target_indices[row]).sum(axis=1)
        best = closest[np.argmin(l1)]  # argmin takes the first, and sources are sorted
        distance = float(normalised[row, best])
        if distance <= max_distance:
            rows.append((target, sources[best], "nearest", distance))
        else:
            rows.append((target, None, "unmatched", distance))
    return rows


def map_tokens(source_tokens: Iterable[str], target_tokens: Iterable[str], *,
               max_distance: float = DEFAULT_MAX_DISTANCE) -> pl.DataFrame:
    """(target_token, source_token, match_kind, distance) for every distinct target token, sorted by target.

    exact: the same string (distance 0). nearest: the closest source token with the same value and shape
    (normalised Levenshtein distance of the paths <= max_distance). unmatched: none (source_token null;
    distance the best candidate's, or null without any candidate).
    """
    max_distance = _check_max_distance(max_distance)
    sources = _tokens(source_tokens, "map_tokens source_tokens")
    targets = _tokens(target_tokens, "map_tokens target_tokens")
    source_set = set(sources)
    rows = [(t, t, "exact", 0.0) for t in targets if t in source_set]
    open_targets = [t for t in targets if t not in source_set]
    if open_targets:
        source_parts, target_parts = token_parts(sources), token_parts(targets)
        groups: dict[tuple, list[str]] = {}
        for token in sources:
            groups.setdefault((source_parts[token].shape, source_parts[token].value), []).append(token)
        wanted: dict[tuple, list[str]] = {}
        for token in open_targets:
            wanted.setdefault((target_parts[token].shape, target_parts[token].value), []).append(token)
        for key, group_targets in wanted.items():
            candidates = groups.get(key)
            if candidates is None:
                rows += [(t, None, "unmatched", None) for t in group_targets]
            else:
                rows += _nearest_in_group(group_targets, [target_parts[t] for t in group_targets], candidates,
                                          [source_parts[s] for s in candidates], max_distance)
    return pl.DataFrame(rows, schema=TOKEN_MAPPINGS, orient="row").sort("target_token")


def random_mapping(source_tokens: Iterable[str], target_tokens: Iterable[str], seed: int) -> pl.DataFrame:
    """The control: every distinct target token gets a uniformly random source token (seeded), kind "random"."""
    sources = _tokens(source_tokens, "random_mapping source_tokens")
    targets = _tokens(target_tokens, "random_mapping target_tokens")
    if not sources:
        raise ValueError("random_mapping: source_tokens is empty")
    picks = np.random.default_rng(seed).integers(0, len(sources), size=len(targets))
    return pl.DataFrame({"target_token": targets, "source_token": [sources[i] for i in picks.tolist()],
                         "match_kind": ["random"] * len(targets), "distance": [None] * len(targets)},
                        schema=TOKEN_MAPPINGS)
