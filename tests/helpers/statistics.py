"""Sizing test data: how many games a Wilson interval of a given width needs."""

import math

from jbag_pipeline.analysis.statistics import wilson_interval


def games_for_half_width(half_width: float, rate: float = 0.5, confidence: float = 0.95) -> int:
    """Fewest games whose Wilson interval is at most 2 * half_width long when they win at about `rate` (the
    wider of the win counts either side of rate * n; rate 0.5, the default, needs the most games)."""
    if not 0 < half_width < 0.5 or not 0 <= rate <= 1:
        raise ValueError(f"games_for_half_width: need 0 < half_width < 0.5 and rate in [0, 1], "
                         f"got {half_width}, {rate}")

    def wide(n: int) -> bool:
        lengths = [high - low for low, high in (wilson_interval(k, n, confidence)
                                                for k in {math.floor(rate * n), math.ceil(rate * n)})]
        return max(lengths) / 2 > half_width

    low, high = 1, 2
    while wide(high):
        low, high = high, 2 * high
    while high - low > 1:  # bisection: the widest side shrinks with n (up to the rounding of rate * n)
        middle = (low + high) // 2
        low, high = (middle, high) if wide(middle) else (low, middle)
    return high
