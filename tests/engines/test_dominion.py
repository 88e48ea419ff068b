"""Rules, hidden information, serialisation and playouts of the Dominion (First Game) engine."""

import json
import random
from collections import Counter

import pytest

from engines import load_game
from engines.dominion.game import Dominion
from engines.dominion.cards import CARDS

START_SUPPLY_4P = {"PROVINCE": 12, "DUCHY": 12, "ESTATE": 12, "GOLD": 30, "SILVER": 40, "COPPER": 32,
                   "CELLAR": 10, "MARKET": 10, "MERCHANT": 10, "MILITIA": 10, "MINE": 10, "MOAT": 10,
                   "REMODEL": 10, "SMITHY": 10, "VILLAGE": 10, "WORKSHOP": 10}
FILLER = ["ESTATE", "ESTATE", "COPPER", "COPPER", "COPPER", "ESTATE", "COPPER", "COPPER", "COPPER", "COPPER"]


def game_with(hand, draw=None, discard=None, n_players=4, others=None):
    """A fresh game whose seat 0 holds `hand` (draw pile `draw`, top first); others' hands optional."""
    state = Dominion(n_players=n_players).new_state(seed=3)
    state.hands[0] = list(hand)
    state.draw_piles[0] = list(FILLER if draw is None else draw)
    state.discards[0] = list(discard or [])
    for seat, cards in (others or {}).items():
        state.hands[seat] = list(cards)
    return state


def all_cards(state):
    """Every card of the game, as counts per card type: supply + all player zones + trash."""
    total = Counter(state.supply)
    for zones in (state.hands, state.draw_piles, state.discards, state.tableaux):
        for zone in zones:
            total.update(zone)
    total.update(state.trash)
    return total


def card_total(state):
    return (sum(state.supply.values()) + len(state.trash)
            + sum(len(zone) for zones in (state.hands, state.draw_piles, state.discards, state.tableaux)
                  for zone in zones))


def random_playout(game, seed, check=None):
    """Play uniformly random actions from `seed`; call check(state, step) after every action."""
    state = game.new_state(seed=seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        state.apply(action)
        actions.append(action)
        if check is not None:
            check(state, len(actions))
        assert len(actions) < 5000, f"seed {seed}: random game did not end in 5000 actions"
    return state, actions


# ----- setup --------------------------------------------------------------------------------------

def test_setup_has_tags_four_player_supply_and_starting_decks():
    state = load_game("dominion").new_state(seed=11)
    assert state.n_players == 4 and state.current_player == 0 and state.phase == "Play"
    assert state.supply == START_SUPPLY_4P
    for seat in range(4):
        assert len(state.hands[seat]) == 5 and len(state.draw_piles[seat]) == 5
        assert Counter(state.hands[seat] + state.draw_piles[seat]) == {"COPPER": 7, "ESTATE": 3}
    assert state.scores() == [3.0] * 4


def test_two_players_get_eight_victory_cards_and_bad_params_are_rejected():
    supply = Dominion(n_players=2).new_state().supply
    assert (supply["PROVINCE"], supply["DUCHY"], supply["ESTATE"]) == (8, 8, 8)
    for params in ({"n_players": 5}, {"n_players": 1}, {"hand_size": 0}, {"hand_size": "5"}, {"colour": 1}):
        with pytest.raises(ValueError, match="dominion"):
            Dominion(**params)


# ----- treasures, buying, turn structure ----------------------------------------------------------

def test_treasures_count_from_hand_and_buys_are_most_expensive_first():
    state = game_with(["COPPER", "SILVER", "GOLD", "ESTATE", "ESTATE"])
    assert state.legal_actions() == ["end_phase"]  # no action cards
    state.apply("end_phase")
    assert state.phase == "Buy" and state.available_spend() == 6
    legal = state.legal_actions()
    assert legal[0] == ("buy", "GOLD") and ("buy", "PROVINCE") not in legal and legal[-1] == "end_phase"
    costs = [CARDS[a[1]].cost for a in legal[:-1]]
    assert costs == sorted(costs, reverse=True) and max(costs) == 6 and min(costs) == 0


def test_buying_ends_the_turn_discards_and_draws_five():
    state = game_with(["COPPER", "COPPER", "SILVER", "ESTATE", "ESTATE"])
    state.apply("end_phase")
    state.apply(("buy", "SILVER"))
    assert state.supply["SILVER"] == 39
    assert Counter(state.discards[0]) == {"COPPER": 2, "SILVER": 2, "ESTATE": 2}
    assert state.hands[0] == FILLER[:5] and state.draw_piles[0] == FILLER[5:]
    assert (state.turn_counter, state.current_player, state.phase, state.actions, state.buys) == (1, 1, "Play", 1, 1)


def test_round_counter_advances_when_play_returns_to_seat_zero():
    state = Dominion(n_players=2).new_state(seed=1)
    for _ in range(4):  # play, buy-phase end for both seats
        state.apply("end_phase")
    assert (state.turn_counter, state.round_counter, state.current_player) == (2, 1, 0)


# ----- kingdom cards ------------------------------------------------------------------------------

def test_village_gives_a_card_and_two_actions():
    state = game_with(["VILLAGE", "SMITHY", "COPPER", "COPPER", "ESTATE"])
    state.apply(("play", "VILLAGE"))
    assert state.actions == 2 and len(state.hands[0]) == 5 and state.tableaux[0] == ["VILLAGE"]
    assert state.phase == "Play" and state.legal_actions() == [("play", "SMITHY"), "end_phase"]


def test_smithy_draws_three_and_uses_the_last_action():
    state = game_with(["SMITHY", "COPPER", "COPPER", "ESTATE", "ESTATE"])
    state.apply(("play", "SMITHY"))
    assert len(state.hands[0]) == 7 and state.hands[0][-3:] == FILLER[:3]
    assert state.phase == "Buy"  # no actions left


def test_moat_played_draws_two():
    state = game_with(["MOAT", "COPPER", "COPPER", "ESTATE", "ESTATE"])
    state.apply(("play", "MOAT"))
    assert len(state.hands[0]) == 6 and state.phase == "Buy"


def test_market_gives_card_action_buy_and_money():
    state = game_with(["MARKET", "COPPER", "COPPER", "ESTATE", "ESTATE"], draw=["COPPER"] + FILLER)
    state.apply(("play", "MARKET"))
    assert (len(state.hands[0]), state.actions, state.buys, state.additional_spend) == (5, 1, 2, 1)
    state.apply("end_phase")
    assert state.available_spend() == 4
    state.apply(("buy", "CELLAR"))
    assert state.current_player == 0 and state.buys == 1 and state.available_spend() == 2
    state.apply(("buy", "MOAT"))
    assert state.current_player == 1 and Counter(state.discards[0])["MOAT"] == 1


@pytest.mark.parametrize("hand, bonus", [
    (["MERCHANT", "SILVER", "COPPER", "ESTATE", "ESTATE"], 1),
    (["MERCHANT", "COPPER", "COPPER", "ESTATE", "ESTATE"], 0),
])
def test_merchant_bonus_needs_a_silver_in_hand_at_the_start_of_buy(hand, bonus):
    state = game_with(hand, draw=["ESTATE"] + FILLER)
    treasure = sum(CARDS[c].treasure for c in hand)
    state.apply(("play", "MERCHANT"))
    assert state.actions == 1 and len(state.hands[0]) == 5
    state.apply("end_phase")
    assert state.available_spend() == treasure + bonus


def test_two_merchants_give_one_dollar_each():
    state = game_with(["MERCHANT", "MERCHANT", "SILVER", "ESTATE", "ESTATE"], draw=["ESTATE", "ESTATE"] + FILLER)
    state.apply(("play", "MERCHANT"))
    state.apply(("play", "MERCHANT"))
    state.apply("end_phase")
    assert state.available_spend() == 2 + 2


def test_cellar_discards_one_at_a_time_then_draws_that_many():
    state = game_with(["CELLAR", "ESTATE", "ESTATE", "COPPER", "SILVER"], draw=["GOLD", "GOLD", "GOLD"])
    state.apply(("play", "CELLAR"))
    assert state.actions == 1 and state.pending["card"] == "CELLAR"
    assert state.legal_actions() == [("discard", "ESTATE"), ("discard", "SILVER"), ("discard", "COPPER"), "done"]
    state.apply(("discard", "ESTATE"))
    state.apply(("discard", "ESTATE"))
    assert state.discards[0] == ["ESTATE", "ESTATE"] and len(state.hands[0]) == 2
    state.apply("done")
    assert Counter(state.hands[0]) == {"COPPER": 1, "SILVER": 1, "GOLD": 2}
    assert state.pending is None and state.phase == "Play" and state.actions == 1


def test_workshop_gains_a_card_costing_up_to_four_to_discard():
    state = game_with(["WORKSHOP", "COPPER", "COPPER", "ESTATE", "ESTATE"])
    state.apply(("play", "WORKSHOP"))
    legal = state.legal_actions()
    assert {CARDS[a[1]].cost for a in legal} == {0, 2, 3, 4}
    assert ("gain", "SMITHY") in legal and ("gain", "MARKET") not in legal and ("gain", "SILVER") in legal
    state.apply(("gain", "SMITHY"))
    assert state.discards[0] == ["SMITHY"] and state.supply["SMITHY"] == 9 and state.phase == "Buy"


@pytest.mark.parametrize("trashed, limit", [("ESTATE", 4), ("GOLD", 8), ("COPPER", 2)])
def test_remodel_gains_up_to_two_more_than_the_trashed_card(trashed, limit):
    state = game_with(["REMODEL", trashed, "COPPER", "ESTATE", "ESTATE"])
    state.apply(("play", "REMODEL"))
    assert ("trash", trashed) in state.legal_actions()
    state.apply(("trash", trashed))
    assert state.trash == [trashed]
    gains = [a[1] for a in state.legal_actions()]
    assert max(CARDS[c].cost for c in gains) == limit
    assert all(CARDS[c].cost <= limit for c in gains)
    state.apply(("gain", gains[0]))
    assert state.discards[0] == [gains[0]] and state.pending is None


def test_mine_trashes_a_treasure_and_gains_a_better_one_into_hand():
    state = game_with(["MINE", "COPPER", "SILVER", "ESTATE", "ESTATE"])
    state.apply(("play", "MINE"))
    assert state.legal_actions() == [("trash", "SILVER"), ("trash", "COPPER")]  # treasures only
    state.apply(("trash", "COPPER"))
    assert state.legal_actions() == [("gain", "SILVER"), ("gain", "COPPER")]  # treasures costing <= 3
    state.apply(("gain", "SILVER"))
    assert Counter(state.hands[0]) == {"SILVER": 2, "ESTATE": 2} and state.trash == ["COPPER"]
    assert state.revealed[0] == ["SILVER"]  # everyone saw it arrive
    assert state.observation_json(2)["revealedHandCards"][0] == ["SILVER"]
    assert state.phase == "Buy" and state.available_spend() == 4


def test_mine_without_treasure_does_nothing():
    state = game_with(["MINE", "ESTATE", "ESTATE", "ESTATE", "MOAT"])
    state.apply(("play", "MINE"))
    assert state.pending is None and state.phase == "Buy"


def test_militia_victims_discard_down_to_three_in_seat_order():
    state = game_with(["MILITIA", "COPPER", "COPPER", "ESTATE", "ESTATE"],
                      others={2: ["COPPER", "ESTATE", "ESTATE"]})  # seat 2 already holds 3
    state.apply(("play", "MILITIA"))
    assert state.additional_spend == 2
    assert state.current_player == 1 and state.turn_player == 0
    assert all(a[0] == "discard" for a in state.legal_actions())
    state.apply(("discard", state.hands[1][0]))
    assert state.current_player == 1
    state.apply(("discard", state.hands[1][0]))
    assert len(state.hands[1]) == 3 and len(state.discards[1]) == 2
    assert state.current_player == 3  # seat 2 skipped
    state.apply(("discard", state.hands[3][0]))
    state.apply(("discard", state.hands[3][0]))
    assert state.current_player == 0 and state.pending is None and state.phase == "Buy"
    assert state.available_spend() == 2 + 2


def test_moat_revealed_blocks_militia_and_declining_means_discarding():
    state = game_with(["MILITIA", "COPPER", "COPPER", "ESTATE", "ESTATE"],
                      others={1: ["MOAT", "COPPER", "COPPER", "ESTATE", "ESTATE"],
                              2: ["MOAT", "COPPER", "COPPER", "ESTATE", "ESTATE"],
                              3: ["COPPER", "ESTATE", "ESTATE"]})
    state.apply(("play", "MILITIA"))
    assert state.current_player == 1 and state.legal_actions() == ["reveal_moat", "done"]
    state.apply("reveal_moat")
    assert state.defence_status == [False, True, False, False] and len(state.hands[1]) == 5
    assert state.observation_json(3)["revealedHandCards"][1] == ["MOAT"]
    assert state.current_player == 2 and state.legal_actions() == ["reveal_moat", "done"]
    state.apply("done")
    assert state.current_player == 2 and ("discard", "MOAT") in state.legal_actions()
    state.apply(("discard", "MOAT"))
    state.apply(("discard", "ESTATE"))
    assert len(state.hands[2]) == 3 and state.pending is None and state.current_player == 0
    state.apply(("buy", "SILVER"))  # turn ends: defences reset
    assert state.defence_status == [False] * 4 and state.revealed[1] == ["MOAT"]


# ----- reshuffle, end, results, errors ------------------------------------------------------------

def test_empty_draw_pile_reshuffles_the_discard():
    state = game_with(["SMITHY", "COPPER", "COPPER", "ESTATE", "ESTATE"], draw=["GOLD"],
                      discard=["SILVER", "SILVER", "DUCHY", "VILLAGE"])
    before = all_cards(state)
    state.apply(("play", "SMITHY"))
    assert state.hands[0][-3] == "GOLD" and len(state.hands[0]) == 7
    assert Counter(state.hands[0][-2:] + state.draw_piles[0]) == {"SILVER": 2, "DUCHY": 1, "VILLAGE": 1}
    assert state.discards[0] == [] and all_cards(state) == before


def test_drawing_with_nothing_left_stops_quietly():
    state = game_with(["SMITHY", "COPPER"], draw=["GOLD"])
    state.apply(("play", "SMITHY"))
    assert state.hands[0] == ["COPPER", "GOLD"] and state.draw_piles[0] == []


def test_game_ends_when_the_last_province_is_bought():
    state = game_with(["GOLD", "GOLD", "SILVER", "ESTATE", "ESTATE"], draw=["COPPER"] * 5)
    state.supply["PROVINCE"] = 1
    state.apply("end_phase")
    state.apply(("buy", "PROVINCE"))
    assert state.is_terminal() and state.legal_actions() == []
    assert state.scores()[0] == 2 + 6 and state.returns() == [1, -1, -1, -1] and state.winner() == 0
    doc = state.to_json()
    assert doc["gameStatus"] == "GAME_END" and doc["playerResults"][0] == "WIN_GAME"


def test_game_ends_when_three_piles_are_empty_checked_after_a_gain():
    state = game_with(["WORKSHOP", "COPPER", "COPPER", "ESTATE", "ESTATE"])
    state.supply.update({"CELLAR": 0, "MOAT": 0})
    state.supply["VILLAGE"] = 1
    state.apply(("play", "WORKSHOP"))
    assert not state.is_terminal()
    state.apply(("gain", "VILLAGE"))
    assert state.is_terminal() and state.turn_counter == 0


def test_two_empty_piles_do_not_end_the_game():
    state = game_with(["COPPER"] * 5)
    state.supply.update({"CELLAR": 0, "MOAT": 0})
    state.apply("end_phase")
    state.apply(("buy", "SILVER"))
    assert not state.is_terminal() and state.current_player == 1


def test_tied_leaders_draw():
    state = game_with(["GOLD", "GOLD", "SILVER", "ESTATE", "ESTATE"], draw=["ESTATE"] + ["COPPER"] * 5)
    state.hands[1] = ["PROVINCE", "COPPER", "COPPER", "COPPER", "COPPER"]
    state.draw_piles[1] = ["ESTATE", "ESTATE", "ESTATE", "COPPER", "COPPER"]  # 9 VP, as seat 0 will have
    state.supply["PROVINCE"] = 1
    state.apply("end_phase")
    state.apply(("buy", "PROVINCE"))
    assert state.scores()[:2] == [9.0, 9.0]
    assert state.returns() == [0, 0, -1, -1] and state.winner() is None
    assert state.to_json()["playerResults"] == ["DRAW_GAME", "DRAW_GAME", "LOSE_GAME", "LOSE_GAME"]


def test_illegal_actions_are_rejected_clearly():
    state = game_with(["MILITIA", "COPPER", "COPPER", "ESTATE", "ESTATE"])
    before = state.to_json()
    for bad in [("play", "SMITHY"), ("buy", "COPPER"), "done", ("discard", "ESTATE"), 3, None, ("play",)]:
        with pytest.raises(ValueError, match=r"dominion: illegal action .* seat 0 \(Play phase\)"):
            state.apply(bad)
    assert state.to_json() == before
    state.apply("end_phase")
    with pytest.raises(ValueError, match="illegal action.*Buy phase"):
        state.apply(("buy", "GOLD"))  # $2 only
    state = game_with(["MILITIA", "COPPER", "COPPER", "ESTATE", "ESTATE"])
    state.apply(["play", "MILITIA"])  # JSON lists are accepted
    with pytest.raises(ValueError, match=r"seat 1 \(pending MILITIA\)"):
        state.apply(("discard", "GOLD"))


# ----- serialisation --------------------------------------------------------------------------------

def test_to_json_uses_tag_field_names_and_is_json_serialisable():
    state = load_game("dominion").new_state(seed=5)
    doc = state.to_json()
    for name in ("cardsIncludedInGame", "playerHands", "playerDrawPiles", "playerDiscards", "playerTableaux",
                 "trashPile", "defenceStatus", "gameType", "turnCounter", "turnOwner", "gameStatus"):
        assert name in doc
    assert doc["gameType"] == "Dominion" and doc["cardsIncludedInGame"]["SILVER"] == 40
    assert json.loads(json.dumps(doc)) == doc
    assert "pendingEffect" not in doc  # omitted when none, as Gson omits nulls


def test_from_json_rejects_bad_documents():
    game = load_game("dominion")
    doc = game.new_state(seed=5).to_json()
    broken = [
        {**doc, "gameType": "Connect4"},
        {**doc, "playerHands": doc["playerHands"][:3]},
        {**doc, "playerHands": [["DRAGON"]] + doc["playerHands"][1:]},
        {**doc, "actionsLeft": "1"},
        {**doc, "gamePhase": "Cleanup"},
        {**doc, "turnOwner": 2},
        {**doc, "revealedHandCards": [["GOLD"], [], [], []]},
        {**doc, "pendingEffect": {"card": "MILITIA", "target": 0, "stage": "discard"}},
        {**doc, "pendingEffect": {"card": "MILITIA", "target": 1, "stage": "react"}},  # no Moat in hand
        {**doc, "pendingEffect": {"card": "CELLAR"}},
        {**doc, "pendingEffect": {"card": "SMITHY"}},
        {**doc, "cardsIncludedInGame": {**doc["cardsIncludedInGame"], "PROVINCE": -1}},
        {**doc, "gameStatus": "GAME_END"},
    ]
    for bad in broken:
        with pytest.raises(ValueError, match="dominion: from_json"):
            game.from_json(bad)


def test_key_ignores_the_order_of_unordered_zones():
    def cellar(order):
        state = game_with(["CELLAR", "ESTATE", "COPPER", "COPPER", "ESTATE"])
        state.apply(("play", "CELLAR"))
        for card in order:
            state.apply(("discard", card))
        return state
    one, other = cellar(["ESTATE", "COPPER"]), cellar(["COPPER", "ESTATE"])
    assert one.to_json() != other.to_json() and one.key() == other.key()
    assert one.key() != cellar(["ESTATE", "ESTATE"]).key()


# ----- playouts ---------------------------------------------------------------------------------------

def check_playouts(seeds):
    """Random games: they end, conserve every card, round-trip and replay exactly; returns game lengths."""
    game = load_game("dominion")
    lengths = []
    for seed in seeds:
        expected = all_cards(game.new_state(seed=seed))
        expected_total = sum(expected.values())
        docs = {}  # step -> doc, at turn ends, at the end and at some card-effect decisions
        turns = [0]

        def check(state, step):
            assert card_total(state) == expected_total, f"seed {seed}: cards created or destroyed"
            turn_ended = state.turn_counter > turns[0]
            turns[0] = state.turn_counter
            if turn_ended and step % 3 == 0 or state.is_terminal() or state.pending is not None and step % 5 == 0:
                assert all_cards(state) == expected, f"seed {seed}: a card changed type"
                doc = state.to_json()
                rebuilt = game.from_json(doc, seed=seed)
                assert rebuilt.to_json() == doc and rebuilt.key() == state.key()
                docs[step] = doc

        final, actions = random_playout(game, seed, check)
        lengths.append(len(actions))
        assert final.is_terminal() and sum(final.returns()) <= 0
        replayed = game.new_state(seed=seed)
        for step, action in enumerate(json.loads(json.dumps(actions)), start=1):  # actions survive JSON
            replayed.apply(action)
            if step in docs:
                assert replayed.to_json() == docs[step], f"seed {seed}: replay differs at step {step}"
        assert replayed.to_json() == final.to_json()
    return lengths


def test_100_random_playouts_end_conserve_cards_and_replay():
    lengths = check_playouts(range(100))
    # TAG's 500 recorded random 4-player games (JSON-Bag reference data): 277.7 actions on average, at most 421.
    assert 250 < sum(lengths) / len(lengths) < 305 and max(lengths) < 600


def test_games_are_deterministic_from_the_seed():
    game = load_game("dominion")
    first, first_actions = random_playout(game, 7)
    again, again_actions = random_playout(game, 7)
    assert again_actions == first_actions and again.to_json() == first.to_json()
    assert game.new_state(seed=8).to_json() != game.new_state(seed=7).to_json()
    from_doc = game.from_json(game.new_state(seed=7).to_json(), seed=1)
    assert from_doc.to_json() == game.new_state(seed=7).to_json()


@pytest.mark.slow
def test_1000_random_playouts():
    lengths = check_playouts(range(1000))
    assert 260 < sum(lengths) / len(lengths) < 295 and max(lengths) < 600


@pytest.mark.parametrize("n_players", [2, 3])
def test_fewer_players_play_to_the_end_conserving_cards(n_players):
    game = Dominion(n_players=n_players)
    for seed in range(10):
        expected = card_total(game.new_state(seed=seed))

        def check(state, step):
            assert card_total(state) == expected and 0 <= state.current_player < n_players

        final, _ = random_playout(game, seed, check)
        assert final.is_terminal() and len(final.returns()) == n_players


def test_recorded_matches_replay_exactly():
    match = pytest.importorskip("engines.match")
    from engines.agents import RandomAgent
    game = load_game("dominion")
    record = match.play_match(game, [RandomAgent() for _ in range(4)], seed=21)
    assert record.states[-1].doc["gameStatus"] == "GAME_END" and len(record.states) > 20
    assert [r.doc["turnCounter"] for r in record.states[:3]] == [1, 2, 3]
    replayed = match.replay(game, 21, json.loads(json.dumps(record.actions)))
    assert [r.doc for r in replayed.states] == [r.doc for r in record.states]


# ----- hidden information -------------------------------------------------------------------------------

def sample_states(n_games=6):
    """States from random games, including mid-Militia and mid-Cellar decisions and revealed Moats."""
    game = load_game("dominion")
    states = []
    for seed in range(n_games):
        state = game.new_state(seed=seed)
        rng = random.Random(seed)
        step = 0
        while not state.is_terminal():
            interesting = state.pending is not None or any(state.revealed)
            if step % 23 == 0 or interesting and rng.random() < 0.2:
                states.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            step += 1
    return states


def permute_hidden(state, observer, rng):
    """The same observation with hidden cards moved: each opponent's unknown hand cards swapped with its
    draw pile cards, and the observer's draw pile reordered."""
    other = state.clone()
    rng.shuffle(other.draw_piles[observer])
    for seat in range(state.n_players):
        if seat == observer:
            continue
        hand, pile = other.hands[seat], other.draw_piles[seat]
        known = Counter(other.revealed[seat])
        for i in range(len(hand)):
            if known[hand[i]] > 0:
                known[hand[i]] -= 1
            elif pile and rng.random() < 0.7:
                j = rng.randrange(len(pile))
                hand[i], pile[j] = pile[j], hand[i]
        rng.shuffle(pile)
    return other


def hidden_multiset(state, seat):
    return Counter(state.hands[seat]) + Counter(state.draw_piles[seat])


def test_determinize_keeps_the_observation_and_conserves_hidden_cards():
    states = sample_states()
    assert any(s.pending and s.pending["card"] == "MILITIA" for s in states) and any(map(any, (s.revealed for s in states)))
    rng = random.Random(0)
    for state in states:
        for seat in range(state.n_players):
            sample = state.determinize(seat, rng)
            assert sample.observation_json(seat) == state.observation_json(seat)
            assert all_cards(sample) == all_cards(state)
            assert sample.hands[seat] == state.hands[seat]
            for other in range(state.n_players):
                assert hidden_multiset(sample, other) == hidden_multiset(state, other)
                assert sample.discards[other] == state.discards[other]
                assert Counter(state.revealed[other]) <= Counter(sample.hands[other])
            assert sample.legal_actions() == state.legal_actions() or seat != state.current_player


def test_determinize_depends_only_on_the_observation():
    rng = random.Random(1)
    moved = 0
    for state in sample_states(3)[::3]:
        seat = rng.randrange(state.n_players)
        twin = permute_hidden(state, seat, rng)
        moved += twin.to_json() != state.to_json()
        assert twin.observation_json(seat) == state.observation_json(seat)
        assert state.determinize(seat, random.Random(9)).to_json() == twin.determinize(seat, random.Random(9)).to_json()
    assert moved > 10


def test_determinize_resamples_opponent_hands_and_future_shuffles():
    state = load_game("dominion").new_state(seed=4)
    rng = random.Random(2)
    hands = {tuple(sorted(state.determinize(0, rng).hands[1])) for _ in range(30)}
    assert len(hands) > 1
    assert all(state.determinize(0, rng).hands[0] == state.hands[0] for _ in range(5))
    seeds = {state.determinize(0, rng).chance_seed for _ in range(5)}
    assert len(seeds) == 5 and state.chance_seed not in seeds


def test_observation_hides_opponent_hands_and_draw_order():
    state = game_with(["MILITIA", "COPPER", "COPPER", "ESTATE", "ESTATE"])
    obs = state.observation_json(1)
    assert obs["playerHand"] == state.hands[1] and obs["handSizes"] == [5, 5, 5, 5]
    assert "playerHands" not in obs and "MILITIA" not in json.dumps(obs["playerHand"])
    assert obs["unlocatedCards"][1] == dict(sorted(Counter(state.draw_piles[1]).items(),
                                                   key=lambda kv: list(START_SUPPLY_4P).index(kv[0])))
    assert "playerDrawPiles" not in obs and obs["drawPileSizes"] == [10, 5, 5, 5]
    with pytest.raises(ValueError, match="not a seat"):
        state.observation_json(4)


def test_agents_never_read_hidden_state():
    agents = pytest.importorskip("engines.agents")
    rng = random.Random(5)
    checked = moved = 0
    for state in sample_states(2)[::4]:
        seat = state.current_player
        twin = permute_hidden(state, seat, rng)
        moved += twin.to_json() != state.to_json()
        for make in (lambda: agents.OSLAAgent(seed=3), lambda: agents.MCTSAgent(iterations=20, rollout_length=10, seed=3)):
            assert make().choose(state) == make().choose(twin)
        checked += 1
    assert checked >= 10 and moved >= checked - 1
