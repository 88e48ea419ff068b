"""7 Wonders scoring: science with wilds, military conflicts, card effects and the victory-point total.

Pure functions over plain lists so they can be tested on hand-built positions.
"""

from __future__ import annotations

from engines.seven_wonders.cards import CARDS, INDEX, Effect

COG, COMPASS, TABLET, SCIENCE_WILD = INDEX["Cog"], INDEX["Compass"], INDEX["Tablet"], INDEX["ScienceWild"]
SHIELD, VICTORY, COIN = INDEX["Shield"], INDEX["Victory"], INDEX["Coin"]
MILITARY_RULES = ("both_neighbours", "next_seat")


def science_points(cog: int, compass: int, tablet: int, wild: int = 0) -> int:
    """Sum of squares plus 7 per complete set, each wild given to the symbol that scores most."""
    if wild == 0:
        return cog * cog + compass * compass + tablet * tablet + 7 * min(cog, compass, tablet)
    return max(science_points(cog + 1, compass, tablet, wild - 1),
               science_points(cog, compass + 1, tablet, wild - 1),
               science_points(cog, compass, tablet + 1, wild - 1))


def military_points(shields: list[int], age: int, rule: str = "both_neighbours") -> list[int]:
    """Victory-point changes of one age's conflicts: the winner of a conflict gains 2*age - 1, the loser -1.

    "both_neighbours" (printed rule): every seat fights its left and its right neighbour.
    "next_seat" (TAG): every seat p fights seat p + 1 and both sides score. Each adjacent pair is then
    fought exactly once, so the two rules agree for 3+ players.
    """
    if rule not in MILITARY_RULES:
        raise ValueError(f"seven_wonders: military rule {rule!r} is not one of {MILITARY_RULES}")
    n, win = len(shields), 2 * age - 1
    delta = [0] * n
    if rule == "both_neighbours":
        for p in range(n):
            for q in {(p - 1) % n, (p + 1) % n}:
                if shields[p] > shields[q]:
                    delta[p] += win
                elif shields[p] < shields[q]:
                    delta[p] -= 1
    else:
        for p in range(n):
            q = (p + 1) % n
            if shields[p] > shields[q]:
                delta[p] += win
                delta[q] -= 1
            elif shields[p] < shields[q]:
                delta[p] -= 1
                delta[q] += win
    return delta


def cards_of_kind(played: list[str], kind: str) -> int:
    """Number of cards of building type `kind` in a tableau."""
    return sum(1 for name in played if CARDS[name].kind == kind)


def effect_gain(effect: Effect, seat: int, played: list[list[str]], stages: list[int], complete: list[bool]) -> int:
    """What `effect` of a card owned by `seat` yields now (`stages`: built wonder stages per seat)."""
    n = len(played)
    seats = ([seat] if effect.self_ else []) + ([(seat - 1) % n, (seat + 1) % n] if effect.neighbours else [])
    if effect.function == "stages":
        return effect.multiplier * sum(stages[s] for s in seats)
    if effect.function == "complete_wonder":
        return effect.multiplier if complete[seat] else 0
    return effect.multiplier * sum(cards_of_kind(played[s], effect.counts) for s in seats)


def end_game_points(seat: int, played: list[list[str]], stages: list[int], complete: list[bool]) -> int:
    """Victory points of the end-game effects of `seat`'s cards (guilds and age III commercial cards)."""
    return sum(effect_gain(e, seat, played, stages, complete)
               for name in played[seat] for e in CARDS[name].end_game if e.resource == "Victory")


def victory_points(seat: int, resources: list[list[int]], played: list[list[str]], stages: list[int],
                   complete: list[bool]) -> int:
    """TAG's game score: Victory + coins // 3 + science + end-game card effects."""
    own = resources[seat]
    science = science_points(own[COG], own[COMPASS], own[TABLET], own[SCIENCE_WILD])
    return own[VICTORY] + own[COIN] // 3 + science + end_game_points(seat, played, stages, complete)
