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


def test_rank_payment_front_equals_the_exhaustive_search():
    """payment_front (matroid ranks) equals payment_options (unit-by-unit search) on random productions and
    markets, discounts included, with own choice producers, wilds and neighbours' two-good producers."""
    from engines.seven_wonders.cards import CARDS, INDEX, RESOURCES, WONDERS
    rng = random.Random(1)
    costs = [card.cost for card in CARDS.values()] + [cost for w in WONDERS.values() for side in w.costs
                                                      for cost in side]
    costs += [tuple((good, rng.randrange(1, 4)) for good in rng.sample(GOODS, rng.randrange(1, 6)))
              for _ in range(100)]
    several = 0
    for _ in range(3000):
        res = [[rng.choice((0, 0, 0, 1, 1, 2)) if i < INDEX["Cog"] else 0 for i in range(len(RESOURCES))]
               for _ in range(3)]
        prices = tuple(rng.choice((1, 2)) for _ in range(4))
        cost = rng.choice(costs)
        expected = trade.payment_options(trade.goods_needed(cost), trade.own_supply(res[0]),
                                         trade.sellable_units(res[1]), trade.sellable_units(res[2]), prices,
                                         trade.UNLIMITED)
        assert trade.payment_front(trade.cost_parts(cost)[1], trade.seat_supply(res[0]), trade.seller_supply(res[1]),
                                   trade.seller_supply(res[2]), prices) == expected, (cost, res, prices)
        several += len(expected) > 1
    assert several > 300  # many fronts with a real choice between the sides


def test_budgeted_payment_front_equals_payment_options_in_played_positions():
    """What seat_actions offers per card and wonder stage equals the exhaustive search within the coins."""
    from engines.seven_wonders.cards import CARDS, INDEX, WONDERS
    game = load_game("seven_wonders", stage_trading=True)
    checked = 0
    for state in random_play_states(game, n_games=2, every=5):
        n = state.n_players
        for seat in range(n):
            left, right, prices = state._market(seat)
            own, coins = trade.own_supply(state.res[seat]), state.res[seat][INDEX["Coin"]]
            supplies = (trade.seat_supply(state.res[seat]), trade.seller_supply(state.res[(seat - 1) % n]),
                        trade.seller_supply(state.res[(seat + 1) % n]))
            wonder, side, stage, _ = state.boards[seat]
            stage_costs = WONDERS[wonder].costs[side][stage - 1: stage]
            for cost in [CARDS[name].cost for name in state.hands[seat]] + list(stage_costs):
                expected = trade.payment_options(trade.goods_needed(cost), own, left, right, prices,
                                                 coins - trade.coin_cost(cost))
                coin, need = trade.cost_parts(cost)
                assert trade.payment_front(need, *supplies, prices, coins - coin) == expected
                checked += 1
    assert checked > 100


def card_by_card_hand_points(hand, played, victory_threshold):
    """Sea Salt & Paper hand points counted card by card (the reference for cards.hand_points)."""
    from engines.sea_salt_paper import cards
    n = len(cards.SUITES)
    suites, collectors, duos, played_suites = [0] * n, [0] * n, [0] * n, [0] * n
    multipliers, mermaids = [], 0
    for kind in hand:
        suite, ctype = cards.SUITE_ID[kind], cards.TYPE_ID[kind]
        if ctype == 2:
            multipliers.append(suite)
            continue
        suites[suite] += 1
        if ctype == 0:
            duos[suite] += 1
        elif ctype == 1:
            collectors[suite] += 1
        else:
            mermaids += 1
    if mermaids >= 4:
        return victory_threshold
    for kind in played:
        played_suites[cards.SUITE_ID[kind]] += 1
        suites[cards.SUITE_ID[kind]] += 1
    score = cards.pair_points(duos) + (cards.pair_points(played_suites) if played else 0)
    for suite, base, increment in cards.COLLECTOR_IDS:
        if collectors[suite]:
            score += base + increment * (collectors[suite] - 1)
    for suite in multipliers:
        score += cards.MULTIPLIER_BY_ID[suite] * suites[suite]
    if mermaids:
        score += sum(sorted(cards.colour_counts(hand, played), reverse=True)[:mermaids])
    return score


def test_slot_count_hand_points_equal_the_card_by_card_count():
    """hand_points (per (suite, type) slot counts) equals counting card by card on random hands and areas."""
    from engines.sea_salt_paper.cards import DECK, hand_points, slot_counts
    rng = random.Random(2)
    scores = set()
    for _ in range(20000):
        deck = list(DECK)
        rng.shuffle(deck)
        hand, played = deck[:rng.randrange(16)], deck[20:20 + rng.choice((0, 0, 2, 4, 6))]
        expected = card_by_card_hand_points(hand, played, 30)
        assert hand_points(hand, played, 30) == expected == hand_points(hand, played, 30, slot_counts(hand))
        scores.add(expected)
    assert len(scores) > 20  # collectors, multipliers, mermaids and pairs all vary


@pytest.mark.parametrize("name", ["sea_salt_paper", "seven_wonders"])
def test_determinize_keeps_only_legal_actions_that_are_still_right(name):
    """A determinization by the mover keeps its cached legal actions: they equal a fresh listing; by another
    seat they are listed afresh."""
    game = load_game(name)
    rng = random.Random(3)
    for state in random_play_states(game, n_games=2, every=3):
        if state.is_terminal():
            continue
        state.legal_actions()  # cache them, as MCTS does at the root
        for seat in range(state.n_players):
            sample = state.determinize(seat, rng)
            cached = sample.legal_actions()
            fresh = sample.clone()
            setattr(fresh, "legal" if name == "sea_salt_paper" else "_legal", None)
            assert cached == fresh.legal_actions()


@pytest.mark.parametrize("name", CARD_GAMES)
def test_a_determinizer_samples_as_fresh_determinize_calls_and_its_samples_are_independent(name):
    """MCTS samples every iteration from one state.determinizer(seat): each sample equals determinize on a
    fresh copy with the same rng, survives the previous sample's rollout, and the state stays as it was."""
    from engines.agents.leaf_evaluators import random_rollout
    game = load_game(name)
    for i, state in enumerate(random_play_states(game, n_games=2, every=11)[:8]):
        before = state.to_json()
        for seat in range(game.n_players):
            sample = state.determinizer(seat)
            ours, fresh = random.Random(i), random.Random(i)
            for k in range(3):
                drawn, expected = sample(ours), state.clone().determinize(seat, fresh)
                assert drawn.to_json() == expected.to_json() and drawn.legal_actions() == expected.legal_actions()
                random_rollout(drawn, random.Random(k).random, 30)  # must not leak into the next sample
            assert ours.random() == fresh.random()
        assert state.to_json() == before


def test_sea_salt_paper_hand_counts_and_points_follow_the_cards():
    """The slot counts and hand points a Sea Salt and Paper state keeps up to date as cards move equal a recount of
    its hands and played duos, along random games, determinizations by every seat and rollouts from them."""
    from engines.agents.leaf_evaluators import random_rollout
    from engines.sea_salt_paper.cards import hand_points, slot_counts
    game = load_game("sea_salt_paper")
    rng, checked = random.Random(5), set()

    def check(state):
        for seat in range(state.n_players):
            expected = hand_points(state.hands[seat], state.played[seat], game.threshold)
            assert state.counts[seat] == slot_counts(state.hands[seat])
            assert state.points[seat] in (None, expected)  # a kept value is the right one
            assert state.hand_points(seat) == expected
            checked.add(expected)

    for state in random_play_states(game, n_games=3, every=1):
        check(state)
        for seat in range(state.n_players):
            sample = state.determinizer(seat)(rng)
            check(sample)
            random_rollout(sample, rng.random, 10)
            check(sample)
    assert len(checked) > 15  # hands of many values were followed
