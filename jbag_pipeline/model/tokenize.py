"""JSON-Bag tokenizer: a JSON document -> token counts, byte-identical to the reference tokenizer.

Token rules: docs/DESIGN.md section 3. What makes it fast (from JSON text, 2.4x to 7x a naive json.loads +
walk + Counter on our engines' states; benchmarks/bench_tokenizer.py):
- each subtree is walked once, carrying the list of its active path prefixes; the naive walk re-walks
  every list element once per prefix, so it re-iterates dicts and re-parses strings 2^depth times;
- a token is one concatenation, prefix + ".value", where the ".value" suffix of a string or int is made
  once and cached (together with the result of the "does this string parse as JSON" test);
- a string is handed to json.loads only when its first character can start a JSON value;
- the atoms of a list under several prefixes are emitted prefix by prefix in list comprehensions, and
  their plain-prefix weights are summed once;
- tokens go into one flat list that collections' C helper counts in a single pass.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping, NamedTuple

import orjson

from jbag_pipeline.model.token_rules import (  # noqa: F401 (MODES: part of this module's API)
    ATOM_CACHE, MODES, check_mode, count_tokens, describe_atom, describe_child)

DEFAULT_BLACKLIST = ("gameStatus", "playerResults")  # the fields that state the outcome

# orjson reads integers beyond 64 bits as floats (json.loads keeps them exact): such texts have a run of 19+
# digits, found by mapping every digit to "0" and everything else to " " and searching for 19 zeros.
_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_DIGIT_RUN = b"0" * 19


def _walk_one(node: dict | list, prefix: str, tokens: list, weights: dict | None, indexed: bool) -> None:
    """Modes ordered (indexed=True) and unordered: every value has exactly one path."""
    is_dict = type(node) is dict or (type(node) is not list and isinstance(node, dict))
    for key, value in (node.items() if is_dict else enumerate(node)):
        path = f"{prefix}.{key}" if is_dict else f"{prefix}[{key}]" if indexed else prefix
        kind = type(value)
        if kind is str or kind is int:
            suffix, weight, container = ATOM_CACHE.get(value) or describe_atom(value)
        else:
            suffix, weight, container = describe_child(value)
        if container is None:
            tokens.append(path + suffix)
            if weight and weights is not None:
                weights[path] = weights.get(path, 0) + weight
        elif container:
            _walk_one(container, path, tokens, weights, indexed)


def walk_both(node: dict | list, prefixes: list[str], tokens: list, weights: dict | None) -> None:
    """Mode both: a list item lives under every active prefix, indexed and plain, so prefixes multiply."""
    if type(node) is dict or (type(node) is not list and isinstance(node, dict)):
        _walk_dict(node, prefixes, tokens, weights)
    elif len(prefixes) == 1:
        _walk_list_one_prefix(node, prefixes[0], tokens, weights)
    else:
        _walk_list(node, prefixes, tokens, weights)


def _walk_dict(node: dict, prefixes: list[str], tokens: list, weights: dict | None) -> None:
    single = prefixes[0] if len(prefixes) == 1 else None  # outside any list: the common, fastest case
    for key, value in node.items():
        kind = type(value)
        if kind is str or kind is int:
            suffix, weight, container = ATOM_CACHE.get(value) or describe_atom(value)
        else:
            suffix, weight, container = describe_child(value)
        if container is not None:
            if container:
                walk_both(container, [f"{p}.{key}" for p in prefixes], tokens, weights)
        elif single is not None:
            path = f"{single}.{key}"
            tokens.append(path + suffix)
            if weight and weights is not None:
                weights[path] = weights.get(path, 0) + weight
        elif weight and weights is not None:
            paths = [f"{p}.{key}" for p in prefixes]
            tokens.extend([p + suffix for p in paths])
            for p in paths:
                weights[p] = weights.get(p, 0) + weight
        else:
            tokens.extend([f"{p}.{key}{suffix}" for p in prefixes])


def _walk_list_one_prefix(node: list, prefix: str, tokens: list, weights: dict | None) -> None:
    for i, value in enumerate(node):
        kind = type(value)
        if kind is str or kind is int:
            suffix, weight, container = ATOM_CACHE.get(value) or describe_atom(value)
        else:
            suffix, weight, container = describe_child(value)
        if container is not None:
            if container:
                walk_both(container, [f"{prefix}[{i}]", prefix], tokens, weights)
            continue
        indexed = f"{prefix}[{i}]"
        tokens.append(indexed + suffix)
        tokens.append(prefix + suffix)
        if weight and weights is not None:
            weights[indexed] = weights.get(indexed, 0) + weight
            weights[prefix] = weights.get(prefix, 0) + weight


def _walk_list(node: list, prefixes: list[str], tokens: list, weights: dict | None) -> None:
    """A list under several prefixes: atoms are collected first, then emitted prefix by prefix."""
    atoms, weighted = [], []  # (index, suffix) and (index, weight) of the atomic items
    for i, value in enumerate(node):
        kind = type(value)
        if kind is str or kind is int:
            suffix, weight, container = ATOM_CACHE.get(value) or describe_atom(value)
        else:
            suffix, weight, container = describe_child(value)
        if container is not None:
            if container:
                walk_both(container, [f"{p}[{i}]" for p in prefixes] + prefixes, tokens, weights)
            continue
        atoms.append((i, suffix))
        if weight:
            weighted.append((i, weight))
    for p in prefixes:
        tokens.extend([f"{p}[{i}]{suffix}" for i, suffix in atoms])
        tokens.extend([p + suffix for _, suffix in atoms])
    if weighted and weights is not None:
        total = sum(weight for _, weight in weighted)
        for p in prefixes:
            weights[p] = weights.get(p, 0) + total
            for i, weight in weighted:
                path = f"{p}[{i}]"
                weights[path] = weights.get(path, 0) + weight


def _add_tokens(doc: Any, mode: str, tokens: list, weights: dict | None, where: str) -> None:
    if not isinstance(doc, (dict, list)):
        raise ValueError(f"tokenize: {where} must be a JSON object or array (a dict or list), "
                         f"got {type(doc).__name__}")
    if mode == "both":
        walk_both(doc, [""], tokens, weights)
    else:
        _walk_one(doc, "", tokens, weights, mode == "ordered")


def tokenize_state(doc: dict | list, *, mode: str = "both", num_suffix: bool = False) -> dict[str, int]:
    """Token -> count of one JSON document (docs/DESIGN.md section 3); num_suffix adds the positive-integer tokens."""
    check_mode(mode)
    tokens: list[str] = []
    weights: dict[str, int] | None = {} if num_suffix else None
    _add_tokens(doc, mode, tokens, weights, "the state")
    return count_tokens(tokens, weights)


def tokenize_trajectory(states: Iterable[dict | list], *, mode: str = "both",
                        num_suffix: bool = False) -> dict[str, int]:
    """Token -> count summed over the states of a trajectory, each walked from the empty path."""
    check_mode(mode)
    tokens: list[str] = []
    weights: dict[str, int] | None = {} if num_suffix else None
    for i, doc in enumerate(states):
        _add_tokens(doc, mode, tokens, weights, f"state {i} of the trajectory")
    return count_tokens(tokens, weights)


def parse_json(text: str | bytes) -> Any:
    """json.loads's result for `text`, parsed by orjson where that is provably the same value (much faster).

    orjson rejects NaN/Infinity and lone surrogates (json.loads accepts them) and reads integers beyond
    64 bits as floats; texts with such content (any run of 19+ digits) go to json.loads.
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if _LONG_DIGIT_RUN not in raw.translate(_DIGITS_AS_ZEROS):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


class FilteredBag(NamedTuple):
    """A bag split by a TokenFilter: the tokens kept and the tokens dropped, with their counts."""

    kept: dict[str, float]
    dropped: dict[str, float]


class TokenFilter:
    """Drops tokens whose path holds any of `fields` as a whole key, ignoring case as the reference's filter does.

    A field matches where "." + field is followed by ".", "[" or the token's end: "turnOwner" drops
    ".turnOwner.1" and the positive-integer token ".turnOwner", never ".turnOwnerName" or ".myturnOwner.1"
    (a string value spelled like a field, ".x.turnOwner", would also match; no engine writes one). The
    default removes the outcome-stating fields, which would give a winner label away.
    """

    def __init__(self, fields: Iterable[str] = DEFAULT_BLACKLIST):
        self.fields = tuple(fields)
        for f in self.fields:
            if not isinstance(f, str) or not f:
                raise ValueError(f"TokenFilter: every field must be a non-empty string, got {f!r}")
        alternatives = "|".join(re.escape(f) for f in self.fields)
        self._pattern = re.compile(rf"\.(?:{alternatives})(?=[.\[]|$)", re.IGNORECASE) if self.fields else None
        self._verdicts: dict[str, bool] = {}

    def keeps(self, token: str) -> bool:
        """Whether `token` passes the filter (memoised: a game has few distinct tokens)."""
        verdict = self._verdicts.get(token)
        if verdict is None:
            verdict = self._verdicts[token] = self._pattern is None or self._pattern.search(token) is None
        return verdict

    def apply(self, bag: Mapping[str, float]) -> FilteredBag:
        """Split `bag` into the kept and the dropped tokens."""
        kept, dropped = {}, {}
        for token, count in bag.items():
            (kept if self.keeps(token) else dropped)[token] = count
        return FilteredBag(kept, dropped)

    def __repr__(self) -> str:
        return f"TokenFilter({list(self.fields)!r})"
