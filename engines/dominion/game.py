"""Dominion, "First Game" kingdom, with TAG's rules and supply counts (docs/RULES.md 2.5, TAG games/dominion).

A turn: Play phase (1 action; play action cards from hand) then Buy phase (1 buy; spend = treasure value
in hand + bonus money - spent; treasures are never played), then hand and tableau are discarded and 5 cards
drawn. Card effects that need choices are sequences of decisions (cards.py); `current_player` is the
seat deciding now, which is a Militia victim while it chooses. The game ends, checked after every action
that leaves no card effect pending, when the Province pile or any 3 supply piles are empty; score = victory
points; tied leaders draw. A turn (turn_counter) is one player's whole turn. Nothing forces a player to buy,
so a game in which nobody ever buys would not end.

Actions: ("play", CARD), ("buy", CARD), "end_phase", ("discard", CARD), ("trash", CARD), ("gain", CARD),
"reveal_moat", "done" (stop discarding to Cellar, or decline to reveal a Moat).

Hidden information. `to_json()` is the full state (every hand; draw piles top first). Public, as in TAG:
supply, discard piles (TAG's are VISIBLE_TO_ALL, so all of their contents in order), tableaux, trash, Moat
defences, and cards known to be in a hand (a revealed Moat, a treasure Mine gained into hand) until they
leave it. Every gain, trash and discard is public, so by card counting each seat's hand+draw multiset is
public too: `observation_json(p)` gives p its own hand, every hand and draw pile size, and for every seat q
the counts of q's cards p cannot locate (q's unknown hand cards plus draw pile; for q = p its draw pile).
`determinize(p, rng)` re-deals each opponent's unlocated cards between its hand and draw pile (zone sizes
and known hand cards kept), shuffles p's own draw pile, and re-seeds future shuffles from `rng`.
"""

from __future__ import annotations

import random
from _random import Random as _CRandom

import engines.dominion.tag_json as dominion_tag
from engines.base import (COMMON_OUTCOME_FIELDS, COMMON_TURN_ORDER_FIELDS, OURS, TAG, Game, Items, State, check_dialect,
                          check_params, common_json, normalize_action, returns_from_scores)
from engines.chance import shuffle
from engines.dominion.cards import (AFFORDABLE, BUY, CARD_ORDER, CARDS, FIRST_GAME_KINGDOM, MAX_COST, PLAY,
                                    apply_effect_action, effect_actions, play_card)
from engines.dominion.json_changes import dominion_changes
from engines.dominion.state_json import read_state_fields, valid_turn
from engines.info import GameInfo

GAME_TYPE = "Dominion"
MAX_SEATS = 4
SUPPLY_PARTS = {card: ("cardsIncludedInGame", card) for card in CARD_ORDER}  # json_parts locations
HAND_PARTS, DRAW_PARTS, DISCARD_PARTS, TABLEAU_PARTS, REVEALED_PARTS = (
    [(zone, seat) for seat in range(MAX_SEATS)]
    for zone in ("playerHands", "playerDrawPiles", "playerDiscards", "playerTableaux", "revealedHandCards"))
DEFAULT_PARAMS = {  # TAG DominionParameters defaults
    "n_players": 4, "hand_size": 5, "piles_exhausted_for_game_end": 3, "kingdom_cards_of_each_type": 10,
    "starting_copper": 7, "starting_estates": 3, "copper_supply": 32, "silver_supply": 40, "gold_supply": 30,
}
VICTORY_CARDS_PER_PLAYER = {2: 8, 3: 12, 4: 12}
VICTORY_POINTS = {card: data.victory_points for card, data in CARDS.items()}
TREASURE = {card: data.treasure for card, data in CARDS.items()}
# The three victory and three treasure cards with their values: a hand's money and a seat's points are a few
# list.count scans (C loops) rather than a dict lookup per card.
(VP_1, VP_1_POINTS), (VP_2, VP_2_POINTS), (VP_3, VP_3_POINTS) = ((c, v) for c, v in VICTORY_POINTS.items() if v)
(MONEY_1, MONEY_1_VALUE), (MONEY_2, MONEY_2_VALUE), (MONEY_3, MONEY_3_VALUE) = ((c, v) for c, v in TREASURE.items()
                                                                              if v)


def money(hand: list[str]) -> int:
    """The treasure value of the cards in `hand`."""
    return MONEY_1_VALUE * hand.count(MONEY_1) + MONEY_2_VALUE * hand.count(MONEY_2) + MONEY_3_VALUE * hand.count(MONEY_3)
ACTION_CARDS = tuple(card for card in CARD_ORDER if CARDS[card].is_action)  # in canonical order
PLAY_ACTIONS = {card: ("play", card) for card in ACTION_CARDS}
BUY_ACTIONS = {card: ("buy", card) for card in CARDS}
ACTION_SET = frozenset(ACTION_CARDS)
ACTION_INDEX = {card: i for i, card in enumerate(ACTION_CARDS)}
# The generator of reshuffles, re-seeded before each one with the state's chance_seed, as random.Random(seed)
# seeds a new one (_random's seed without random.Random's Python layers: the same state, a little faster).
_RESHUFFLE_RNG = random.Random()
_seed_rng = _CRandom.seed


def playable(hand: list[str]) -> list[str]:
    """The distinct action cards in `hand`, in canonical order: the cards legal_actions offers to play."""
    present = ACTION_SET.intersection(hand)
    return list(present) if len(present) < 2 else sorted(present, key=ACTION_INDEX.__getitem__)


class DominionState(State):
    """A Dominion position; card zones are lists of card names (draw piles: index 0 is the top)."""

    __slots__ = ("game", "n_players", "supply", "hands", "draw_piles", "discards", "tableaux", "trash",
                 "defence_status", "revealed", "phase", "turn_player", "actions", "buys", "spent",
                 "additional_spend", "merchants_played", "pending", "turn_counter", "round_counter",
                 "terminal", "chance_seed")

    def __init__(self, game: "Dominion", chance_seed: int):
        n = game.n_players
        self.game = game
        self.n_players = n
        self.supply: dict[str, int] = {}
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.draw_piles: list[list[str]] = [[] for _ in range(n)]
        self.discards: list[list[str]] = [[] for _ in range(n)]
        self.tableaux: list[list[str]] = [[] for _ in range(n)]
        self.trash: list[str] = []
        self.defence_status = [False] * n
        self.revealed: list[list[str]] = [[] for _ in range(n)]  # hand cards every seat knows about
        self.phase = PLAY
        self.turn_player = 0
        self.actions = 1
        self.buys = 1
        self.spent = 0
        self.additional_spend = 0
        self.merchants_played = 0
        self.pending: dict | None = None
        self.turn_counter = 0
        self.round_counter = 0
        self.terminal = False
        self.chance_seed = chance_seed  # seeds the next reshuffle; an int makes clones free of RNG copies

    # ----- card movement -------------------------------------------------------------------------
    def draw(self, seat: int, count: int) -> None:
        """Draw `count` cards into `seat`'s hand, reshuffling the discard pile when the draw pile is empty."""
        pile = self.draw_piles[seat]
        hand = self.hands[seat]
        if len(pile) >= count:  # the usual case: no reshuffle
            hand += pile[:count]
            del pile[:count]
            return
        while count > 0:
            if not pile:
                discard = self.discards[seat]
                if not discard:
                    return
                pile.extend(discard)
                discard.clear()
                self._shuffle(pile)
            drawn = pile[:count]
            del pile[:count]
            hand.extend(drawn)
            count -= len(drawn)

    def _shuffle(self, cards: list[str]) -> None:
        rng = _RESHUFFLE_RNG
        _seed_rng(rng, self.chance_seed)
        shuffle(rng, cards)
        self.chance_seed = rng.getrandbits(64)

    def gain(self, seat: int, card: str, to_hand: bool = False) -> None:
        """Move `card` from the supply to `seat`'s discard pile (or hand, where everyone sees it arrive)."""
        self.supply[card] -= 1
        if to_hand:
            self.hands[seat].append(card)
            self.revealed[seat].append(card)
        else:
            self.discards[seat].append(card)

    def move_from_hand(self, seat: int, card: str, destination: list[str]) -> None:
        self.hands[seat].remove(card)
        if card in self.revealed[seat]:
            self.revealed[seat].remove(card)
        destination.append(card)

    # ----- engine contract -----------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        if self.pending is not None and self.pending["card"] == "MILITIA":
            return self.pending["target"]
        return self.turn_player

    def available_spend(self) -> int:
        return money(self.hands[self.turn_player]) - self.spent + self.additional_spend

    def legal_actions(self) -> list:
        if self.terminal:
            return []
        if self.pending is not None:
            return effect_actions(self)
        if self.phase == PLAY:
            actions = list(map(PLAY_ACTIONS.__getitem__, playable(self.hands[self.turn_player])))
            actions.append("end_phase")
            return actions
        budget = money(self.hands[self.turn_player]) - self.spent + self.additional_spend
        if budget < 0:
            return ["end_phase"]
        supply = self.supply
        affordable = AFFORDABLE[budget if budget < MAX_COST else MAX_COST]
        if 0 in supply.values():  # a pile is empty
            actions = [BUY_ACTIONS[c] for c in affordable if supply.get(c, 0) > 0]
        else:
            actions = list(map(BUY_ACTIONS.__getitem__, affordable))
        actions.append("end_phase")
        return actions

    def apply(self, action) -> None:
        if not self.terminal and self.pending is None and self._is_legal_turn_action(action):
            self._apply_legal(action)
            return
        if type(action) is list:
            action = normalize_action(action)
        legal = self.legal_actions()
        if action not in legal:
            where = f"pending {self.pending['card']}" if self.pending else f"{self.phase} phase"
            raise ValueError(f"dominion: illegal action {action!r} for seat {self.current_player} "
                             f"({where}); legal: {legal}")
        self._apply_legal(action)

    def _is_legal_turn_action(self, action) -> bool:
        """Whether legal_actions (no effect pending, game on) holds `action`, a play, buy or end_phase,
        without listing them; False for anything else, which apply then checks against the list."""
        if action == "end_phase":
            return True
        if type(action) is not tuple or len(action) != 2 or type(action[1]) is not str:
            return False
        kind, card = action
        hand = self.hands[self.turn_player]
        if self.phase == PLAY:
            return kind == "play" and card in ACTION_SET and card in hand
        return (kind == "buy" and self.supply.get(card, 0) > 0
                and CARDS[card].cost <= money(hand) - self.spent + self.additional_spend)

    def random_playout(self, rand, max_actions: int) -> None:
        """Apply up to `max_actions` moves legal_actions()[int(rand() * n)], as the generic MCTS rollout does.

        Pending card effects go through legal_actions and _apply_legal; plays and buys are written out here
        (MCTS spends its time on them), drawing from the lists legal_actions would return, without building
        them. Only a gain can end the game: the supply check runs after buys, and _apply_legal's after effects.
        """
        supply, hands = self.supply, self.hands
        for _ in range(max_actions):
            if self.terminal:
                break
            if self.pending is not None:
                actions = effect_actions(self)
                self._apply_legal(actions[int(rand() * len(actions))])
                continue
            hand = hands[self.turn_player]
            if self.phase == PLAY:
                cards = () if ACTION_SET.isdisjoint(hand) else playable(hand)
                choice = int(rand() * (len(cards) + 1))
                if choice < len(cards):
                    play_card(self, cards[choice])
                    if self.pending is None and self.actions < 1:
                        self._start_buy_phase()
                else:  # end_phase
                    self._start_buy_phase()
                continue
            budget = (MONEY_1_VALUE * hand.count(MONEY_1) + MONEY_2_VALUE * hand.count(MONEY_2)  # money(hand)
                      + MONEY_3_VALUE * hand.count(MONEY_3) - self.spent + self.additional_spend)
            if budget < 0:
                buyable = ()
            else:
                buyable = AFFORDABLE[budget if budget < MAX_COST else MAX_COST]
                if 0 in supply.values():  # a pile is empty: legal_actions' filter
                    buyable = [card for card in buyable if supply[card] > 0]
            choice = int(rand() * (len(buyable) + 1))
            if choice < len(buyable):
                card = buyable[choice]
                self.spent += CARDS[card].cost
                self.buys -= 1
                supply[card] -= 1  # gain
                self.discards[self.turn_player].append(card)
                if supply[card] == 0 and self._supply_exhausted():  # only a pile just emptied can end the game
                    self.terminal = True
                elif self.buys < 1:
                    self._end_turn()
            else:  # end_phase
                self._end_turn()

    def _apply_legal(self, action) -> None:
        """Apply `action`, known to be legal (and normalised), for the current player."""
        phase_ended = False
        if self.pending is not None:
            apply_effect_action(self, action)
        elif action == "end_phase":
            phase_ended = True
        elif action[0] == "play":
            play_card(self, action[1])
        else:
            self.spent += CARDS[action[1]].cost
            self.buys -= 1
            self.gain(self.turn_player, action[1])
        if self.pending is not None:
            return
        supply = self.supply  # _supply_exhausted, its usual answers inline (this runs after every move)
        if supply["PROVINCE"] == 0 or (0 in supply.values() and self._supply_exhausted()):
            self.terminal = True
        elif self.phase == PLAY and (phase_ended or self.actions < 1):
            self._start_buy_phase()
        elif self.phase == BUY and (phase_ended or self.buys < 1):
            self._end_turn()

    def _supply_exhausted(self) -> bool:
        counts = self.supply.values()
        if self.supply["PROVINCE"] == 0:
            return True
        limit = self.game.params["piles_exhausted_for_game_end"]
        return 0 in counts and list(counts).count(0) >= limit

    def _start_buy_phase(self) -> None:
        self.phase = BUY
        if self.merchants_played and "SILVER" in self.hands[self.turn_player]:
            self.additional_spend += self.merchants_played  # TAG: +$1 per Merchant played if a Silver is in hand

    def _end_turn(self) -> None:
        seat = self.turn_player
        hand, tableau, discard = self.hands[seat], self.tableaux[seat], self.discards[seat]
        discard += hand
        discard += tableau
        hand.clear()
        tableau.clear()
        self.revealed[seat].clear()
        self.draw(seat, self.game.hand_size)
        self.defence_status = [False] * self.n_players
        self.phase = PLAY
        self.actions, self.buys, self.spent, self.additional_spend, self.merchants_played = 1, 1, 0, 0, 0
        self.turn_player = (seat + 1) % self.n_players
        self.turn_counter += 1
        if self.turn_player == 0:
            self.round_counter += 1

    def clone(self) -> "DominionState":
        return self._copy(list(map(list, self.hands)), list(map(list, self.draw_piles)))

    def _copy(self, hands: list[list[str]], draw_piles: list[list[str]]) -> "DominionState":
        """A copy of this state with the given (new) hands and draw piles."""
        other = DominionState.__new__(DominionState)
        other.game = self.game
        other.n_players = self.n_players
        other.supply = dict(self.supply)
        other.hands = hands
        other.draw_piles = draw_piles
        other.discards = list(map(list, self.discards))
        other.tableaux = list(map(list, self.tableaux))
        other.trash = list(self.trash)
        other.defence_status = list(self.defence_status)
        other.revealed = list(map(list, self.revealed))
        other.pending = dict(self.pending) if self.pending is not None else None
        other.phase = self.phase
        other.turn_player = self.turn_player
        other.actions = self.actions
        other.buys = self.buys
        other.spent = self.spent
        other.additional_spend = self.additional_spend
        other.merchants_played = self.merchants_played
        other.turn_counter = self.turn_counter
        other.round_counter = self.round_counter
        other.terminal = self.terminal
        other.chance_seed = self.chance_seed
        return other

    def is_terminal(self) -> bool:
        return self.terminal

    def scores(self) -> list[float]:
        """Victory points over every card a seat owns (hand, draw pile, discard, tableau)."""
        scores = []
        for hand, draw, discard, tableau in zip(self.hands, self.draw_piles, self.discards, self.tableaux):
            cards = hand + draw + discard + tableau
            scores.append(float(VP_1_POINTS * cards.count(VP_1) + VP_2_POINTS * cards.count(VP_2)
                                + VP_3_POINTS * cards.count(VP_3)))
        return scores

    def score(self, seat: int) -> float:
        """scores()[seat] without counting the other seats' cards (the baseline OSLA values every child by it)."""
        cards = self.hands[seat] + self.draw_piles[seat] + self.discards[seat] + self.tableaux[seat]
        return float(VP_1_POINTS * cards.count(VP_1) + VP_2_POINTS * cards.count(VP_2)
                     + VP_3_POINTS * cards.count(VP_3))

    def returns(self) -> list[int]:
        if not self.terminal:
            return [0] * self.n_players
        return returns_from_scores(self.scores())

    def key(self):
        """Hand, discard, tableau and trash order do not matter to play; draw pile order does."""
        return (tuple(self.supply.values()), tuple(tuple(sorted(h)) for h in self.hands),
                tuple(tuple(d) for d in self.draw_piles), tuple(tuple(sorted(d)) for d in self.discards),
                tuple(tuple(sorted(t)) for t in self.tableaux), tuple(sorted(self.trash)),
                tuple(self.defence_status), tuple(tuple(sorted(r)) for r in self.revealed),
                self.phase, self.turn_player, self.actions, self.buys, self.spent, self.additional_spend,
                self.merchants_played, tuple(sorted(self.pending.items())) if self.pending else None,
                self.terminal)

    # ----- JSON and hidden information -----------------------------------------------------------
    def to_json(self, dialect: str = OURS) -> dict:
        if dialect != OURS and check_dialect("dominion", dialect) == TAG:
            return dominion_tag.tag_json(self)
        return {
            "cardsIncludedInGame": dict(self.supply),
            "playerHands": list(map(list, self.hands)),
            "playerDrawPiles": list(map(list, self.draw_piles)),
            "playerDiscards": list(map(list, self.discards)),
            "playerTableaux": list(map(list, self.tableaux)),
            "trashPile": list(self.trash),
            "defenceStatus": list(self.defence_status),
            "revealedHandCards": list(map(list, self.revealed)),
            **self._turn_json(),
            **common_json(self, GAME_TYPE),
        }

    def json_parts(self) -> dict:
        """to_json() as parts (State.json_parts): every card zone card by card, each supply pile and turn field by
        its value; the root holds what the outcome sets."""
        terminal = self.terminal
        parts = {(): tuple(self.returns()) if terminal else None, **{SUPPLY_PARTS[card]: count
                                                                     for card, count in self.supply.items()},
                 ("trashPile",): Items(self.trash), ("defenceStatus",): Items(self.defence_status),
                 ("gamePhase",): self.phase, ("turnPlayer",): self.turn_player, ("actionsLeft",): self.actions,
                 ("buysLeft",): self.buys, ("spentSoFar",): self.spent, ("additionalSpend",): self.additional_spend,
                 ("merchantsPlayed",): self.merchants_played, ("roundCounter",): self.round_counter,
                 ("turnCounter",): self.turn_counter, ("turnOwner",): -1 if terminal else self.current_player}
        for zones, locations in ((self.hands, HAND_PARTS), (self.draw_piles, DRAW_PARTS),
                                 (self.discards, DISCARD_PARTS), (self.tableaux, TABLEAU_PARTS),
                                 (self.revealed, REVEALED_PARTS)):
            for location, cards in zip(locations, zones):
                parts[location] = Items(cards)
        if self.pending is not None:
            parts[("pendingEffect",)] = tuple(self.pending.items())
        return parts

    def json_changes(self, reference) -> list[tuple] | None:
        """The to_json() values in which this state differs from `reference` (State.json_changes; json_changes.py)."""
        return dominion_changes(self, reference)

    def _turn_json(self) -> dict:
        doc = {"gamePhase": self.phase, "turnPlayer": self.turn_player, "actionsLeft": self.actions,
               "buysLeft": self.buys, "spentSoFar": self.spent, "additionalSpend": self.additional_spend,
               "merchantsPlayed": self.merchants_played, "roundCounter": self.round_counter}
        if self.pending is not None:  # absent rather than null, as Gson omits null fields
            doc["pendingEffect"] = dict(self.pending)
        return doc

    def observation_json(self, player: int) -> dict:
        if not 0 <= player < self.n_players:
            raise ValueError(f"dominion: observation_json player {player} is not a seat of {self.n_players}")
        return {
            "observer": player,
            "cardsIncludedInGame": dict(self.supply),
            "playerHand": list(self.hands[player]),
            "handSizes": list(map(len, self.hands)),
            "revealedHandCards": [sorted(r, key=CARD_ORDER.__getitem__) if r else [] for r in self.revealed],
            "drawPileSizes": list(map(len, self.draw_piles)),
            "unlocatedCards": [self._unlocated_counts(q, player) for q in range(self.n_players)],
            "playerDiscards": list(map(list, self.discards)),
            "playerTableaux": list(map(list, self.tableaux)),
            "trashPile": list(self.trash),
            "defenceStatus": list(self.defence_status),
            "victoryPoints": self.scores(),
            **self._turn_json(),
            **common_json(self, GAME_TYPE),
        }

    def _unlocated_counts(self, seat: int, observer: int) -> dict[str, int]:
        """How many of each card `_unlocated(seat, observer)` holds, in card order."""
        if seat == observer:
            cards = self.draw_piles[seat]
        else:
            cards = self.hands[seat] + self.draw_piles[seat]
            for card in self.revealed[seat]:
                cards.remove(card)
        return {card: cards.count(card) for card in sorted(set(cards), key=CARD_ORDER.__getitem__)}

    def _unlocated(self, seat: int, observer: int) -> list[str]:
        """Cards of `seat` whose zone or position `observer` cannot tell: sorted, so order leaks nothing."""
        if seat == observer:
            return sorted(self.draw_piles[seat])
        hidden = self.hands[seat] + self.draw_piles[seat]
        for card in self.revealed[seat]:  # revealed cards are in the hand, so the hand's copy goes
            hidden.remove(card)
        hidden.sort()
        return hidden

    def determinize(self, player: int, rng: random.Random) -> "DominionState":
        return self.determinizer(player)(rng)

    def determinizer(self, player: int):
        """determinize(player, rng) as a function of rng: each seat's unlocated cards are sorted once, then
        every sample shuffles a copy of them and deals it (the draws of one determinize call)."""
        if not 0 <= player < self.n_players:
            raise ValueError(f"dominion: determinize player {player} is not a seat of {self.n_players}")
        deals = []  # per seat: (its unlocated cards sorted, the hand cards it keeps, how many hidden hand cards)
        for seat in range(self.n_players):
            if seat == player:
                deals.append((self._unlocated(seat, player), self.hands[seat], -1))  # the whole hand is kept
            else:
                hidden_in_hand = len(self.hands[seat]) - len(self.revealed[seat])
                deals.append((self._unlocated(seat, player), self.revealed[seat], hidden_in_hand))
        copy = self._copy

        def sample(rng: random.Random) -> "DominionState":
            hands, draw_piles = [], []
            for unlocated, kept, hidden_in_hand in deals:
                cards = unlocated[:]
                shuffle(rng, cards)
                if hidden_in_hand < 0:
                    hands.append(kept[:])
                else:
                    hands.append(kept + cards[:hidden_in_hand])
                    del cards[:hidden_in_hand]
                draw_piles.append(cards)
            state = copy(hands, draw_piles)
            state.chance_seed = rng.getrandbits(64)
            return state

        return sample


class Dominion(Game):
    """Dominion with the First Game kingdom; parameters and supply counts are TAG's defaults."""

    name = "dominion"
    info = GameInfo(
        baseline_heuristic="pure_score", outcome_fields=COMMON_OUTCOME_FIELDS,
        turn_order_fields=(*COMMON_TURN_ORDER_FIELDS, "turnPlayer", "roundCounter"),  # whose turn; rounds completed
        hidden_information=True, tag=dominion_tag, tag_game_type=dominion_tag.GAME_TYPE)

    def __init__(self, **params):
        self.params = check_params("dominion", params, DEFAULT_PARAMS)
        for name, value in self.params.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"dominion: parameter {name}={value!r} must be a non-negative int")
        if self.params["n_players"] not in VICTORY_CARDS_PER_PLAYER:
            raise ValueError(f"dominion: n_players={self.params['n_players']} must be 2, 3 or 4")
        if self.params["hand_size"] < 1 or self.params["piles_exhausted_for_game_end"] < 1:
            raise ValueError("dominion: hand_size and piles_exhausted_for_game_end must be at least 1")
        self.n_players = self.params["n_players"]
        self.hand_size = self.params["hand_size"]

    def initial_supply(self) -> dict[str, int]:
        p = self.params
        victory = VICTORY_CARDS_PER_PLAYER[self.n_players]
        supply = {"PROVINCE": victory, "DUCHY": victory, "ESTATE": victory, "GOLD": p["gold_supply"],
                  "SILVER": p["silver_supply"], "COPPER": p["copper_supply"]}
        supply.update({card: p["kingdom_cards_of_each_type"] for card in FIRST_GAME_KINGDOM})
        return supply

    def new_state(self, seed: int = 0) -> DominionState:
        rng = random.Random(seed)
        state = DominionState(self, rng.getrandbits(64))
        state.supply = self.initial_supply()
        for seat in range(self.n_players):
            deck = ["COPPER"] * self.params["starting_copper"] + ["ESTATE"] * self.params["starting_estates"]
            rng.shuffle(deck)
            state.draw_piles[seat] = deck
            state.draw(seat, self.params["hand_size"])
        state.terminal = state._supply_exhausted()
        return state

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> DominionState:
        """Inverse of DominionState.to_json in `dialect`; later reshuffles are drawn from `seed`."""
        if check_dialect(self.name, dialect) == TAG:
            return dominion_tag.from_tag_json(self, doc, seed)
        if not isinstance(doc, dict) or doc.get("gameType") != GAME_TYPE or doc.get("nPlayers") != self.n_players:
            raise ValueError(f"dominion: from_json needs a {GAME_TYPE} document for {self.n_players} players")
        state = DominionState(self, random.Random(seed).getrandbits(64))
        read_state_fields(state, doc, set(self.initial_supply()))
        try:
            consistent = (valid_turn(state) and state.to_json() == doc
                          and state.terminal == state._supply_exhausted())
        except (KeyError, TypeError, IndexError, ValueError):
            consistent = False
        if not consistent:
            raise ValueError("dominion: from_json document is inconsistent (phase, seats, pendingEffect, "
                             "revealed cards or game status)")
        return state
