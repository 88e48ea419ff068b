"""Determinization for 7 Wonders: a full state consistent with what one seat sees.

Hidden from seat p: other seats' hands, the discard pile (unless p is building from it) and other seats'
choices of the current round. The hidden cards are pooled per age (hands hold current-age cards only),
put in a canonical order and re-dealt uniformly, so hand sizes and per-age counts are preserved. Guilds
p has not seen get fresh identities among the guilds p has not seen (which guilds are in the game is
hidden too). Hidden choices are re-sampled uniformly from the new hands' legal choices. The result
depends only on p's observation and `rng`, never on the hidden cards themselves.
"""

from __future__ import annotations

import random

from engines.chance import shuffle
from engines.seven_wonders.cards import CARDS, GUILD, GUILDS

GUILD_AGE = 3


def determinize(state, player: int, rng: random.Random):
    """A copy of `state` with everything `player` cannot see re-sampled from `rng`."""
    return determinizer(state, player)(rng)


def determinizer(state, player: int):
    """determinize(state, player, rng) as a function of rng: the hidden pools are gathered and sorted once (MCTS
    samples many determinizations of one state); each sample makes determinize's draws in its order."""
    others = [q for q in range(state.n_players) if q != player]
    discard_hidden = state.builder != player
    pools: dict[int, list[str]] = {}
    for q in others:
        for name in state.hands[q]:
            pools.setdefault(CARDS[name].age, []).append(name)
    if discard_hidden:
        for name in state.discard:
            pools.setdefault(CARDS[name].age, []).append(name)
    seen = set(state.hands[player]).union(*state.played)
    if not discard_hidden:
        seen.update(state.discard)
    plan = []  # per pool, in the order the draws are made: (age, its cards sorted, guilds to draw, unseen guilds)
    for age, pool in pools.items():
        # Only the age-III pool can hold guilds (pools are keyed by the cards' own age).
        guilds = sum(1 for name in pool if CARDS[name].kind == GUILD) if age == GUILD_AGE else 0
        pool.sort()
        if guilds:
            plan.append((age, [name for name in pool if CARDS[name].kind != GUILD], guilds,
                         sorted(set(GUILDS) - seen)))
        else:
            plan.append((age, pool, 0, None))
    deals = [(q, len(state.hands[q])) for q in others if state.hands[q]]
    discard_ages = sorted(pools)
    current_age = state.age
    resampled = [q for q in others if state.pending[q] is not None]
    keeps_legal = player == state.current_player  # a mover's own choices read nothing hidden from it
    clone = state.clone

    def sample(rng: random.Random):
        other = clone()
        other._choices = {}  # other seats' hands are re-dealt
        if not keeps_legal:
            other._legal = None
        shuffled = {}
        for age, cards, guilds, unseen in plan:
            cards = sorted(cards + rng.sample(unseen, guilds)) if guilds else cards[:]
            shuffle(rng, cards)
            shuffled[age] = cards
        start = 0
        for q, size in deals:
            other.hands[q] = shuffled[current_age][start:start + size]
            start += size
        if deals:
            del shuffled[current_age][:start]
        if discard_hidden:
            other.discard = [name for age in discard_ages for name in shuffled[age]]
        for q in resampled:
            choices = other.seat_actions(q)
            other.pending[q] = choices[rng.randrange(len(choices))]
        other.chance_seed = rng.getrandbits(64)
        return other

    return sample
