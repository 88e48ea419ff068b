"""Sea Salt & Paper: every card and effect, round and game end, JSON, hidden information, playouts, replay."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engines import load_game
from engines.sea_salt_paper.game import SeaSaltPaper
from engines.sea_salt_paper.cards import DECK, DECK_COUNTS, KINDS, NAMES, colour_bonus, hand_points, kinds
from engines.sea_salt_paper.state_json import cards_from_deck_json

SAILORS_CRABS_SHELLS = ["ORANGE SAILOR COLLECTOR", "PINK SAILOR COLLECTOR", "LIGHT_BLUE CRAB DUO", "BLUE CRAB DUO",
                        "LIGHT_BLUE SHELL COLLECTOR", "BLUE SHELL COLLECTOR"]  # 5 + 1 + 2 = 8 points, colour bonus 2
OCTOPUS_TRIO_PENGUIN = ["GREEN OCTOPUS COLLECTOR", "GREY OCTOPUS COLLECTOR", "PURPLE OCTOPUS COLLECTOR",
                        "PINK PENGUIN COLLECTOR"]  # 6 + 1 = 7 points, colour bonus 1
YELLOW_TRIO = ["YELLOW BOAT DUO", "YELLOW CRAB DUO", "YELLOW FISH DUO"]  # 0 points, colour bonus 3


def arrange(game=None, *, hands, played=None, pile1=(), pile2=(), draw=None, rest="draw", player=0, phase="DUO",
            totals=None, last_chance=-1, protected=None):
    """A state with the named cards placed (each list front first, i.e. top or newest card first); the deck's
    other cards go to the bottom of the place `rest` ("draw", "pile1" or "pile2")."""
    game = game or SeaSaltPaper()
    n = game.n_players
    state = game.new_state(0)
    hands = list(hands) + [[] for _ in range(n - len(hands))]
    played = list(played or []) + [[] for _ in range(n - len(played or []))]
    places = {"pile1": list(pile1), "pile2": list(pile2), "draw": list(draw or [])}
    used = Counter(kinds(*[name for group in (*hands, *played, *places.values()) for name in group]))
    assert not used - DECK_COUNTS, f"more copies than the deck has: {used - DECK_COUNTS}"
    bottom = {name: [] for name in places}
    bottom[rest] = [NAMES[k] for k in sorted((DECK_COUNTS - used).elements())]
    engine_order = lambda names: list(reversed(kinds(*names)))  # noqa: E731 - engines keep the front card last
    state.hands = [engine_order(h) for h in hands]
    state.played = [engine_order(p) for p in played]
    state.piles = [engine_order(places["pile1"] + bottom["pile1"]), engine_order(places["pile2"] + bottom["pile2"])]
    state.draw_pile = engine_order(places["draw"] + bottom["draw"])
    state.player, state.phase, state.last_chance = player, phase, last_chance
    state.totals = list(totals or [0] * n)
    state.protected = list(protected or [False] * n)
    state.legal = None
    state.recount()  # the hands' counts and points follow the cards placed above
    assert state.all_cards() == DECK_COUNTS
    return state


def names(cards_json: dict) -> list[str]:
    return [c["componentName"] for c in cards_json["components"]]


def points(*card_names, played=(), threshold=30):
    return hand_points(kinds(*card_names), kinds(*played), threshold)


def random_playout(game, seed, check=None):
    """Play uniformly random actions from `seed`; `check(state, action)` runs after every action."""
    state, rng, actions = game.new_state(seed), random.Random(seed), []
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
        if check:
            check(state, action)
    return state, actions


# ----- deck and setup -------------------------------------------------------------------------------------------

def test_deck_has_58_cards_with_tags_suites_and_colours():
    suites = Counter((KINDS[k][1], KINDS[k][2]) for k in DECK)
    assert len(DECK) == 58
    assert suites == {("CRAB", "DUO"): 9, ("BOAT", "DUO"): 8, ("FISH", "DUO"): 7, ("SHARK", "DUO"): 5,
                      ("SWIMMER", "DUO"): 5, ("SHELL", "COLLECTOR"): 6, ("OCTOPUS", "COLLECTOR"): 5,
                      ("PENGUIN", "COLLECTOR"): 3, ("SAILOR", "COLLECTOR"): 2, ("BOAT", "MULTIPLIER"): 1,
                      ("FISH", "MULTIPLIER"): 1, ("PENGUIN", "MULTIPLIER"): 1, ("SAILOR", "MULTIPLIER"): 1,
                      ("MERMAID", "MERMAID"): 4}
    crab_colours = Counter(KINDS[k][0] for k in DECK if KINDS[k][1:] == ("CRAB", "DUO"))
    assert crab_colours == {"LIGHT_BLUE": 2, "BLUE": 2, "YELLOW": 2, "GREEN": 1, "GREY": 1, "BLACK": 1}
    assert Counter(KINDS[k][0] for k in DECK)["WHITE"] == 4
    assert DECK_COUNTS[kinds("PURPLE BOAT MULTIPLIER")[0]] == 1


def test_new_round_deals_one_card_to_each_discard_pile():
    state = SeaSaltPaper().new_state(seed=3)
    doc = state.to_json()
    assert len(doc["drawPile"]["components"]) == 56
    assert len(doc["discardPile1"]["components"]) == len(doc["discardPile2"]["components"]) == 1
    assert all(not h["components"] for h in doc["playerHands"]) and doc["lastChance"] == -1
    assert state.current_player == 0 and state.turn_counter == 0
    assert state.legal_actions() == [("take_discard", 1), ("take_discard", 2), "draw"]
    assert SeaSaltPaper().new_state(seed=4).to_json() != doc


def test_params_follow_tag_defaults_and_reject_bad_values():
    assert [load_game("sea_salt_paper", n_players=n).threshold for n in (2, 3, 4)] == [40, 35, 30]
    game = load_game("sea_salt_paper")
    assert (game.n_players, game.draw_count, game.discard_count, game.round_stop) == (4, 2, 1, 7)
    assert load_game("sea_salt_paper", victory_threshold=12).threshold == 12
    for bad in ({"n_players": 5}, {"n_players": 1}, {"draw_count": 0}, {"discard_count": 3}, {"round_stop": -1},
                {"colour": 2}, {"n_players": "4"}):
        with pytest.raises(ValueError, match="sea_salt_paper"):
            load_game("sea_salt_paper", **bad)


# ----- DRAW phase -----------------------------------------------------------------------------------------------

def test_take_discard_takes_the_top_card_into_the_hand():
    state = arrange(hands=[["GREEN SHELL COLLECTOR"]], pile1=["PINK PENGUIN COLLECTOR", "BLUE FISH DUO"],
                    pile2=["GREY OCTOPUS COLLECTOR"], phase="DRAW")
    state.apply(("take_discard", 1))
    doc = state.to_json()
    assert names(doc["playerHands"][0]) == ["PINK PENGUIN COLLECTOR", "GREEN SHELL COLLECTOR"]
    assert names(doc["discardPile1"]) == ["BLUE FISH DUO"] and state.phase == "DUO"


def test_draw_two_keep_one_discard_the_other_onto_a_chosen_pile():
    state = arrange(hands=[[]], pile1=["GREEN SHELL COLLECTOR"], pile2=["GREY SHELL COLLECTOR"],
                    draw=["PINK PENGUIN COLLECTOR", "BLUE FISH DUO"], phase="DRAW")
    state.apply("draw")
    assert state.phase == "DISCARD" and state.current_player == 0
    assert state.legal_actions() == [("discard", 0, 1), ("discard", 0, 2), ("discard", 1, 1), ("discard", 1, 2)]
    assert names(state.to_json()["playerHands"][0]) == ["BLUE FISH DUO", "PINK PENGUIN COLLECTOR"]
    state.apply(("discard", 1, 2))  # the penguin onto pile 2
    doc = state.to_json()
    assert names(doc["playerHands"][0]) == ["BLUE FISH DUO"]
    assert names(doc["discardPile2"]) == ["PINK PENGUIN COLLECTOR", "GREY SHELL COLLECTOR"]
    assert state.phase == "DUO" and len(doc["drawPile"]["components"]) == 58 - 2 - 2


@pytest.mark.parametrize("pile1, pile2, targets", [
    ([], ["GREY SHELL COLLECTOR"], [1]),
    (["GREY SHELL COLLECTOR"], [], [2]),
    ([], [], [1]),
    (["GREY SHELL COLLECTOR"], ["GREEN SHELL COLLECTOR"], [1, 2]),
])
def test_empty_discard_pile_must_take_the_discard(pile1, pile2, targets):
    state = arrange(hands=[[]], pile1=pile1, pile2=pile2, phase="DRAW")
    state.apply("draw")
    assert state.legal_actions() == [("discard", i, p) for i in (0, 1) for p in targets]


def test_a_single_card_left_is_drawn_and_kept_without_a_discard():
    state = arrange(hands=[[]], draw=["WHITE MERMAID MERMAID"], rest="pile2", phase="DRAW")
    state.apply("draw")
    assert state.phase == "DUO" and names(state.to_json()["playerHands"][0]) == ["WHITE MERMAID MERMAID"]


def test_draw_phase_without_cards_to_draw_offers_discards_or_pass():
    state = arrange(hands=[[]], draw=[], rest="pile2", phase="DRAW")
    assert state.legal_actions() == [("take_discard", 2)]
    state = arrange(hands=[[NAMES[k] for k in DECK]], draw=[], phase="DRAW")
    assert state.legal_actions() == ["pass"]
    state.apply("pass")
    assert state.phase == "DUO"


# ----- duo effects ----------------------------------------------------------------------------------------------

def test_crab_pair_takes_any_card_of_a_chosen_discard_pile():
    state = arrange(hands=[["LIGHT_BLUE CRAB DUO", "GREEN SHELL COLLECTOR", "BLUE CRAB DUO"]],
                    pile1=["GREY SHELL COLLECTOR", "PINK PENGUIN COLLECTOR", "WHITE MERMAID MERMAID"],
                    pile2=["BLUE FISH DUO"])
    assert state.legal_actions()[:2] == [("duo", "crab", 1), ("duo", "crab", 2)]
    state.apply(("duo", "crab", 1))
    assert state.phase == "CRAB" and state.legal_actions() == [("crab_take", 0), ("crab_take", 1), ("crab_take", 2)]
    state.apply(("crab_take", 2))
    doc = state.to_json()
    assert names(doc["playerHands"][0]) == ["WHITE MERMAID MERMAID", "GREEN SHELL COLLECTOR"]
    assert names(doc["discardPile1"]) == ["GREY SHELL COLLECTOR", "PINK PENGUIN COLLECTOR"]
    assert sorted(names(doc["playerDiscards"][0])) == ["BLUE CRAB DUO", "LIGHT_BLUE CRAB DUO"]
    assert state.phase == "DUO" and state.hand_points(0) == 1 + 1  # played crab pair + one mermaid (1 white)


def test_crab_pair_needs_a_non_empty_discard_pile():
    crabs = [["LIGHT_BLUE CRAB DUO", "BLUE CRAB DUO"]]
    assert [a for a in arrange(hands=crabs, pile2=["GREEN SHELL COLLECTOR"]).legal_actions()
            if a[0] == "duo"] == [("duo", "crab", 2)]  # TAG only checks pile 1 (twice); we check both piles
    no_piles = arrange(hands=crabs)
    assert not [a for a in no_piles.legal_actions() if a[0] == "duo"]
    with pytest.raises(ValueError, match="illegal action"):
        no_piles.apply(("duo", "crab", 1))


def test_boat_pair_gives_another_draw_inside_the_same_turn():
    state = arrange(hands=[["BLACK BOAT DUO", "GREEN SHELL COLLECTOR", "BLUE BOAT DUO"]],
                    pile1=["GREY SHELL COLLECTOR"])
    state.apply(("duo", "boat"))
    assert (state.phase, state.current_player, state.turn_counter) == ("DRAW", 0, 0)
    assert sorted(names(state.to_json()["playerDiscards"][0])) == ["BLACK BOAT DUO", "BLUE BOAT DUO"]
    state.apply(("take_discard", 1))
    state.apply("end_turn")
    assert (state.current_player, state.turn_counter, state.phase) == (1, 1, "DRAW")


def test_fish_pair_draws_the_top_card_and_needs_a_draw_pile():
    fish = [["BLUE FISH DUO", "BLACK FISH DUO"]]
    state = arrange(hands=fish, draw=["WHITE MERMAID MERMAID"], rest="pile2")
    state.apply(("duo", "fish"))
    assert names(state.to_json()["playerHands"][0]) == ["WHITE MERMAID MERMAID"] and not state.draw_pile
    assert ("duo", "fish") not in arrange(hands=fish, draw=[], rest="pile2").legal_actions()


def test_swimmer_shark_steals_a_random_card_from_an_unprotected_non_empty_hand():
    hands = [["BLUE SWIMMER DUO", "PURPLE SHARK DUO"], ["GREEN SHELL COLLECTOR"], [],
             ["PINK PENGUIN COLLECTOR", "WHITE MERMAID MERMAID"]]
    state = arrange(hands=hands, last_chance=1, protected=[False, True, False, False], pile1=["GREY SHELL COLLECTOR"])
    assert [a for a in state.legal_actions() if a[0] == "duo"] == [("duo", "swimmer_shark", 3)]
    twin = state.clone()
    state.apply(("duo", "swimmer_shark", 3))
    doc = state.to_json()
    stolen = names(doc["playerHands"][0])
    assert len(stolen) == 1 and stolen[0] in hands[3]
    assert sorted(stolen + names(doc["playerHands"][3])) == sorted(hands[3])
    assert sorted(names(doc["playerDiscards"][0])) == ["BLUE SWIMMER DUO", "PURPLE SHARK DUO"]
    twin.apply(("duo", "swimmer_shark", 3))
    assert twin.to_json() == doc  # the random choice comes from the state's own seed


def test_swimmer_shark_without_a_target_is_not_offered():
    hands = [["BLUE SWIMMER DUO", "PURPLE SHARK DUO"], [], ["GREEN SHELL COLLECTOR"], []]
    state = arrange(hands=hands, last_chance=2, protected=[False, False, True, False])
    assert not [a for a in state.legal_actions() if a[0] == "duo"]


# ----- hand scoring ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cards, expected", [
    (["GREEN SHELL COLLECTOR"], 0), (["GREEN SHELL COLLECTOR", "GREY SHELL COLLECTOR"], 2),
    (["GREEN SHELL COLLECTOR", "GREY SHELL COLLECTOR", "BLUE SHELL COLLECTOR"], 4),
    (["GREEN OCTOPUS COLLECTOR"], 0), (["GREEN OCTOPUS COLLECTOR", "GREY OCTOPUS COLLECTOR"], 3),
    (["PINK PENGUIN COLLECTOR"], 1), (["PINK PENGUIN COLLECTOR", "PURPLE PENGUIN COLLECTOR"], 3),
    (["PINK PENGUIN COLLECTOR", "PURPLE PENGUIN COLLECTOR", "LIGHT_ORANGE PENGUIN COLLECTOR"], 5),
    (["ORANGE SAILOR COLLECTOR"], 0), (["ORANGE SAILOR COLLECTOR", "PINK SAILOR COLLECTOR"], 5),
])
def test_collectors(cards, expected):
    assert points(*cards) == expected


@pytest.mark.parametrize("cards, played, expected", [
    (["PURPLE BOAT MULTIPLIER"], [], 0),  # a multiplier does not count itself
    (["PURPLE BOAT MULTIPLIER", "LIGHT_BLUE BOAT DUO"], ["BLUE BOAT DUO", "BLACK BOAT DUO"], 3 + 1),  # + played pair
    (["PURPLE BOAT MULTIPLIER", "BLUE FISH DUO"], [], 0),
    (["GREY FISH MULTIPLIER", "BLUE FISH DUO", "BLACK FISH DUO"], [], 2 + 1),  # + the pair in hand
    (["GREEN PENGUIN MULTIPLIER", "PINK PENGUIN COLLECTOR", "PURPLE PENGUIN COLLECTOR"], [], 3 + 2 * 2),
    (["LIGHT_ORANGE SAILOR MULTIPLIER", "ORANGE SAILOR COLLECTOR"], [], 3),
    (["LIGHT_ORANGE SAILOR MULTIPLIER", "ORANGE SAILOR COLLECTOR", "PINK SAILOR COLLECTOR"], [], 5 + 3 * 2),
])
def test_multipliers_count_hand_and_played_duos(cards, played, expected):
    assert points(*cards, played=played) == expected


@pytest.mark.parametrize("cards, played, expected", [
    (["WHITE MERMAID MERMAID", "BLUE SHELL COLLECTOR", "BLUE CRAB DUO", "BLUE BOAT DUO"], [], 3),
    (["WHITE MERMAID MERMAID"] * 2 + ["BLUE SHELL COLLECTOR", "BLUE CRAB DUO", "YELLOW BOAT DUO"], [], 2 + 2),
    (["WHITE MERMAID MERMAID", "BLACK FISH DUO"], ["BLACK BOAT DUO", "BLACK BOAT DUO"], 3 + 1),
    (["WHITE MERMAID MERMAID"] * 3, [], 3),
    (["WHITE MERMAID MERMAID"] * 4 + ["ORANGE SAILOR COLLECTOR", "PINK SAILOR COLLECTOR"], [], 30),
])
def test_mermaids_add_their_largest_colour_counts(cards, played, expected):
    assert points(*cards, played=played) == expected


def test_four_mermaids_score_the_victory_threshold():
    assert points(*["WHITE MERMAID MERMAID"] * 4, threshold=40) == 40
    two_players = arrange(SeaSaltPaper(n_players=2), hands=[["WHITE MERMAID MERMAID"] * 4])
    assert two_players.hand_points(0) == 40


@pytest.mark.parametrize("cards, played, expected", [
    (["LIGHT_BLUE CRAB DUO", "BLUE CRAB DUO"], [], 1),
    (["LIGHT_BLUE CRAB DUO", "BLUE CRAB DUO", "GREY CRAB DUO"], [], 1),
    (["LIGHT_BLUE CRAB DUO", "BLUE CRAB DUO", "GREY CRAB DUO", "GREEN CRAB DUO"], [], 2),
    (["BLUE BOAT DUO", "BLACK BOAT DUO"], [], 1), (["BLUE FISH DUO", "BLACK FISH DUO"], [], 1),
    (["BLUE SWIMMER DUO", "PURPLE SHARK DUO"], [], 1),
    (["BLUE SWIMMER DUO", "YELLOW SWIMMER DUO", "BLUE SHARK DUO"], [], 1),
    (["BLUE SWIMMER DUO", "YELLOW SWIMMER DUO", "BLUE SHARK DUO", "BLACK SHARK DUO"], [], 2),
    ([], ["LIGHT_BLUE CRAB DUO", "BLUE CRAB DUO", "BLUE SWIMMER DUO", "PURPLE SHARK DUO"], 2),
])
def test_duo_pairs_in_hand_and_played(cards, played, expected):
    assert points(*cards, played=played) == expected


def test_colour_bonus_counts_hand_and_played_area():
    hand, played = kinds("YELLOW BOAT DUO", "BLUE SHELL COLLECTOR"), kinds("YELLOW CRAB DUO", "YELLOW FISH DUO")
    assert colour_bonus(hand, played, 1) == 3 and colour_bonus(hand, played, 2) == 4 and colour_bonus([], [], 1) == 0


def test_scoring_matches_every_round_end_in_tags_recorded_games(shared_dir):
    folder = shared_dir / "data" / "jsonbag_reference" / "example_trajectories" / "SeaSaltPaper"
    checked = 0
    for path in sorted(folder.glob("*.json")):
        states = json.loads(path.read_text())
        for before, after in zip(states, states[1:]):
            if before["playerTotalScores"] == after["playerTotalScores"]:
                continue
            game = arrange(hands=[cards_names(h) for h in after["playerHands"]],
                           played=[cards_names(d) for d in after["playerDiscards"]],
                           totals=before["playerTotalScores"], last_chance=after["lastChance"],
                           protected=[True] * 4 if after["lastChance"] != -1 else None, player=0)
            game.turn_counter = 0
            game.end_round()
            assert game.totals == after["playerTotalScores"], path.name
            checked += 1
    assert checked == 14


def cards_names(deck: dict) -> list[str]:
    return [NAMES[k] for k in reversed(cards_from_deck_json(deck, "test"))]


# ----- STOP, LAST CHANCE, round and game end --------------------------------------------------------------------

def test_stop_needs_seven_points_and_scores_every_hand():
    low = arrange(hands=[["ORANGE SAILOR COLLECTOR", "PINK SAILOR COLLECTOR", "LIGHT_BLUE CRAB DUO", "BLUE CRAB DUO"]])
    assert low.hand_points(0) == 6 and "stop" not in low.legal_actions()
    state = arrange(hands=[SAILORS_CRABS_SHELLS, ["GREEN OCTOPUS COLLECTOR", "GREY OCTOPUS COLLECTOR"], [],
                           ["PINK PENGUIN COLLECTOR"]], totals=[1, 2, 3, 4])
    assert state.legal_actions()[-2:] == ["stop", "last_chance"]
    assert state.scores() == [9.0, 5.0, 3.0, 5.0]  # banked plus hand points
    state.apply("stop")
    assert state.totals == [9, 5, 3, 5] and state.round_counter == 1 and state.turn_counter == 1
    assert state.current_player == 1 and state.first_player == 1 and state.phase == "DRAW"
    assert len(state.draw_pile) == 56 and not any(state.hands) and not any(state.played)


def test_last_chance_protects_the_caller_and_gives_everyone_else_one_turn():
    state = arrange(hands=[SAILORS_CRABS_SHELLS, OCTOPUS_TRIO_PENGUIN], pile1=["GREEN SHELL COLLECTOR"])
    state.apply("last_chance")
    assert (state.last_chance, state.protected, state.current_player, state.turn_counter) == (0, [True] + [False] * 3,
                                                                                               1, 1)
    assert names(state.observation_json(1)["playerHands"][0]) == SAILORS_CRABS_SHELLS
    assert state.to_json()["playerHands"][0]["visibility"] == "VISIBLE_TO_ALL"
    for seat in (1, 2, 3):
        assert state.current_player == seat and state.round_counter == 0
        state.apply("draw")
        state.apply(state.legal_actions()[0])  # discard
        assert "stop" not in state.legal_actions() and "last_chance" not in state.legal_actions()
        state.apply("end_turn")
    assert state.round_counter == 1 and state.current_player == 0 and not any(state.protected)
    assert state.last_chance == -1 and state.turn_counter == 4


@pytest.mark.parametrize("caller, hands, expected", [
    (0, [SAILORS_CRABS_SHELLS, OCTOPUS_TRIO_PENGUIN, YELLOW_TRIO, ["LIGHT_ORANGE PENGUIN COLLECTOR"]], [10, 1, 3, 1]),
    (1, [SAILORS_CRABS_SHELLS, OCTOPUS_TRIO_PENGUIN, YELLOW_TRIO, ["LIGHT_ORANGE PENGUIN COLLECTOR"]], [8, 1, 0, 1]),
    (1, [OCTOPUS_TRIO_PENGUIN[:3] + ["LIGHT_ORANGE PENGUIN COLLECTOR"],  # 7 points each: a tie wins the bet
         OCTOPUS_TRIO_PENGUIN[3:] + ["GREEN SHELL COLLECTOR", "GREY SHELL COLLECTOR", "BLUE SHELL COLLECTOR",
                                     "BLACK SHELL COLLECTOR"], YELLOW_TRIO, []], [1, 7 + 1, 3, 0]),
])
def test_last_chance_bet_won_or_lost(caller, hands, expected):
    """Won (caller >= everyone, ties included): all get the colour bonus, the caller also the hand; lost: the
    caller gets only the colour bonus and the others their hands."""
    protected = [True, True, True, False]
    state = arrange(hands=hands, last_chance=caller, protected=protected, player=3)
    state.apply("end_turn")
    assert state.totals == expected and state.round_counter == 1


def test_empty_draw_pile_ends_the_round_at_the_end_of_the_turn():
    hands = [["GREEN OCTOPUS COLLECTOR"], ["ORANGE SAILOR COLLECTOR", "PINK SAILOR COLLECTOR"], [],
             ["PINK PENGUIN COLLECTOR"]]
    state = arrange(hands=hands, draw=["GREY OCTOPUS COLLECTOR", "WHITE MERMAID MERMAID"], rest="pile2", phase="DRAW")
    state.apply("draw")
    state.apply(("discard", 0, 1))  # the mermaid away: the octopus pair stays
    assert state.round_counter == 0 and not state.draw_pile
    state.apply("end_turn")
    assert state.totals == [3, 5, 0, 1] and state.round_counter == 1 and state.first_player == 1


def test_empty_draw_pile_with_last_chance_scores_the_bet():
    hands = [SAILORS_CRABS_SHELLS, OCTOPUS_TRIO_PENGUIN, YELLOW_TRIO, []]
    state = arrange(hands=hands, draw=[], rest="pile2", last_chance=0, protected=[True, False, False, False], player=1)
    state.apply("end_turn")
    assert state.totals == [10, 1, 3, 0]


def test_reaching_the_threshold_ends_the_game_and_tied_leaders_draw():
    state = arrange(hands=[SAILORS_CRABS_SHELLS, ["GREEN OCTOPUS COLLECTOR", "GREY OCTOPUS COLLECTOR"]],
                    totals=[25, 30, 0, 0])
    state.apply("stop")
    assert state.is_terminal() and state.totals == [33, 33, 0, 0]
    assert state.returns() == [0, 0, -1, -1] and state.winner() is None and state.legal_actions() == []
    assert state.scores() == [33.0, 33.0, 0.0, 0.0]  # the last hands are banked already
    doc = state.to_json()
    assert doc["gameStatus"] == "GAME_END" and doc["turnOwner"] == -1
    assert names(doc["playerHands"][0]) == SAILORS_CRABS_SHELLS  # the final hands stay on show
    with pytest.raises(ValueError, match="illegal action"):
        state.apply("end_turn")
    single = arrange(hands=[SAILORS_CRABS_SHELLS], totals=[25, 0, 0, 0])
    single.apply("stop")
    assert single.returns() == [1, -1, -1, -1] and single.winner() == 0
    below = arrange(hands=[SAILORS_CRABS_SHELLS], totals=[21, 0, 0, 0])
    below.apply("stop")
    assert not below.is_terminal() and below.returns() == [0, 0, 0, 0]


def test_illegal_actions_are_rejected_clearly():
    state = SeaSaltPaper().new_state(seed=1)
    before = state.to_json()
    for bad in ("stop", ("take_discard", 3), ("discard", 0, 1), "bogus", ("duo", "boat"), 7, None, ("crab_take", 0)):
        with pytest.raises(ValueError, match=r"sea_salt_paper: illegal action .* legal actions"):
            state.apply(bad)
    assert state.to_json() == before
    state.apply(["take_discard", 1])  # JSON arrays are accepted for tuples
    assert state.phase == "DUO"


# ----- JSON, keys, hidden information ---------------------------------------------------------------------------

def test_to_json_has_tags_container_fields_and_card_fields():
    doc = SeaSaltPaper().new_state(seed=2).to_json()
    for key in ("playerHands", "playerDiscards", "discardPile1", "discardPile2", "drawPile", "lastChance",
                "protectedHands", "playerTotalScores", "roundCounter", "firstPlayer", "gameType", "turnCounter",
                "turnOwner", "nPlayers", "gameStatus", "playerResults"):
        assert key in doc
    card = doc["drawPile"]["components"][0]
    assert set(card) == {"color", "cardSuite", "cardType", "type", "properties", "componentName"}
    assert card["componentName"] == f"{card['color']} {card['cardSuite']} {card['cardType']}"
    assert doc["playerHands"][2]["componentName"] == "playerHand2" and doc["gameType"] == "SeaSaltPaper"
    assert doc["playerHands"][2]["deckVisibility"] == [False, False, True, False]
    json.dumps(doc)


def test_from_json_round_trips_every_state_of_a_game_including_mid_turn_phases():
    game = SeaSaltPaper()
    phases = set()

    def check(state, action):
        doc = state.to_json()
        loaded = game.from_json(doc, seed=9)
        assert loaded.to_json() == doc and loaded.key() == state.key()
        assert loaded.legal_actions() == state.legal_actions()
        phases.add(state.phase)

    for seed in range(3):
        random_playout(game, seed, check)
    assert phases == {"DRAW", "DISCARD", "DUO", "CRAB", "GAME_OVER"}


def test_from_json_rejects_inconsistent_documents():
    game = SeaSaltPaper()
    good = game.new_state(seed=5).to_json()

    def broken(change):
        doc = json.loads(json.dumps(good))
        change(doc)
        return doc

    cases = {
        "58-card deck": lambda d: d["drawPile"]["components"].pop(),
        "not a Sea Salt": lambda d: d["drawPile"]["components"][0].update(componentName="RED DRAGON DUO"),
        "turnPhase": lambda d: d.update(turnPhase="SHOPPING"),
        "protectedHands": lambda d: d.update(protectedHands=[True, False, False, False]),
        "field 'playerHands'": lambda d: d["playerHands"][1].update(visibility="VISIBLE_TO_ALL"),
        "document": lambda d: d.update(gameType="Dominion"),
        "game is over": lambda d: d.update(playerTotalScores=[31, 0, 0, 0]),
        "turnOwner": lambda d: d.update(turnOwner=7),
    }
    for message, change in cases.items():
        with pytest.raises(ValueError, match=f"sea_salt_paper.from_json: .*{message}"):
            game.from_json(broken(change))
    played = arrange(hands=[["BLUE FISH DUO"]], played=[["GREEN SHELL COLLECTOR", "GREY SHELL COLLECTOR"]]).to_json()
    with pytest.raises(ValueError, match="duo pairs"):
        game.from_json(played)


def test_key_ignores_hand_order_but_not_contents():
    state = arrange(hands=[["GREEN SHELL COLLECTOR", "PINK PENGUIN COLLECTOR", "BLUE FISH DUO"]])
    reordered = arrange(hands=[["BLUE FISH DUO", "GREEN SHELL COLLECTOR", "PINK PENGUIN COLLECTOR"]])
    other = arrange(hands=[["GREY SHELL COLLECTOR", "PINK PENGUIN COLLECTOR", "BLUE FISH DUO"]])
    assert state.key() == reordered.key() and state.to_json() != reordered.to_json()
    assert state.key() != other.key()
    hash(state.key())


def test_clone_is_independent():
    state = SeaSaltPaper().new_state(seed=6)
    copy = state.clone()
    copy.apply("draw")
    assert state.phase == "DRAW" and len(state.draw_pile) == 56 and copy.to_json() != state.to_json()


def mid_game_states(game, seeds, every=9):
    """Clones of states along random games, every `every` actions."""
    states = []
    for seed in seeds:
        state, rng, step = game.new_state(seed), random.Random(seed), 0
        while not state.is_terminal():
            if step % every == 0:
                states.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
            step += 1
    return states


def test_observation_shows_counts_for_hidden_cards_only():
    state = arrange(hands=[SAILORS_CRABS_SHELLS, OCTOPUS_TRIO_PENGUIN, YELLOW_TRIO, ["PURPLE PENGUIN COLLECTOR"]],
                    pile1=["GREEN SHELL COLLECTOR"], played=[[], ["BLUE BOAT DUO", "BLACK BOAT DUO"]],
                    last_chance=2, protected=[False, False, True, False], player=0)
    seen = state.observation_json(0)
    assert names(seen["playerHands"][0]) == SAILORS_CRABS_SHELLS
    assert "components" not in seen["playerHands"][1] and seen["playerHands"][1]["size"] == 4
    assert names(seen["playerHands"][2]) == YELLOW_TRIO  # protected, so revealed
    assert "components" not in seen["drawPile"] and seen["drawPile"]["size"] == len(state.draw_pile)
    assert names(seen["discardPile1"]) == ["GREEN SHELL COLLECTOR"]
    assert len(seen["playerDiscards"][1]["components"]) == 2
    assert "PURPLE OCTOPUS COLLECTOR" not in json.dumps(seen)  # in seat 1's hidden hand
    with pytest.raises(ValueError, match="observation_json player"):
        state.observation_json(4)


def test_determinize_keeps_the_observation_and_conserves_hidden_cards():
    game = SeaSaltPaper()
    for state in mid_game_states(game, range(4)):
        for seat in range(4):
            rng = random.Random(seat)
            sample = state.determinize(seat, rng)
            assert sample.observation_json(seat) == state.observation_json(seat)
            assert sample.all_cards() == DECK_COUNTS
            hidden = lambda s: Counter(k for place in s.hidden_places(seat) for k in place)  # noqa: E731
            assert hidden(sample) == hidden(state)
            if seat == state.current_player:
                assert sample.legal_actions() == state.legal_actions()
    early = SeaSaltPaper().new_state(seed=1)
    orders = {tuple(early.determinize(0, random.Random(s)).draw_pile) for s in range(10)}
    assert len(orders) == 10  # the hidden cards really are re-dealt


def test_determinize_depends_only_on_the_observation():
    game = SeaSaltPaper()
    for state in mid_game_states(game, [7], every=13):
        seat = state.current_player
        permuted = state.determinize(seat, random.Random(99))  # same observation, hidden cards moved
        a = state.determinize(seat, random.Random(1)).to_json()
        b = permuted.determinize(seat, random.Random(1)).to_json()
        assert a == b


def test_agents_never_read_hidden_state():
    agents = pytest.importorskip("engines.agents")
    game = SeaSaltPaper()
    states = mid_game_states(game, [11], every=23)[:8]
    changed = 0
    for state in states:
        seat = state.current_player
        permuted = state.determinize(seat, random.Random(5))
        changed += permuted.to_json() != state.to_json()
        for agent in (agents.OSLAAgent(seed=3), agents.MCTSAgent(iterations=25, rollout_length=15, seed=3)):
            agent.reset(3)
            first = agent.choose(state)
            agent.reset(3)
            assert agent.choose(permuted) == first
    assert changed == len(states)


# ----- playouts, determinism, replay ----------------------------------------------------------------------------

def check_invariants(state, action):
    assert sum(map(len, state.hands)) + sum(map(len, state.played)) + len(state.draw_pile) + len(state.piles[0]) \
        + len(state.piles[1]) == 58
    if state.is_terminal():
        assert max(state.totals) >= state.game.threshold and state.legal_actions() == []
        assert sorted(state.returns()) in ([-1, -1, -1, 1], [-1, -1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 0])
    else:
        assert state.legal_actions() and max(state.totals) < state.game.threshold
    if state.phase == "DRAW" or state.is_terminal():
        assert state.all_cards() == DECK_COUNTS


def playouts(n_games):
    game, used = SeaSaltPaper(), set()
    for seed in range(n_games):
        final, actions = random_playout(game, seed, check_invariants)
        used.update(a if isinstance(a, str) else a[0] + (f"_{a[1]}" if a[0] == "duo" else "") for a in actions)
        assert final.is_terminal()
    expected = {"take_discard", "draw", "discard", "end_turn", "stop", "last_chance", "crab_take", "duo_crab",
                "duo_boat", "duo_fish", "duo_swimmer_shark"}
    assert expected <= used <= expected | {"pass"}


def test_100_random_playouts_conserve_the_deck_and_end():
    playouts(100)


@pytest.mark.slow
def test_1000_random_playouts_conserve_the_deck_and_end():
    playouts(1000)


@pytest.mark.parametrize("n_players", [2, 3])
def test_fewer_players_play_to_the_end(n_players):
    game = SeaSaltPaper(n_players=n_players)
    for seed in range(5):
        final, _ = random_playout(game, seed)
        assert max(final.totals) >= game.threshold and len(final.returns()) == n_players


def test_same_seed_same_game():
    game = SeaSaltPaper()
    first, actions = random_playout(game, 21)
    second, again = random_playout(game, 21)
    assert actions == again and first.to_json() == second.to_json()
    assert random_playout(game, 22)[1] != actions


def test_replay_from_seed_and_actions_reproduces_recorded_states():
    match = pytest.importorskip("engines.match")
    agents = pytest.importorskip("engines.agents")
    game = SeaSaltPaper()
    record = match.play_match(game, [agents.RandomAgent() for _ in range(4)], seed=8)
    again = match.replay(game, 8, json.loads(json.dumps(record.actions)))
    assert [s.doc for s in again.states] == [s.doc for s in record.states] and again.returns == record.returns
    turns = [s.turn for s in record.states]
    assert turns == list(range(1, len(turns) + 1))  # one record per completed turn; the last one ends the game
    final = record.states[-1].doc
    assert final["gameStatus"] == "GAME_END" and record.scores == [float(t) for t in final["playerTotalScores"]]
