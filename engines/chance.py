"""Faster equivalents of random.Random methods the card engines call in every MCTS iteration.

Each makes exactly the draws CPython's own method makes, in the same order, so games stay reproducible
from their seeds (tests/engines/test_chance.py compares them with the library's methods).
"""

from __future__ import annotations

import random


def shuffle(rng: random.Random, cards: list) -> None:
    """rng.shuffle(cards): CPython's Fisher-Yates with its _randbelow (getrandbits rejection) inlined."""
    if type(rng) is not random.Random:  # a subclass may draw differently
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
