"""The JSON-Bag token rules every walker shares (tokenize, tokenize_restricted, tokenize_delta, json_parts).

How one value becomes tokens (docs/DESIGN.md section 3): an atom gives its ".value" suffix and, when it is a
positive integer, a weight for the bare path; a string that parses as a JSON container is walked as that
container. The walkers themselves stay in their modules, each tuned for its own hot loop.
"""

from __future__ import annotations

import json
from collections import _count_elements  # the C loop behind Counter(iterable), usable on a plain dict
from typing import Any

MODES = ("both", "ordered", "unordered")

# An atom is described by (suffix, weight, container): the ".value" text, the positive-integer weight (0 if
# none) and, for a string holding a JSON container, the parsed container (then suffix is None).
ATOM_CACHE: dict[str | int, tuple[str | None, int, Any]] = {}  # keys: exact str and exact int values only
ATOM_CACHE_LIMIT = 200_000
JSON_STARTS = frozenset('{["-0123456789tfnNI \t\n\r')  # json.loads fails on any other first character

count_elements = _count_elements  # counts[item] += 1 for every item, in C; the one import of the private helper


def describe_value(value: Any) -> tuple[str | None, int, Any]:
    """(suffix, weight, container) of any child value, following the reference's isinstance rules."""
    if isinstance(value, str) and value and value[0] in JSON_STARTS:
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
    if isinstance(value, (dict, list)):
        return None, 0, value
    weight = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
    return "." + str(value), weight, None


def describe_atom(value: str | int) -> tuple[str | None, int, Any]:
    """Cached describe_value for exact str and int values (bool and float never reach this cache)."""
    found = ATOM_CACHE.get(value)
    if found is None:
        if len(ATOM_CACHE) >= ATOM_CACHE_LIMIT:
            ATOM_CACHE.clear()
        found = ATOM_CACHE[value] = describe_value(value)
    return found


def describe_child(value: Any) -> tuple[str | None, int, Any]:
    """(suffix, weight, container) of a dict value or list item."""
    kind = type(value)
    if kind is str or kind is int:
        return describe_atom(value)
    if kind is dict or kind is list:
        return None, 0, value
    if value is None:
        return ".None", 0, None
    if kind is bool:
        return (".True" if value else ".False"), 0, None
    return describe_value(value)


def check_mode(mode: str) -> None:
    """ValueError unless `mode` is one of MODES."""
    if mode not in MODES:
        raise ValueError(f"tokenize: mode must be one of {MODES}, got {mode!r}")


def count_tokens(tokens: list, weights: dict | None) -> dict[str, int]:
    """Token -> count of a flat token list, plus the positive-integer weights of bare paths."""
    counts: dict[str, int] = {}
    _count_elements(counts, tokens)
    if weights:
        for token, weight in weights.items():
            counts[token] = counts.get(token, 0) + weight
    return counts
