"""The card engines' fast paths agree with the slow ones they replace, move by move and payment by payment."""

from __future__ import annotations

import random

import pytest

from engines import load_game
from engines.seven_wonders import trade
from engines.seven_wonders.cards import GOODS, TRADEABLE_CHOICES
from tests.helpers.states import random_play_states

CARD_GAMES = ("cant_stop", "dominion", "sea_salt_paper", "seven_wonders")


def generic_rollout(state, rand, max_actions: int) -> None:
    """MCTS's rollout without the fast path: legal_actions() and the checked apply()."""
    for _ in range(max_actions):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply(actions[int(rand() * len(actions))])


@pytest.mark.parametrize("name", CARD_GAMES)
@pytest.mark.parametrize("max_actions", [200, 7, 0])
def test_random_playout_makes_the_generic_rollouts_moves(name, max_actions):
    game = load_game(name)
    for i, start in enumerate(random_play_states(game, n_games=2, every=9)[:12]):
        before = start.to_json()
        fast, slow = start.clone(), start.clone()
        fast_rng, slow_rng = random.Random(i), random.Random(i)
        fast.random_playout(fast_rng.random, max_actions)
        generic_rollout(slow, slow_rng.random, max_actions)
        assert fast.to_json() == slow.to_json()
        assert (fast.legal_actions(), fast.scores(), fast.returns()) == (slow.legal_actions(), slow.scores(),
                                                                          slow.returns())
        assert fast_rng.random() == slow_rng.random()  # the same number of draws
        assert start.to_json() == before  # the clone's playout left the original alone


def test_single_goods_payments_equal_the_general_search():
    """The good-by-good front equals the unit-by-unit search it short-cuts, budgets included."""
    rng = random.Random(0)
    no_choices = (0,) * len(trade.CHOICE_MASKS)
    for _ in range(400):
        need = tuple(rng.choice((0, 0, 0, 1, 2, 3)) for _ in GOODS)
        left = tuple(rng.randrange(4) for _ in GOODS) + (0,) * TRADEABLE_CHOICES
        right = tuple(rng.randrange(4) for _ in GOODS) + (0,) * TRADEABLE_CHOICES
        prices = (rng.choice((1, 2)), rng.choice((1, 2)), rng.choice((1, 2)), rng.choice((1, 2)))
        budget = rng.randrange(20)
        assert (trade._cheapest_single_goods(need, left, right, prices, budget)
                == trade._search(need, no_choices, left, right, prices, budget)), (need, left, right, prices, budget)


def test_cached_payments_equal_payment_options_with_the_budget():
    """affordable_payments (unlimited front, then the budget) equals payment_options given the budget."""
    from engines.seven_wonders.cards import CARDS, INDEX
    game = load_game("seven_wonders")
    checked = 0
    for state in random_play_states(game, n_games=2, every=5):
        for seat in range(state.n_players):
            own, market = trade.own_supply(state.res[seat]), state._market(seat)
            coins, table = state.res[seat][INDEX["Coin"]], trade.payment_table(own, market)
            for name in state.hands[seat]:
                cost = CARDS[name].cost
                expected = trade.payment_options(trade.goods_needed(cost), own, *market, coins - trade.coin_cost(cost))
                assert trade.affordable_payments(table, cost, own, market, coins) == expected
                checked += 1
    assert checked > 100
