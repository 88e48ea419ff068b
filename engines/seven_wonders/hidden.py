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
    sample = state.clone()
    sample._choices = {}  # other seats' hands are re-dealt
    if player != state.current_player:
        sample._legal = None  # the mover's hand is re-dealt; a mover's own choices read nothing hidden from it
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
    for age, pool in pools.items():
        # Only the age-III pool can hold guilds (pools are keyed by the cards' own age).
        guilds = sum(1 for name in pool if CARDS[name].kind == GUILD) if age == GUILD_AGE else 0
        pool.sort()
        if guilds:
            unseen = sorted(set(GUILDS) - seen)
            pool[:] = sorted([name for name in pool if CARDS[name].kind != GUILD] + rng.sample(unseen, guilds))
        shuffle(rng, pool)
    for q in others:
        size = len(state.hands[q])
        if size:
            pool = pools[state.age]
            sample.hands[q] = pool[:size]
            del pool[:size]
    if discard_hidden:
        sample.discard = [name for age in sorted(pools) for name in pools[age]]
    for q in others:
        if state.pending[q] is not None:
            choices = sample.seat_actions(q)
            sample.pending[q] = choices[rng.randrange(len(choices))]
    sample.chance_seed = rng.getrandbits(64)
    return sample
