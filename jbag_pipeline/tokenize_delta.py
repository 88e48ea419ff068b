"""The change in tokens (mode both, positive-integer tokens on) from one document to another, walking only what
differs: a state's children differ from it in a few places, so a child counted as its parent plus this change
costs what changed, not the whole document.

changes(old, new) lists the smallest differing values with the paths they live at; tokens_of_change counts
one of them; delta(old, new) is their sum. Unchanged parts are skipped by Python's ==, which holds
1 == 1.0 == True: the two documents must keep the JSON type of every value, as one engine's documents do
(tests/engines/test_json_types.py checks each engine).
"""

from __future__ import annotations

from itertools import compress, count
from operator import ne

from jbag_pipeline.tokenize import _ATOMS, _atom, _child, _count, _walk_both
from jbag_pipeline.tokenize_restricted import TokenPaths, _walk

MISSING = object()  # a value absent on one side of a change
_PATHS_CACHE_LIMIT = 100_000

Change = tuple  # (before, after, paths): values at `paths` (a tuple of path strings), either may be MISSING


class TokenDelta:
    """Token changes between documents, restricted to the tokens of `index` (None: every token)."""

    def __init__(self, index: TokenPaths | None):
        if index is not None and not isinstance(index, TokenPaths):
            raise ValueError(f"TokenDelta: index must be a TokenPaths (from token_paths) or None, got {index!r}")
        self.index = index
        self._wanted = None if index is None else index.tokens
        self._allowed = None if index is None else index.paths
        self._paths: dict[tuple, tuple[str, ...]] = {}  # (parent paths, key or index, in a list) -> child paths

    def delta(self, old: dict | list, new: dict | list) -> dict[str, int]:
        """tokenize_state(new) - tokenize_state(old), restricted, zeros left out."""
        counts: dict[str, int] = {}
        for change in self.changes(old, new):
            for token, times in self.tokens_of_change(*change).items():
                counts[token] = counts.get(token, 0) + times
        return {token: times for token, times in counts.items() if times}

    def changes(self, old: dict | list, new: dict | list) -> list[Change]:
        """The differing values of two documents, as deep as both sides are containers of one type; values under
        which no wanted token can lie are left out."""
        found: list[Change] = []
        if type(old) is type(new) and type(new) in (dict, list):
            self._diff(old, new, ("",), found)
        else:
            found.append((old, new, ("",)))
        return found

    def _diff(self, old: dict | list, new: dict | list, paths: tuple[str, ...], found: list) -> None:
        if type(new) is dict:
            pairs = [(before, value, key) for key, value in new.items()
                     if (before := old.get(key, MISSING)) is MISSING or before != value]
            if len(old) != len(new) or old.keys() != new.keys():
                pairs += [(before, MISSING, key) for key, before in old.items() if key not in new]
            in_list = False
        else:
            changed = list(compress(count(), map(ne, old, new)))
            if len(old) != len(new):
                changed.extend(range(min(len(old), len(new)), max(len(old), len(new))))
            pairs = [(old[i] if i < len(old) else MISSING, new[i] if i < len(new) else MISSING, i) for i in changed]
            in_list = True
        known = self._paths
        for before, value, key in pairs:
            child_paths = known.get((paths, key, in_list))
            if child_paths is None:
                child_paths = self._child_paths(paths, key, in_list)
            if not child_paths:
                continue
            kind = type(value)
            if kind is type(before) and (kind is dict or kind is list):
                self._diff(before, value, child_paths, found)
            else:
                found.append((before, value, child_paths))

    def _child_paths(self, paths: tuple[str, ...], key, in_list: bool) -> tuple[str, ...]:
        """The paths of a dict value (key) or list item (in_list: indexed and plain) under `paths`, restricted."""
        if len(self._paths) >= _PATHS_CACHE_LIMIT:
            self._paths.clear()
        child = [f"{p}[{key}]" for p in paths] if in_list else [f"{p}.{key}" for p in paths]
        if self._allowed is not None:
            child = [p for p in child if p in self._allowed]
        found = self._paths[(paths, key, in_list)] = tuple(child) + paths if in_list else tuple(child)
        return found

    def tokens_of_change(self, before, after, paths: tuple[str, ...]) -> dict[str, int]:
        """The tokens of `after` minus those of `before` (either may be MISSING), both living at `paths`."""
        counts: dict[str, int] = {}
        wanted = self._wanted
        for item, sign in ((before, -1), (after, 1)):
            if item is MISSING:
                continue
            kind = type(item)
            if kind is str or kind is int:
                suffix, weight, container = _ATOMS.get(item) or _atom(item)
            else:
                suffix, weight, container = _child(item)
            if container is None:
                for p in paths:
                    token = p + suffix
                    if wanted is None or token in wanted:
                        counts[token] = counts.get(token, 0) + sign
                    if weight and (wanted is None or p in wanted):
                        counts[p] = counts.get(p, 0) + sign * weight
            elif container:
                for token, times in self._container_tokens(container, list(paths)).items():
                    counts[token] = counts.get(token, 0) + sign * times
        return counts

    def _container_tokens(self, container: dict | list, paths: list[str]) -> dict[str, int]:
        if self.index is not None:
            found: dict[str, int] = {}
            _walk(container, paths, found, True, self.index, True, True)
            return found
        tokens: list[str] = []
        weights: dict[str, int] = {}
        _walk_both(container, paths, tokens, weights)
        return _count(tokens, weights)
