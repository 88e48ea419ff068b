"""7 Wonders (base game) as TAG plays it, for 3 to 7 players (default 4).

Turns: cards are chosen simultaneously in the real game. Here seats 0..n-1 choose in turn, each without
seeing the choices already made this round (they stay hidden in `turnActions` until everybody has chosen);
then all choices resolve in seat order, hands rotate (age I and III: seat p passes to p - 1, its left
neighbour; age II: to p + 1) and, when one card is left, the age ends: the last cards are discarded,
military is scored and the next age is dealt. Every choice is one turn (`turn_counter` + 1).

Actions (JSON lists are accepted):
- ("play", card, to_left, to_right): build a card from hand; the payment is carried in the action:
  coins to the left (seat - 1) and right (seat + 1) neighbours for their goods. Every Pareto-minimal
  payment is offered; a free card (no cost, a chain prerequisite built, an Olympia power) is (0, 0) only.
  A card's own coin cost is paid on top. No duplicate structures (Loom = LoomAge2, etc., as TAG).
- ("wonder", card, to_left, to_right): build the next wonder stage, tucking `card` (TAG puts it in the
  discard pile). As TAG, paid from own production only unless `stage_trading=True` (printed rule); own
  two-good producers and wilds count here, where TAG counts single-good production only.
- ("discard", card): discard for 3 coins.
- ("build_discard", card) or ("pass",): Halicarnassus builds a discard for free (an extra turn).
Trading prices: 2 per good; EastTradingPost makes basic goods of seat - 1 cost 1 and WestTradingPost those
of seat + 1 (TAG's mapping; the printed cards name the other sides); Marketplace makes grey goods cost 1.

Wonder powers as TAG: Halicarnassus (day stage 2, every night stage) builds a card from the discard pile
after the round; Babylon (night stage 1) builds for free the last card of each age, the one passed to it
after the sixth round (discarded if it would be a duplicate, where TAG would build it again); Olympia day
stage 2 makes the first card of each colour free, night stage 1 the first card of each age and stage 2
the card played from a hand of two.
Scoring (TAG): Victory + coins // 3 + science (wilds assigned optimally) + end-game card effects. TAG
has no tiebreak (the printed rules use coins): all tied leaders draw. Military: see scoring.military_points.

Hidden information: other seats' hands, the discard pile (cards discarded, tucked under wonders and left
over at age ends; visible only to Halicarnassus while it builds from it) and other seats' choices of the
round. Memory is not modelled: passing does not reveal hands to the seats that held them before.
"""

from __future__ import annotations

import random
from typing import Hashable

import engines.seven_wonders.tag_json as seven_wonders_tag
from engines.base import (COMMON_OUTCOME_FIELDS, COMMON_TURN_ORDER_FIELDS, OURS, TAG, Game, State, check_dialect,
                          check_params, normalize_action, returns_from_scores)
from engines.chance import shuffle
from engines.info import GameInfo
from engines.seven_wonders.cards import (BABYLON, CARDS, CARDS_PER_HAND, GUILDS, HALICARNASSUS, INDEX, MAX_PLAYERS,
                                         MIN_PLAYERS, OLYMPIA, RESOURCES, SAME_STRUCTURE, WONDER_ORDER, WONDERS,
                                         age_deck)
from engines.seven_wonders.hidden import determinize, determinizer
from engines.seven_wonders.state_json import parse_state, state_json, state_parts
from engines.seven_wonders.scoring import MILITARY_RULES, effect_gain, military_points, victory_points
from engines.seven_wonders.trade import NO_SUPPLY, cost_parts, payment_front, seat_supply, seller_supply, sellable_units

COIN, SHIELD = INDEX["Coin"], INDEX["Shield"]
STARTING_COINS, DISCARD_COINS, PRICE, DISCOUNT = 3, 3, 2, 1
LAST_AGE = 3
COST_PARTS = {name: cost_parts(card.cost) for name, card in CARDS.items()}
STAGE_PARTS = {name: tuple(tuple(cost_parts(cost) for cost in side) for side in wonder.costs)
               for name, wonder in WONDERS.items()}
FREE_PLAY = {name: ("play", name, 0, 0) for name in CARDS}  # shared action tuples (they are immutable)
DISCARD = {name: ("discard", name) for name in CARDS}
# The other card that counts as the same structure (LoomAge2 for Loom, ...): no duplicates are built.
TWIN = {name: other for name in SAME_STRUCTURE for other in SAME_STRUCTURE
        if other != name and SAME_STRUCTURE[other] == SAME_STRUCTURE[name]}


class SevenWonders(Game):
    """7 Wonders for `n_players` (3..7); `military` "both_neighbours" or "next_seat" (TAG); `stage_trading`."""

    name = "seven_wonders"
    info = GameInfo(
        baseline_heuristic="wonders7_vp_share", outcome_fields=COMMON_OUTCOME_FIELDS,
        turn_order_fields=COMMON_TURN_ORDER_FIELDS, simultaneous=True, hidden_information=True,
        tag=seven_wonders_tag, tag_game_type=seven_wonders_tag.GAME_TYPE)
    n_players = 4
    defaults = {"n_players": 4, "military": "both_neighbours", "stage_trading": False}

    def __init__(self, **params):
        self.params = check_params(self.name, params, self.defaults)
        n = self.params["n_players"]
        if type(n) is not int or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ValueError(f"seven_wonders: n_players must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}")
        if self.params["military"] not in MILITARY_RULES:
            raise ValueError(f"seven_wonders: military must be one of {MILITARY_RULES}, "
                             f"got {self.params['military']!r}")
        if type(self.params["stage_trading"]) is not bool:
            raise ValueError(f"seven_wonders: stage_trading must be a bool, got {self.params['stage_trading']!r}")
        self.n_players = n
        self.military = self.params["military"]
        self.stage_trading = self.params["stage_trading"]

    def new_state(self, seed: int = 0) -> "SevenWondersState":
        state = SevenWondersState(self, seed)
        rng = random.Random(seed)
        boards = [(name, rng.randrange(2)) for name in WONDER_ORDER]
        rng.shuffle(boards)
        for seat in range(self.n_players):
            name, side = boards[seat]
            state.boards[seat] = [name, side, 1, False]
            state.res[seat][INDEX[WONDERS[name].resource]] = 1
            state.res[seat][COIN] = STARTING_COINS
        state.board_deck = boards[self.n_players:]
        state.deal_age()
        return state

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> "SevenWondersState":
        """Inverse of SevenWondersState.to_json in `dialect`; later ages are dealt from `seed`."""
        if check_dialect(self.name, dialect) == TAG:
            return seven_wonders_tag.from_tag_json(self, doc, seed)
        return parse_state(SevenWondersState(self, seed), doc)


class SevenWondersState(State):
    """A 7 Wonders position: hands, tableaux, discard pile, resources, boards and the round's choices."""

    __slots__ = ("game", "chance_seed", "n_players", "turn_counter", "age", "direction", "hands", "hand_ids", "played",
                 "discard", "res", "boards", "board_deck", "pending", "builder", "_legal", "_choices")

    def __init__(self, game: SevenWonders, chance_seed: int):
        n = game.n_players
        self.game, self.chance_seed, self.n_players = game, chance_seed, n  # chance_seed: later age deals
        self.turn_counter = 0
        self.age, self.direction = 1, 1
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.hand_ids = list(range(n))  # which named hand deck each seat holds (TAG's decks travel)
        self.played: list[list[str]] = [[] for _ in range(n)]
        self.discard: list[str] = []
        self.res = [[0] * len(RESOURCES) for _ in range(n)]
        self.boards: list[list] = [[None, 0, 1, False] for _ in range(n)]  # wonder, side, next stage, effect used
        self.board_deck: list[tuple] = []
        self.pending: list = [None] * n
        self.builder = -1  # seat building from the discard pile, or -1
        self._legal = None
        # Each seat's choices this round, computed once: until the round resolves only `pending` changes, which no
        # seat's choices read, so clones share the dict (a decision's children each play the other seats' choices);
        # whatever changes hands, cards or resources starts a new dict.
        self._choices: dict[int, list] = {}

    # -- contract ---------------------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        if self.builder >= 0:
            return self.builder
        for seat, choice in enumerate(self.pending):
            if choice is None:
                return seat
        return 0

    def is_terminal(self) -> bool:
        return self.age > LAST_AGE

    def legal_actions(self) -> list:
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def apply(self, action) -> None:
        action = normalize_action(action)
        if self._legal is None:
            self._legal = self._compute_legal()
        if action not in self._legal:
            raise ValueError(f"seven_wonders: illegal action {action!r} for seat {self.current_player}")
        self._play(action)

    def random_playout(self, rand, max_actions: int) -> None:
        """Apply up to `max_actions` moves legal_actions()[int(rand() * n)], as the generic MCTS rollout does,
        without apply's normalising and legality check (the action is taken from the legal list)."""
        for _ in range(max_actions):
            if self.age > LAST_AGE:
                break
            legal = self._legal
            if legal is None:
                legal = self._compute_legal()
            self._play(legal[int(rand() * len(legal))])

    def _play(self, action) -> None:
        """Apply a legal `action` (normalised) for the current player."""
        self._legal = None
        self.turn_counter += 1
        if self.builder >= 0:
            self._choices = {}
            seat, self.builder = self.builder, -1
            if action[0] == "build_discard":
                self.discard.remove(action[1])
                self._build(seat, action[1])
            self._finish_round()
            return
        self.pending[self.current_player] = action
        if None not in self.pending:
            self._resolve_round()

    def clone(self) -> "SevenWondersState":
        other = SevenWondersState.__new__(SevenWondersState)
        other.game, other.n_players, other.turn_counter = self.game, self.n_players, self.turn_counter
        other.chance_seed = self.chance_seed
        other.age, other.direction, other.builder = self.age, self.direction, self.builder
        other.hands = [hand[:] for hand in self.hands]
        other.hand_ids = self.hand_ids[:]
        other.played = [cards[:] for cards in self.played]
        other.discard = self.discard[:]
        other.res = [r[:] for r in self.res]
        other.boards = [b[:] for b in self.boards]
        other.board_deck = self.board_deck[:]
        other.pending = self.pending[:]
        other._legal = self._legal
        other._choices = self._choices  # shared: see __init__
        return other

    def returns(self) -> list[int]:
        if not self.is_terminal():
            return [0] * self.n_players
        return returns_from_scores(self.scores())

    def scores(self) -> list[float]:
        stages, complete = self.stages_built(), self.wonders_complete()
        return [float(victory_points(p, self.res, self.played, stages, complete)) for p in range(self.n_players)]

    def vp_estimates(self) -> list[int]:
        """Each seat's game score with the running age's military already fought on today's shields (TAG's
        Wonders7Heuristic estimate); the plain scores once the game is over."""
        estimates = [int(score) for score in self.scores()]
        if self.is_terminal():
            return estimates
        shields = [r[SHIELD] for r in self.res]
        return [e + d for e, d in zip(estimates, military_points(shields, self.age, self.game.military))]

    def round_in_progress(self) -> bool:
        """Whether some seat has chosen this round and the choices still wait to be resolved."""
        return any(choice is not None for choice in self.pending)

    def key(self) -> Hashable:
        return (self.age, self.direction, self.builder, tuple(tuple(sorted(h)) for h in self.hands),
                tuple(tuple(sorted(p)) for p in self.played), tuple(sorted(self.discard)),
                tuple(tuple(r) for r in self.res), tuple(tuple(b) for b in self.boards), tuple(self.pending))

    def to_json(self, dialect: str = OURS) -> dict:
        if dialect != OURS and check_dialect("seven_wonders", dialect) == TAG:
            return seven_wonders_tag.tag_json(self)
        return state_json(self)

    def json_parts(self) -> dict:
        """to_json() as parts (State.json_parts): each resource, card and board by its value."""
        return state_parts(self)

    def observation_json(self, player: int) -> dict:
        self._check_seat(player)
        return state_json(self, viewer=player)

    def determinize(self, player: int, rng: random.Random) -> "SevenWondersState":
        self._check_seat(player)
        return determinize(self, player, rng)

    def determinizer(self, player: int):
        """determinize(player, rng) as a function of rng, the hidden pools gathered once (hidden.determinizer)."""
        self._check_seat(player)
        return determinizer(self, player)

    # -- helpers used by the JSON and hidden-information modules --------------------------------------

    def stages_built(self) -> list[int]:
        return [board[2] - 1 for board in self.boards]

    def wonders_complete(self) -> list[bool]:
        return [board[2] - 1 == len(WONDERS[board[0]].costs[board[1]]) for board in self.boards]

    def seat_actions(self, seat: int) -> list:
        """The choices open to `seat` in the current round (plays, wonder stages, discards)."""
        hand, played = self.hands[seat], self.played[seat]
        distinct = list(dict.fromkeys(hand))  # first occurrences, in hand order
        actions = []  # plays, then wonder stages, then discards
        res, n = self.res, self.n_players
        own, prices, coins = seat_supply(res[seat]), self._prices(seat), res[seat][COIN]
        left = right = None  # what the neighbours sell, looked up once a card has a cost
        built = set(played)  # membership tests per card in hand: a set, not the list
        olympia = self.boards[seat][0] == OLYMPIA  # only Olympia frees cards other than by chains
        for name in distinct:
            if name in built or TWIN.get(name) in built:
                continue
            card = CARDS[name]
            if not card.cost or not built.isdisjoint(card.chains) or (olympia and self._is_free(seat, card, len(hand))):
                actions.append(FREE_PLAY[name])
            else:
                coin, need = COST_PARTS[name]
                if left is None:
                    left, right = seller_supply(res[(seat - 1) % n]), seller_supply(res[(seat + 1) % n])
                for l, r in payment_front(need, own, left, right, prices, coins - coin):
                    actions.append(("play", name, l, r))
        wonder, side, stage, _ = self.boards[seat]
        stage_costs = STAGE_PARTS[wonder][side]
        if stage <= len(stage_costs):
            if not self.game.stage_trading:
                left = right = NO_SUPPLY
            elif left is None:
                left, right = seller_supply(res[(seat - 1) % n]), seller_supply(res[(seat + 1) % n])
            coin, need = stage_costs[stage - 1]
            options = payment_front(need, own, left, right, prices, coins - coin)
            if options:  # (a comprehension costs more than a few appends)
                for name in distinct:
                    for l, r in options:
                        actions.append(("wonder", name, l, r))
        actions += map(DISCARD.__getitem__, distinct)
        return actions

    def discard_builds(self, seat: int) -> list:
        built = {SAME_STRUCTURE.get(name, name) for name in self.played[seat]}
        options = sorted({name for name in self.discard if SAME_STRUCTURE.get(name, name) not in built})
        return [("build_discard", name) for name in options] or [("pass",)]

    def deal_age(self) -> None:
        """Shuffle the current age's deck (age III: plus nPlayers + 2 random guilds) and deal 7 cards each.

        The shuffle is drawn from the chance seed and the age, so a state's future is fixed by its seed.
        """
        rng = random.Random(f"{self.chance_seed}/age{self.age}")
        deck = age_deck(self.age, self.n_players)
        if self.age == LAST_AGE:
            guilds = list(GUILDS)
            shuffle(rng, guilds)
            deck += guilds[: self.n_players + 2]
        shuffle(rng, deck)
        for seat in range(self.n_players):
            self.hands[seat].extend(deck[seat * CARDS_PER_HAND:(seat + 1) * CARDS_PER_HAND])

    # -- rules -----------------------------------------------------------------------------------------

    def _check_seat(self, player: int) -> None:
        if type(player) is not int or not 0 <= player < self.n_players:
            raise ValueError(f"seven_wonders: seat {player!r} is not in 0..{self.n_players - 1}")

    def _compute_legal(self) -> list:
        if self.is_terminal():
            return []
        if self.builder >= 0:
            return self.discard_builds(self.builder)
        seat = self.current_player
        choices = self._choices.get(seat)
        if choices is None:
            choices = self._choices[seat] = self.seat_actions(seat)
        return choices

    def _is_free(self, seat: int, card, hand_size: int) -> bool:
        if not card.cost:
            return True
        played = self.played[seat]
        for name in card.chains:
            if name in played:
                return True
        wonder, side, stage, _ = self.boards[seat]
        if wonder == OLYMPIA:
            if side == 0 and stage > 2 and all(CARDS[name].kind != card.kind for name in played):
                return True
            if side == 1 and ((stage > 1 and hand_size == CARDS_PER_HAND) or (stage > 2 and hand_size == 2)):
                return True
        return False

    def _prices(self, seat: int) -> tuple:
        """`seat`'s unit prices: (left basic, left rare, right basic, right rare)."""
        played = self.played[seat]
        rare = DISCOUNT if "Marketplace" in played else PRICE
        return (DISCOUNT if "EastTradingPost" in played else PRICE, rare,
                DISCOUNT if "WestTradingPost" in played else PRICE, rare)

    def _market(self, seat: int) -> tuple:
        """What `seat` can buy in trade.payment_options form: (left neighbour's units, right's, unit prices)."""
        n = self.n_players
        return sellable_units(self.res[(seat - 1) % n]), sellable_units(self.res[(seat + 1) % n]), self._prices(seat)

    def _resolve_round(self) -> None:
        """Execute every seat's choice in seat order, then Halicarnassus, rotation and the age end."""
        choices, self.pending = self.pending, [None] * self.n_players
        self._choices = {}
        for seat, action in enumerate(choices):
            self._execute(seat, action)
        for seat, board in enumerate(self.boards):
            wonder, side, stage, used = board
            if wonder == HALICARNASSUS and not used and ((side == 0 and stage == 3) or (side == 1 and stage > 1)):
                board[3] = True
                self.builder = seat
                return
        self._finish_round()

    def _execute(self, seat: int, action: tuple) -> None:
        n, kind, name = self.n_players, action[0], action[1]
        self.hands[seat].remove(name)
        if kind == "discard":
            self.res[seat][COIN] += DISCARD_COINS
            self.discard.append(name)
            return
        to_left, to_right = action[2], action[3]
        self.res[seat][COIN] -= to_left + to_right
        self.res[(seat - 1) % n][COIN] += to_left
        self.res[(seat + 1) % n][COIN] += to_right
        if kind == "wonder":
            board = self.boards[seat]
            for resource, k in WONDERS[board[0]].rewards[board[1]][board[2] - 1]:
                self.res[seat][INDEX[resource]] += k
            board[2] += 1
            board[3] = False
            self.discard.append(name)
            return
        card = CARDS[name]
        if not self._is_free(seat, card, len(self.hands[seat]) + 1):
            self.res[seat][COIN] -= COST_PARTS[name][0]  # the card's coins
        self._build(seat, name)

    def _build(self, seat: int, name: str) -> None:
        """Add a card to `seat`'s tableau: its production, then its instant effects."""
        card = CARDS[name]
        self.played[seat].append(name)
        own = self.res[seat]
        for resource, k in card.produces:
            own[INDEX[resource]] += k
        if card.instant:
            stages, complete = self.stages_built(), self.wonders_complete()
            for effect in card.instant:
                own[INDEX[effect.resource]] += effect_gain(effect, seat, self.played, stages, complete)

    def _finish_round(self) -> None:
        """Rotate hands; when one card is left, end the age."""
        if self.direction == 1:
            self.hands = self.hands[1:] + self.hands[:1]
            self.hand_ids = self.hand_ids[1:] + self.hand_ids[:1]
        else:
            self.hands = self.hands[-1:] + self.hands[:-1]
            self.hand_ids = self.hand_ids[-1:] + self.hand_ids[:-1]
        if len(self.hands[0]) == 1:
            self._end_age()

    def _end_age(self) -> None:
        for seat, hand in enumerate(self.hands):
            wonder, side, stage, _ = self.boards[seat]
            last = hand.pop()
            built = {SAME_STRUCTURE.get(name, name) for name in self.played[seat]}
            if wonder == BABYLON and side == 1 and stage > 1 and SAME_STRUCTURE.get(last, last) not in built:
                self._build(seat, last)
            else:
                self.discard.append(last)
        self.direction = -self.direction
        shields = [r[SHIELD] for r in self.res]
        for seat, delta in enumerate(military_points(shields, self.age, self.game.military)):
            self.res[seat][INDEX["Victory"]] += delta
        self.age += 1
        if self.age <= LAST_AGE:
            self.deal_age()
