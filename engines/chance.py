"""Faster equivalents of random.Random methods the card engines call in every MCTS iteration.

Each makes exactly the draws CPython's own method makes, in the same order, so games stay reproducible
from their seeds (tests/engines/test_chance.py compares them with the library's methods).
"""

from __future__ import annotations

import random


def _fisher_yates_steps(size: int) -> tuple[tuple[int, int], ...]:
    """(i, bits) for each swap of a shuffle of `size` cards: i from size - 1 down to 1, bits = (i + 1).bit_length()."""
    return tuple((i, (i + 1).bit_length()) for i in range(size - 1, 0, -1))


_TABLED_SIZES = 256
# The steps of every size below _TABLED_SIZES are suffixes of the largest one's (they share its pairs).
_LARGEST = _fisher_yates_steps(_TABLED_SIZES - 1)
_STEPS = [_LARGEST[_TABLED_SIZES - 1 - size:] for size in range(_TABLED_SIZES)]


def shuffle(rng: random.Random, cards: list) -> None:
    """rng.shuffle(cards): CPython's Fisher-Yates with its _randbelow (getrandbits rejection) inlined.

    _randbelow(i + 1) draws getrandbits(bits) until the value is below i + 1; the per-size table of
    (i, bits) saves the range, the addition and bit_length of every step.
    """
    if type(rng) is not random.Random:  # a subclass may draw differently
        rng.shuffle(cards)
        return
    size = len(cards)
    getrandbits = rng.getrandbits
    for i, bits in _STEPS[size] if size < _TABLED_SIZES else _fisher_yates_steps(size):
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]
