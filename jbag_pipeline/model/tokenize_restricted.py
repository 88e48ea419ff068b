"""The tokenizer restricted to a set of wanted tokens (selected features): walk_restricted counts tokenize_state's
tokens of those only, without walking subtrees that can hold none of them.

- token_paths(tokens) lists every path leading to a wanted token: each token cut before every "." or "["
  (a token is path + ".value" or, by the positive-integer rule, the bare path), which covers both the
  indexed and the unindexed paths of list items; a walk enters only those paths.
- a list of plain atoms is counted by distinct value in one C pass, and only its wanted indices are read.
tokenize_delta walks the differences of two documents with the same index.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from jbag_pipeline.model.token_rules import ATOM_CACHE, count_elements, describe_atom, describe_child


class TokenPaths(NamedTuple):
    """What a restricted walk needs for a set of wanted tokens (build it with token_paths)."""

    tokens: frozenset[str]  # the wanted tokens
    paths: frozenset[str]  # every path that can lead to a wanted token
    indices: dict[str, tuple[tuple[int, str], ...]]  # list path -> (i, path[i]) for path[i] in `paths`, by i
    keys: frozenset[str]  # every text after a "." of a path: a dict key outside it leads to no wanted token


def token_paths(tokens: Iterable[str]) -> TokenPaths:
    """The paths of `tokens` (each token cut before every "." or "[", and the token itself); cuts inside keys
    or values only add paths that are never needed."""
    wanted, paths = set(), set()
    for token in tokens:
        if not isinstance(token, str):
            raise ValueError(f"token_paths: tokens must be strings, got {token!r}")
        wanted.add(token)
        paths.add(token)
        for i, char in enumerate(token):
            if i and (char == "." or char == "["):
                paths.add(token[:i])
    indices: dict[str, set[int]] = {}
    keys: set[str] = set()
    for path in paths:
        keys.update(path[i + 1:] for i, char in enumerate(path) if char == ".")
        base, bracket, index = path.rpartition("[")
        if bracket and index.endswith("]") and index[:-1].isdigit():
            indices.setdefault(base, set()).add(int(index[:-1]))
    return TokenPaths(frozenset(wanted), frozenset(paths),
                      {base: tuple((i, f"{base}[{i}]") for i in sorted(found)) for base, found in indices.items()},
                      frozenset(keys))


_BULK_TYPES = frozenset((int, str, type(None)))  # atom types no two of which compare equal across types
_NONE_ATOM = (".None", 0, None)


def _emit(counts: dict, wanted: frozenset, paths: list[str], suffix: str, weight: int, times: int,
          weighted: bool) -> None:
    for p in paths:
        token = p + suffix
        if token in wanted:
            counts[token] = counts.get(token, 0) + times
        if weight and weighted and p in wanted:
            counts[p] = counts.get(p, 0) + weight * times


def _atom_list(node: list, prefixes: list[str], counts: dict, weighted: bool, index: TokenPaths,
               ordered: bool, unordered: bool) -> bool:
    """A list of plain atoms in one pass over its distinct values; False (nothing done) for any other list."""
    if not _BULK_TYPES.issuperset(map(type, node)):
        return False
    distinct: dict = {}
    count_elements(distinct, node)
    described = [(_NONE_ATOM if value is None else describe_atom(value), times) for value, times in distinct.items()]
    if any(atom[2] is not None for atom, _ in described):
        return False  # a string holding a JSON container: walked item by item
    wanted = index.tokens
    if unordered:
        for (suffix, weight, _), times in described:
            _emit(counts, wanted, prefixes, suffix, weight, times, weighted)
    if ordered:
        size = len(node)
        for p in prefixes:
            for i, path in index.indices.get(p, ()):
                if i >= size:
                    break
                value = node[i]
                suffix, weight, _ = _NONE_ATOM if value is None else ATOM_CACHE.get(value) or describe_atom(value)
                token = path + suffix
                if token in wanted:
                    counts[token] = counts.get(token, 0) + 1
                if weight and weighted and path in wanted:
                    counts[path] = counts.get(path, 0) + weight
    return True


def walk_restricted(node: dict | list, prefixes: list[str], counts: dict, weighted: bool, index: TokenPaths,
          ordered: bool, unordered: bool) -> None:
    """The walk of mode both/ordered/unordered that enters only index.paths and counts wanted tokens."""
    is_dict = type(node) is dict or (type(node) is not list and isinstance(node, dict))
    if not is_dict and _atom_list(node, prefixes, counts, weighted, index, ordered, unordered):
        return
    allowed, keys = index.paths, index.keys
    single = prefixes[0] if len(prefixes) == 1 else None  # outside any list: the common, fastest case
    for key, value in (node.items() if is_dict else enumerate(node)):
        if is_dict and (key if type(key) is str else str(key)) not in keys:
            continue
        if single is not None:
            if is_dict:
                path = f"{single}.{key}"
                if path not in allowed:
                    continue
                paths = [path]
            else:
                indexed = f"{single}[{key}]" if ordered else None
                if indexed is not None and indexed in allowed:
                    paths = [indexed, single] if unordered else [indexed]
                elif unordered:
                    paths = prefixes  # the plain path is the parent's, already allowed
                else:
                    continue
        elif is_dict:
            paths = [path for p in prefixes if (path := f"{p}.{key}") in allowed]
        else:
            paths = [path for p in prefixes if (path := f"{p}[{key}]") in allowed] if ordered else []
            if unordered:
                paths += prefixes
        if paths:
            _walk_value(value, paths, counts, weighted, index, ordered, unordered)


def _walk_value(value, paths: list[str], counts: dict, weighted: bool, index: TokenPaths, ordered: bool,
                unordered: bool) -> None:
    """Tokens of one value that lives at `paths`."""
    kind = type(value)
    if kind is str or kind is int:
        suffix, weight, container = ATOM_CACHE.get(value) or describe_atom(value)
    else:
        suffix, weight, container = describe_child(value)
    if container is None:
        _emit(counts, index.tokens, paths, suffix, weight, 1, weighted)
    elif container:
        walk_restricted(container, paths, counts, weighted, index, ordered, unordered)
