"""Paying for 7 Wonders cards and stages: own production first, then goods bought from the two neighbours.

A payment is (coins to the left neighbour, coins to the right neighbour). `payment_options` returns every
Pareto-minimal payment that covers the cost within the budget: no other payment is at most as high to both
neighbours. Own production (single goods, choice producers and wilds) is free; a neighbour sells the goods
of its single and two-good producers (never wilds) at a per-unit price per side and good class.
"""

from __future__ import annotations

from functools import lru_cache

from engines.seven_wonders.cards import BASIC_GOODS, CHOICE_PRODUCERS, GOODS, INDEX, TRADEABLE_CHOICES

GOOD_INDEX = tuple(INDEX[g] for g in GOODS)
CHOICE_INDEX = tuple(INDEX[name] for name, _ in CHOICE_PRODUCERS)
CHOICE_GOODS = tuple(frozenset(goods) for _, goods in CHOICE_PRODUCERS)
CHOICE_MASKS = tuple(sum(1 << g for g in goods) for goods in CHOICE_GOODS)
N_GOODS = len(GOODS)
NO_UNITS = ()  # a neighbour that sells nothing
ZERO_CHOICES = (0,) * len(CHOICE_MASKS)
SELLABLE = tuple(GOOD_INDEX) + CHOICE_INDEX[:TRADEABLE_CHOICES]


@lru_cache(maxsize=None)
def goods_needed(cost: tuple) -> tuple:
    """The goods of a ((resource, n), ...) cost as ((good index, n), ...); coins are not goods."""
    return tuple((GOODS.index(resource), n) for resource, n in cost if resource != "Coin")


def own_supply(resources: list[int]) -> tuple:
    """What a seat produces for itself: counts of the 7 single goods, and (producer, count) of its choices."""
    return (tuple(resources[i] for i in GOOD_INDEX),
            tuple((k, resources[i]) for k, i in enumerate(CHOICE_INDEX) if resources[i]))


def sellable_units(resources: list[int]) -> tuple:
    """What a neighbour can sell, as (unit, count) pairs: units 0-6 are single goods, 7-12 two-good producers."""
    return tuple((unit, resources[i]) for unit, i in enumerate(SELLABLE) if resources[i])


UNLIMITED = 1 << 30  # a budget no payment reaches
MAX_TABLES = 1 << 15  # payment tables kept before the cache starts afresh
_TABLES: dict = {}


def payment_table(own: tuple, market: tuple) -> dict:
    """The cache of payments for one seller situation (own_supply, (left, right, prices)): cost -> payments.

    MCTS meets the same production and neighbours again and again; only the coins differ, and
    affordable_payments applies them afterwards.
    """
    key = (own, market)
    table = _TABLES.get(key)
    if table is None:
        if len(_TABLES) >= MAX_TABLES:
            _TABLES.clear()
        table = _TABLES[key] = {}
    return table


def affordable_payments(table: dict, cost: tuple, own: tuple, market: tuple, coins: int) -> tuple:
    """payment_options for `cost` ((resource, n), ... with coins) with `coins` to spend, through `table`.

    Equal to filtering the unlimited-budget payments by their sum: a payment that fits the budget is
    dominated only by payments that fit it too, so the Pareto front commutes with the budget filter.
    """
    entry = table.get(cost)
    if entry is None:
        options = payment_options(goods_needed(cost), own, market[0], market[1], market[2], UNLIMITED)
        entry = table[cost] = (options, max((a + b for a, b in options), default=0))
    options, dearest = entry
    budget = coins - coin_cost(cost)
    if dearest <= budget:
        return options  # dearest >= 0, so the budget is not negative either
    return tuple(p for p in options if p[0] + p[1] <= budget)


@lru_cache(maxsize=None)
def coin_cost(cost: tuple) -> int:
    """The coins a ((resource, n), ...) cost names (each resource is named once)."""
    return dict(cost).get("Coin", 0)


def payment_options(need: tuple, own: tuple, left: tuple, right: tuple, prices: tuple, budget: int) -> tuple:
    """Pareto-minimal (to_left, to_right) payments for goods `need` (goods_needed form), sorted; () if none.

    `own` comes from own_supply, `left`/`right` from sellable_units (NO_UNITS: no trading);
    `prices` = (left basic, left rare, right basic, right rare) per unit; `budget` is the coins to spend.
    """
    if budget < 0:
        return ()
    own_goods, own_choices = own
    rest = [0] * N_GOODS
    total = needed = 0
    for good, n in need:
        short = n - own_goods[good]
        if short > 0:
            rest[good] = short
            total += short
            needed |= 1 << good
    if not total:
        return ((0, 0),)
    # Keep only what can help, at most as many units as needed, so that the cache hits often.
    limits = rest + [0] * TRADEABLE_CHOICES
    choices, free = ZERO_CHOICES, 0
    if own_choices:
        choices = [0] * len(CHOICE_MASKS)
        for k, count in own_choices:
            if CHOICE_MASKS[k] & needed:
                choices[k] = min(count, sum(rest[g] for g in CHOICE_GOODS[k]))
                free += choices[k]
        choices = tuple(choices)
    if total - free > 0 and budget < min(prices) * (total - free):
        return ()
    for k in range(TRADEABLE_CHOICES):
        if CHOICE_MASKS[k] & needed:
            limits[N_GOODS + k] = sum(rest[g] for g in CHOICE_GOODS[k])
    units = []
    for side in (left, right):
        counts = [0] * (N_GOODS + TRADEABLE_CHOICES)
        for unit, count in side:
            counts[unit] = count if count < limits[unit] else limits[unit]
        units.append(tuple(counts))
    if free + sum(units[0]) + sum(units[1]) < total:
        return ()
    return _cheapest(tuple(rest), choices, units[0], units[1], prices, min(budget, max(prices) * total))


@lru_cache(maxsize=1 << 16)
def _cheapest(need: tuple, own_choices: tuple, left: tuple, right: tuple, prices: tuple, budget: int) -> tuple:
    if not any(own_choices) and not any(left[N_GOODS:]) and not any(right[N_GOODS:]):
        return _cheapest_single_goods(need, left, right, prices, budget)
    return _search(need, own_choices, left, right, prices, budget)


def _search(need: tuple, own_choices: tuple, left: tuple, right: tuple, prices: tuple, budget: int) -> tuple:
    """The Pareto front over every way to source each needed unit (own choices, either side's units)."""
    memo: dict = {}

    def solve(need, own_choices, left, right) -> frozenset:
        key = (need, own_choices, left, right)
        if key in memo:
            return memo[key]
        good = next((g for g, n in enumerate(need) if n), -1)
        if good < 0:
            return frozenset({(0, 0)})
        less = need[:good] + (need[good] - 1,) + need[good + 1:]
        found: set = set()
        for k, count in enumerate(own_choices):
            if count and good in CHOICE_GOODS[k]:
                found |= solve(less, own_choices[:k] + (count - 1,) + own_choices[k + 1:], left, right)
        rare = good >= len(BASIC_GOODS)
        for side, units in ((0, left), (1, right)):
            price = prices[2 * side + rare]
            sources = [good] + [N_GOODS + k for k in range(TRADEABLE_CHOICES) if good in CHOICE_GOODS[k]]
            for u in sources:
                if not units[u]:
                    continue
                fewer = units[:u] + (units[u] - 1,) + units[u + 1:]
                sub = solve(less, own_choices, fewer, right) if side == 0 else solve(less, own_choices, left, fewer)
                for to_left, to_right in sub:
                    paid = (to_left + price, to_right) if side == 0 else (to_left, to_right + price)
                    if paid[0] + paid[1] <= budget:
                        found.add(paid)
        result = frozenset(pareto(found))
        memo[key] = result
        return result

    return tuple(sorted(solve(need, own_choices, left, right)))


def _cheapest_single_goods(need: tuple, left: tuple, right: tuple, prices: tuple, budget: int) -> tuple:
    """_cheapest when only single goods help: each good is split between the sides on its own, so the front is
    the Pareto front of the sum of the goods' splits (a dominated part only makes dominated sums)."""
    front = [(0, 0)]
    for good, n in enumerate(need):
        if not n:
            continue
        rare = good >= len(BASIC_GOODS)
        to_left, to_right = prices[rare], prices[2 + rare]
        splits = [(x * to_left, (n - x) * to_right) for x in range(max(0, n - right[good]), min(left[good], n) + 1)]
        if not splits:
            return ()
        front = pareto([(a + c, b + d) for a, b in front for c, d in splits])
    return tuple(p for p in front if p[0] + p[1] <= budget)


def pareto(payments) -> list:
    """The payments not dominated by another (another at most as high to both sides)."""
    ordered = sorted(set(payments))
    front, best_right = [], None
    for to_left, to_right in ordered:
        if best_right is None or to_right < best_right:
            front.append((to_left, to_right))
            best_right = to_right
    return front
