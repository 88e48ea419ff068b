"""Paying for 7 Wonders cards and stages: own production first, then goods bought from the two neighbours.

A payment is (coins to the left neighbour, coins to the right neighbour). `payment_options` returns every
Pareto-minimal payment that covers the cost within the budget: no other payment is at most as high to both
neighbours. Own production (single goods, choice producers and wilds) is free; a neighbour sells the goods
of its single and two-good producers (never wilds) at a per-unit price per side and good class.

The engine calls `payment_front` (the exact front from matroid ranks). `payment_options` and
its cache layer (`payment_table`, `affordable_payments`) are the earlier unit-by-unit search, kept as the
reference the tests compare the front with.
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


# -- the exact front by matroid ranks (what the engine calls) -------------------------------------------
#
# Every way to cover a shortage buys a set of units; the sets that can cover it form the bases of a
# transversal matroid over the units (each unit covers one needed good of its mask). Within one good class
# a unit bought costs the same on a side, so a payment is (units from the left x price, units from the right
# x price). Free own units are always worth using to the full (basis exchange swaps a bought unit for an
# unused own one), which fixes the number of units bought, and the number bought from the left then runs
# over a whole interval (bases of the contraction by the own units). Ranks come from Hall's theorem:
# rank(units) = min over sets S of needed goods of (shortage outside S + units whose mask meets S).
# Basic and rare goods share no unit, so their two fronts add up.

N_BASIC = len(BASIC_GOODS)
BASIC_BITS = (1 << N_BASIC) - 1
SELLABLE_MASKS = tuple(1 << g for g in range(N_GOODS)) + CHOICE_MASKS[:TRADEABLE_CHOICES]
NONEMPTY_SUBMASKS = tuple(tuple(s for s in range(1, mask + 1) if s & mask == s) for mask in range(1 << N_GOODS))
BITS = tuple(tuple(g for g in range(N_GOODS) if mask >> g & 1) for mask in range(1 << N_GOODS))
OWN_UNITS = tuple((i, CHOICE_MASKS[k]) for k, i in enumerate(CHOICE_INDEX))
SOLD_UNITS = tuple((i, SELLABLE_MASKS[u]) for u, i in enumerate(SELLABLE))
PRODUCTION = max(GOOD_INDEX + CHOICE_INDEX) + 1  # resources[:PRODUCTION] hold the goods and choice producers


def seat_supply(resources: list[int]) -> tuple:
    """A seat's own production for payment_front: (its resource counts, basic choice units, rare choice units),
    units as (goods mask, count)."""
    return (resources,) + _own_units(tuple(resources[:PRODUCTION]))


def seller_supply(resources: list[int]) -> tuple:
    """What a neighbour sells, as (basic units, rare units) of (goods mask, count): its single and two-good
    producers, never its wilds."""
    return _sold_units(tuple(resources[:PRODUCTION]))


@lru_cache(maxsize=1 << 14)
def _own_units(production: tuple) -> tuple:
    return _units(production, OWN_UNITS)


@lru_cache(maxsize=1 << 14)
def _sold_units(production: tuple) -> tuple:
    return _units(production, SOLD_UNITS)


def _units(production: tuple, sources: tuple) -> tuple:
    """(basic units, rare units) of the `sources` ((resource index, goods mask), ...) that `production` has."""
    basic, rare = [], []
    for i, mask in sources:
        if production[i]:
            (basic if mask & BASIC_BITS else rare).append((mask, production[i]))
    return tuple(basic), tuple(rare)


@lru_cache(maxsize=None)
def cost_parts(cost: tuple) -> tuple:
    """A ((resource, n), ...) cost as (its coins, ((resource index, good, n), ...) of its goods)."""
    return coin_cost(cost), tuple((INDEX[GOODS[good]], good, n) for good, n in goods_needed(cost))


def _class_front(short: list[int], mask: int, own: list, left: list, right: list, left_price: int,
                 right_price: int):
    """The Pareto payments covering `short` on the goods of `mask` (one class) as a list, or None if
    even buying everything the neighbours sell does not cover it."""
    total = 0
    for g in BITS[mask]:
        total += short[g]
    r_own = r_left = r_right = r_all = total  # S = {} gives the shortage itself
    for s in NONEMPTY_SUBMASKS[mask]:
        outside = total
        for g in BITS[s]:
            outside -= short[g]
        o = outside
        for m, c in own:
            if m & s:
                o += c
        lo = ro = 0
        for m, c in left:
            if m & s:
                lo += c
        for m, c in right:
            if m & s:
                ro += c
        if o < r_own:
            r_own = o
        if o + lo < r_left:
            r_left = o + lo
        if o + ro < r_right:
            r_right = o + ro
        if o + lo + ro < r_all:
            r_all = o + lo + ro
    if r_all < total:
        return None
    bought = total - r_own
    front = []
    for a in range(bought - (r_right - r_own), r_left - r_own + 1):
        front.append((a * left_price, (bought - a) * right_price))
    return front


FREE = ((0, 0),)  # the payment of what own production covers
NO_SUPPLY = ((), ())  # a neighbour that sells nothing
UNLIMITED = 1 << 30  # a budget no payment reaches


def payment_front(need: tuple, own: tuple, left: tuple, right: tuple, prices: tuple,
                  budget: int = UNLIMITED) -> tuple:
    """payment_options: `need` as cost_parts' goods, `own` from seat_supply, `left`/`right` from seller_supply
    (or NO_SUPPLY), `prices` as in payment_options, `budget` the coins to spend on trade."""
    if budget < 0:
        return ()
    resources = own[0]
    short = None
    basic = rare = 0
    for i, good, n in need:
        missing = n - resources[i]
        if missing > 0:
            if short is None:
                short = [0] * N_GOODS
            short[good] = missing
            if good < N_BASIC:
                basic |= 1 << good
            else:
                rare |= 1 << good
    if short is None:
        return FREE
    front = _shortage_front(tuple(short), basic, rare, own[1], own[2], left, right, prices)
    affordable = []
    for payment in front:
        if payment[0] + payment[1] <= budget:
            affordable.append(payment)
    return tuple(affordable)


@lru_cache(maxsize=1 << 16)
def _shortage_front(short: tuple, basic: int, rare: int, own_basic: tuple, own_rare: tuple, left: tuple, right: tuple,
                    prices: tuple) -> tuple:
    """payment_front before the budget: the Pareto payments covering `short` (per good; `basic`/`rare` its masks),
    () if none. Memoised: MCTS meets the same shortages, production and neighbours again and again."""
    front = None
    if basic:
        front = _class_front(short, basic, own_basic, left[0], right[0], prices[0], prices[2])
        if front is None:
            return ()
    if rare:
        rare_front = _class_front(short, rare, own_rare, left[1], right[1], prices[1], prices[3])
        if rare_front is None:
            return ()
        front = rare_front if front is None else pareto([(a + c, b + d) for a, b in front for c, d in rare_front])
    return tuple(front)


# -- the unit-by-unit search (the reference) ------------------------------------------------------------

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
    affordable = []
    for payment in front:
        if payment[0] + payment[1] <= budget:
            affordable.append(payment)
    return tuple(affordable)


def pareto(payments) -> list:
    """The payments not dominated by another (another at most as high to both sides)."""
    ordered = sorted(set(payments))
    front, best_right = [], None
    for to_left, to_right in ordered:
        if best_right is None or to_right < best_right:
            front.append((to_left, to_right))
            best_right = to_right
    return front
