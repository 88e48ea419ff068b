"""Sea Salt & Paper as TAG plays it (docs/RULES.md 2.4, TAG `games/seasaltpaper`): 58 cards, duos, STOP, LAST CHANCE.

Turn: DRAW ("take_discard" top of pile 1/2, or "draw" 2 and then ("discard", i, pile) one of them; "pass" if
nothing can be drawn), then DUO (("duo", "boat"), ("duo", "fish"), ("duo", "crab", pile) then ("crab_take", i),
("duo", "swimmer_shark", victim), "end_turn", "stop", "last_chance"). Card indices count from the front of the
JSON list: index 0 is a pile's top card, or the newest card in a hand (TAG adds cards at the front).
A turn (`turn_counter`) is a player's whole turn: a boat pair's extra turn stays in the same turn (TAG does
not end the turn either), and TAG's dummy DoNothing before the extra DRAW is skipped. A new round is dealt
at once after round scoring, so the state recorded after a round-ending turn is the next round's deal.
Information: discard piles are public in full (every card in them was discarded face up; TAG makes them
VISIBLE_TO_ALL), opponents' hands are hidden until protected by LAST CHANCE, the draw pile is hidden.
An observation is the current state as seen, not a memory of past moves (as TAG's redeterminisation).
Departures from TAG: the crab pair is offered whenever either discard pile has cards (TAG's check tests
pile 1 twice); a hand's "visibility" is VISIBLE_TO_ALL exactly while it is protected (TAG never resets it).
"""

from __future__ import annotations

import random
from _random import Random as _CRandom
from collections import Counter
from typing import Hashable

import engines.sea_salt_paper.tag_json as sea_salt_paper_tag
from engines.base import (COMMON_OUTCOME_FIELDS, COMMON_TURN_ORDER_FIELDS, OURS, TAG, Action, Game, State,
                          check_dialect, check_params, normalize_action, returns_from_scores)
from engines.chance import shuffle
from engines.info import GameInfo
from engines.sea_salt_paper.cards import (DECK, N_SLOTS, N_TYPES, SHARK_SLOT, SLOT, SUITES, SWIMMER_SLOT,
                                         colour_bonus, hand_points, slot_counts)
from engines.sea_salt_paper.state_json import CRAB, DISCARD, DRAW, DUO, OVER, load_state, state_document, state_parts

# The generator of chance events, re-seeded for each with the state's chance_seed, as random.Random(seed) seeds
# a new one (_random's seed without random.Random's Python layers: the same state, a little faster).
_CHANCE_RNG = random.Random()
_seed_rng = _CRandom.seed
VICTORY_THRESHOLDS = (40, 35, 30)  # TAG's victoryCondition for 2, 3, 4 players
CRAB_ID, BOAT_ID, FISH_ID, SWIMMER_ID, SHARK_ID = map(SUITES.index, ("CRAB", "BOAT", "FISH", "SWIMMER", "SHARK"))
CRAB_SLOT, BOAT_SLOT, FISH_SLOT = CRAB_ID * N_TYPES, BOAT_ID * N_TYPES, FISH_ID * N_TYPES  # their duo cards
PAIR_SLOTS = {"crab": (CRAB_SLOT, CRAB_SLOT), "boat": (BOAT_SLOT, BOAT_SLOT), "fish": (FISH_SLOT, FISH_SLOT),
              "swimmer_shark": (SWIMMER_SLOT, SHARK_SLOT)}  # the duo cards a play moves, as slots


class SeaSaltPaper(Game):
    """The game with TAG's defaults: 4 players, draw 2 discard 1, STOP at 7 hand points, 40/35/30 to win."""

    name = "sea_salt_paper"
    info = GameInfo(
        baseline_heuristic="score_and_hand", outcome_fields=COMMON_OUTCOME_FIELDS,
        turn_order_fields=(*COMMON_TURN_ORDER_FIELDS, "roundCounter", "firstPlayer"),  # rounds; who starts the round
        hidden_information=True, tag=sea_salt_paper_tag, tag_game_type=sea_salt_paper_tag.GAME_TYPE)
    n_players = 4
    defaults = {"n_players": 4, "draw_count": 2, "discard_count": 1, "round_stop": 7, "victory_threshold": None}

    def __init__(self, **params):
        self.params = check_params(self.name, params, self.defaults)
        for key, value in self.params.items():
            if not (value is None and key == "victory_threshold") and (type(value) is not int or value < 0):
                raise ValueError(f"sea_salt_paper: parameter {key} must be an int >= 0, got {value!r}")
        p = self.params
        if not 2 <= p["n_players"] <= 4:
            raise ValueError(f"sea_salt_paper: parameter n_players must be in 2..4, got {p['n_players']}")
        if p["draw_count"] < 1 or p["discard_count"] > p["draw_count"]:
            raise ValueError(f"sea_salt_paper: need draw_count >= 1 and discard_count <= draw_count, got {p}")
        if p["victory_threshold"] == 0:
            raise ValueError("sea_salt_paper: parameter victory_threshold must be >= 1 (or None for TAG's default)")
        self.n_players = p["n_players"]
        self.draw_count, self.discard_count, self.round_stop = p["draw_count"], p["discard_count"], p["round_stop"]
        self.threshold = p["victory_threshold"] or VICTORY_THRESHOLDS[self.n_players - 2]

    def new_state(self, seed: int = 0) -> "SeaSaltPaperState":
        """Round 0 dealt from `seed`, seat 0 to draw."""
        state = SeaSaltPaperState(self, seed)
        state.start_round(0)
        return state

    def from_json(self, doc: dict, seed: int = 0, dialect: str = OURS) -> "SeaSaltPaperState":
        """Rebuild a state from `to_json` output in `dialect`; shuffles and steals after the restart are drawn
        from `seed`."""
        if check_dialect(self.name, dialect) == TAG:
            return sea_salt_paper_tag.from_tag_json(self, doc, seed)
        state = SeaSaltPaperState(self, seed)
        load_state(state, doc)
        return state


class SeaSaltPaperState(State):
    """Piles are lists with the top (or a hand's newest card) at the end; to_json lists them front first."""

    __slots__ = ("game", "n_players", "hands", "played", "piles", "draw_pile", "totals", "protected",
                 "last_chance", "player", "phase", "pending_drawn", "pending_discards", "crab_pile",
                 "turn_counter", "round_counter", "first_player", "chance_seed", "legal", "counts", "points")

    def __init__(self, game: SeaSaltPaper, seed: int):
        n = game.n_players
        self.game, self.n_players = game, n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.played: list[list[int]] = [[] for _ in range(n)]  # TAG's playerDiscards (the played-duo area)
        self.piles: list[list[int]] = [[], []]
        self.draw_pile: list[int] = []
        self.totals = [0] * n
        self.protected = [False] * n
        self.last_chance = -1
        self.player = 0
        self.phase = DRAW
        self.pending_drawn = 0  # drawn cards (the newest in hand) that may still be discarded
        self.pending_discards = 0
        self.crab_pile = 0
        self.turn_counter = 0
        self.round_counter = 0
        self.first_player = 0
        self.chance_seed = seed
        self.legal: list[Action] | None = None  # cached legal actions; cleared by every change
        # Kept up to date as cards move (MCTS reads them at every DUO phase and every rollout's end): each hand's
        # slot_counts, and each seat's hand points (None: to be computed from the counts when next asked).
        # Code that sets hands or played areas directly calls recount() afterwards.
        self.counts: list[list[int]] = [[0] * N_SLOTS for _ in range(n)]
        self.points: list[int | None] = [None] * n

    # ----- chance -------------------------------------------------------------------------------------

    def chance(self) -> random.Random:
        """A generator for one chance event (random.Random(seed)'s draws; shared, so valid until the next call);
        the state's seed moves on, so clones replay identically."""
        rng = _CHANCE_RNG
        _seed_rng(rng, self.chance_seed)
        self.chance_seed = rng.getrandbits(64)
        return rng

    def start_round(self, first_player: int) -> None:
        """TAG's setupRound: shuffle all 58 cards, one card onto each discard pile, empty hands and areas."""
        deck = list(DECK)
        shuffle(self.chance(), deck)
        self.piles = [[deck.pop()], [deck.pop()]]
        self.draw_pile = deck
        self.hands = [[] for _ in range(self.n_players)]
        self.played = [[] for _ in range(self.n_players)]
        self.protected = [False] * self.n_players
        self.last_chance = -1
        self.player = self.first_player = first_player
        self.phase = DRAW
        self.recount()

    def recount(self) -> None:
        """Rebuild the hands' slot counts and drop the hand points (after hands or played areas were set)."""
        self.counts = [slot_counts(hand) for hand in self.hands]
        self.points = [None] * self.n_players

    # ----- the contract -------------------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def hand_points(self, seat: int) -> int:
        """cards.hand_points of `seat`'s hand and played duos, computed once per change of either."""
        points = self.points[seat]
        if points is None:
            points = self.points[seat] = hand_points(self.hands[seat], self.played[seat], self.game.threshold,
                                                     self.counts[seat])
        return points

    def gain(self, seat: int, card: int) -> None:
        """Add `card` to the front of `seat`'s hand."""
        self.hands[seat].append(card)
        self.counts[seat][SLOT[card]] += 1
        self.points[seat] = None

    def lose(self, seat: int, index: int) -> int:
        """Take the card at list position `index` out of `seat`'s hand."""
        card = self.hands[seat].pop(index)
        self.counts[seat][SLOT[card]] -= 1
        self.points[seat] = None
        return card

    def legal_actions(self) -> list[Action]:
        if self.legal is None:
            self.legal = self.list_legal_actions()
        return self.legal[:]

    def list_legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase == DRAW:
            actions = [("take_discard", p + 1) for p in (0, 1) if self.piles[p]]
            if self.draw_pile:
                actions.append("draw")
            return actions or ["pass"]
        if phase == DISCARD:
            piles = self.discard_targets()
            return [("discard", i, p) for i in range(self.pending_drawn) for p in piles]
        if phase == CRAB:
            return [("crab_take", i) for i in range(len(self.piles[self.crab_pile - 1]))]
        if phase == OVER:
            return []
        return self.duo_actions(self.counts[self.player]) + ["end_turn"] + self.stop_actions()

    def discard_targets(self) -> list[int]:
        """The empty-pile rule: an empty pile must take the discard (pile 1 if both are empty)."""
        if not self.piles[0]:
            return [1]
        if not self.piles[1]:
            return [2]
        return [1, 2]

    def duo_actions(self, counts: list[int]) -> list[Action]:
        """The duo plays open to the current player, whose hand has slot_counts `counts`."""
        actions: list[Action] = []
        if counts[CRAB_SLOT] >= 2:
            actions += [("duo", "crab", p + 1) for p in (0, 1) if self.piles[p]]
        if counts[BOAT_SLOT] >= 2:
            actions.append(("duo", "boat"))
        if counts[FISH_SLOT] >= 2 and self.draw_pile:
            actions.append(("duo", "fish"))
        if counts[SWIMMER_SLOT] and counts[SHARK_SLOT]:
            actions += [("duo", "swimmer_shark", t) for t in range(self.n_players)
                        if t != self.player and not self.protected[t] and self.hands[t]]
        return actions

    def stop_actions(self) -> list[Action]:
        """STOP and LAST CHANCE, open at `round_stop` hand points."""
        if self.last_chance == -1 and self.hand_points(self.player) >= self.game.round_stop:
            return ["stop", "last_chance"]
        return []

    def apply(self, action: Action) -> None:
        if type(action) is list:
            action = normalize_action(action)
        if self.legal is None:
            self.legal = self.list_legal_actions()
        if action not in self.legal:
            raise ValueError(f"sea_salt_paper: illegal action {action!r} for seat {self.player} in phase "
                             f"{self.phase}; legal actions: {self.legal}")
        self._play(action)

    def random_playout(self, rand, max_actions: int) -> None:
        """Apply up to `max_actions` moves legal_actions()[int(rand() * n)], as the generic MCTS rollout does,
        without apply's normalising and legality check (the action is taken from the legal list)."""
        piles = self.piles
        for _ in range(max_actions):
            phase = self.phase
            if phase == DRAW:  # the DRAW and DISCARD choices are picked by index, without listing them
                self.legal = None
                n_draw = (1 if piles[0] else 0) + (1 if piles[1] else 0)
                n = n_draw + (1 if self.draw_pile else 0)
                index = int(rand() * (n or 1))
                if index < n_draw:  # ("take_discard", pile): the first non-empty pile, then the second
                    pile = piles[0] if index == 0 and piles[0] else piles[1]
                    self.gain(self.player, pile.pop())
                    self.phase = DUO
                elif n:
                    self.draw_cards()
                else:  # "pass"
                    self.phase = DUO
            elif phase == DISCARD:
                self.legal = None
                targets = self.discard_targets()
                drawn, pile = divmod(int(rand() * (self.pending_drawn * len(targets))), len(targets))
                piles[targets[pile] - 1].append(self.lose(self.player, len(self.hands[self.player]) - 1 - drawn))
                self.pending_drawn -= 1
                self.pending_discards -= 1
                if self.pending_discards == 0:
                    self.pending_drawn = 0
                    self.phase = DUO
            elif phase == DUO:  # listed in parts; "end_turn", the usual pick, is played without the list
                self.legal = None
                duos, stops = self.duo_actions(self.counts[self.player]), self.stop_actions()
                index = int(rand() * (len(duos) + 1 + len(stops)))
                if index == len(duos):
                    self.finish_turn()
                else:
                    self._play(duos[index] if index < len(duos) else stops[index - len(duos) - 1])
                piles = self.piles  # a new round deals new piles
            elif phase == OVER:
                break
            else:
                legal = self.legal
                if legal is None:
                    legal = self.list_legal_actions()
                self._play(legal[int(rand() * len(legal))])
                piles = self.piles  # a new round deals new piles

    def _play(self, action: Action) -> None:
        """Apply a legal, normalised `action` for the current player."""
        self.legal = None
        kind = action if isinstance(action, str) else action[0]
        if kind == "take_discard":
            self.gain(self.player, self.piles[action[1] - 1].pop())
            self.phase = DUO
        elif kind == "draw":
            self.draw_cards()
        elif kind == "discard":
            self.piles[action[2] - 1].append(self.lose(self.player, len(self.hands[self.player]) - 1 - action[1]))
            self.pending_drawn -= 1
            self.pending_discards -= 1
            if self.pending_discards == 0:
                self.pending_drawn = 0
                self.phase = DUO
        elif kind == "pass":
            self.phase = DUO
        elif kind == "crab_take":
            pile = self.piles[self.crab_pile - 1]
            self.gain(self.player, pile.pop(len(pile) - 1 - action[1]))
            self.crab_pile = 0
            self.phase = DUO
        elif kind == "duo":
            self.play_duo(action)
        elif kind == "end_turn":
            self.finish_turn()
        elif kind == "last_chance":
            self.last_chance = self.player
            self.finish_turn()
        else:  # "stop"
            self.turn_counter += 1
            self.end_round()

    def draw_cards(self) -> None:
        """TAG's DrawAndDiscard: draw up to draw_count; a single drawn card is kept without a discard."""
        player, pile = self.player, self.draw_pile
        n = min(self.game.draw_count, len(pile))
        hand, counts = self.hands[player], self.counts[player]  # gain(), written out: every turn draws
        for _ in range(n):
            card = pile.pop()
            hand.append(card)
            counts[SLOT[card]] += 1
        self.points[player] = None
        discards = 0 if n == 1 else min(self.game.discard_count, n)
        if discards:
            self.phase, self.pending_drawn, self.pending_discards = DISCARD, n, discards
        else:
            self.phase = DUO

    def play_duo(self, action: tuple) -> None:
        """Move the first matching pair (front of the hand first, as TAG) to the played area, then its effect."""
        player = self.player
        hand, played = self.hands[player], self.played[player]
        for slot in PAIR_SLOTS[action[1]]:
            index = len(hand) - 1  # the last card of the slot: the hand's front is its end
            while SLOT[hand[index]] != slot:
                index -= 1
            played.append(self.lose(player, index))
        effect = action[1]
        if effect == "crab":
            self.crab_pile, self.phase = action[2], CRAB
        elif effect == "boat":
            self.phase = DRAW  # another turn for the same player, inside the same recorded turn
        elif effect == "fish":
            self.gain(player, self.draw_pile.pop())
        else:
            victim = action[2]
            self.gain(player, self.lose(victim, self.chance().randrange(len(self.hands[victim]))))

    def finish_turn(self) -> None:
        """TAG's FINISH phase: an empty draw pile ends the round; after LAST CHANCE the hand is protected."""
        self.turn_counter += 1
        if not self.draw_pile:
            self.end_round()
            return
        if self.last_chance != -1:
            self.protected[self.player] = True
            if all(self.protected):
                self.end_round()
                return
        self.player = (self.player + 1) % self.n_players
        self.phase = DRAW

    def end_round(self) -> None:
        """Bank the round (normal, or LAST CHANCE bet won / lost); end the game or deal the next round."""
        points = [self.hand_points(p) for p in range(self.n_players)]
        caller = self.last_chance
        for p in range(self.n_players):
            if caller == -1:
                self.totals[p] += points[p]
            elif points[caller] >= max(points):  # bet won: everyone gets the colour bonus, the caller also the hand
                self.totals[p] += colour_bonus(self.hands[p], self.played[p], 1) + (points[p] if p == caller else 0)
            else:  # bet lost: the caller gets only the colour bonus
                self.totals[p] += colour_bonus(self.hands[p], self.played[p], 1) if p == caller else points[p]
        if max(self.totals) >= self.game.threshold:
            self.phase = OVER
            return
        self.round_counter += 1
        self.start_round((self.player + 1) % self.n_players)

    def clone(self) -> "SeaSaltPaperState":
        other = SeaSaltPaperState.__new__(SeaSaltPaperState)
        other.game, other.n_players = self.game, self.n_players
        other.hands = [h[:] for h in self.hands]
        other.played = [h[:] for h in self.played]
        other.piles = [self.piles[0][:], self.piles[1][:]]
        other.draw_pile = self.draw_pile[:]
        other.totals = self.totals[:]
        other.protected = self.protected[:]
        other.last_chance, other.player, other.phase = self.last_chance, self.player, self.phase
        other.pending_drawn, other.pending_discards = self.pending_drawn, self.pending_discards
        other.crab_pile, other.turn_counter = self.crab_pile, self.turn_counter
        other.round_counter, other.first_player = self.round_counter, self.first_player
        other.chance_seed = self.chance_seed
        other.legal = self.legal  # never mutated: legal_actions hands out copies
        other.counts = [c[:] for c in self.counts]
        other.points = self.points[:]
        return other

    def returns(self) -> list[int]:
        return returns_from_scores(self.totals) if self.phase == OVER else [0] * self.n_players

    def scores(self) -> list[float]:
        """Banked points plus the current hand's points (TAG's heuristic); at game end the banked totals."""
        if self.phase == OVER:
            return [float(total) for total in self.totals]
        hand_points = self.hand_points
        return [float(total + (points if points is not None else hand_points(seat)))
                for seat, (total, points) in enumerate(zip(self.totals, self.points))]

    def banked_and_hand_points(self, seat: int) -> int:
        """TAG's heuristic score: the banked total plus the current hand's points; the total alone once the game
        is over (the last hands are banked)."""
        if self.phase == OVER:
            return self.totals[seat]
        return self.totals[seat] + self.hand_points(seat)

    def key(self) -> Hashable:
        """The position: hands as multisets (pending drawn cards apart), piles in order, scores, phase."""
        hands = []
        for p, hand in enumerate(self.hands):
            pending = self.pending_drawn if p == self.player else 0
            hands.append((tuple(sorted(hand[:len(hand) - pending])), tuple(sorted(hand[len(hand) - pending:]))))
        return (tuple(hands), tuple(tuple(sorted(h)) for h in self.played), tuple(map(tuple, self.piles)),
                tuple(self.draw_pile), tuple(self.totals), tuple(self.protected), self.last_chance,
                self.player if self.phase != OVER else -1,
                self.phase, self.pending_drawn, self.pending_discards, self.crab_pile)

    # ----- JSON and hidden information ----------------------------------------------------------------

    def to_json(self, dialect: str = OURS) -> dict:
        """TAG's SSPGameStateContainer fields (decks as Gson writes them) plus the turn phase; "tag": TAG's own."""
        if dialect != OURS and check_dialect("sea_salt_paper", dialect) == TAG:
            return sea_salt_paper_tag.tag_json(self)
        return state_document(self, None)

    def json_parts(self) -> dict:
        """to_json() as parts (State.json_parts): each deck card by card."""
        return state_parts(self)

    def observation_json(self, player: int) -> dict:
        """What `player` sees: own and protected hands, discard piles, played duos, scores; others as sizes."""
        if type(player) is not int or not 0 <= player < self.n_players:
            raise ValueError(f"sea_salt_paper: observation_json player must be a seat 0..{self.n_players - 1}")
        return state_document(self, player)

    def hidden_places(self, player: int) -> list[list[int]]:
        """The card lists `player` cannot see: the draw pile and unprotected opponents' hands."""
        return [self.draw_pile] + [h for p, h in enumerate(self.hands) if p != player and not self.protected[p]]

    def determinize(self, player: int, rng: random.Random) -> "SeaSaltPaperState":
        """A clone with the cards `player` cannot see re-dealt uniformly into the same places and sizes.

        The pool is sorted before the shuffle, so the result depends only on the observation and `rng`.
        """
        return self.determinizer(player)(rng)

    def determinizer(self, player: int):
        """determinize(player, rng) as a function of rng: the hidden pool is gathered and sorted once."""
        pool = []
        for place in self.hidden_places(player):
            pool += place
        pool.sort()
        # the cached legal actions stay unless the mover's hand is re-dealt (what else they read keeps its sizes)
        keeps_legal = player == self.player
        clone = self.clone
        drawn = len(self.draw_pile)
        hidden = [(seat, len(self.hands[seat])) for seat in range(self.n_players)  # hidden_places' hands
                  if seat != player and not self.protected[seat]]

        def sample(rng: random.Random) -> "SeaSaltPaperState":
            other = clone()
            cards = pool[:]
            shuffle(rng, cards)
            other.draw_pile[:] = cards[:drawn]
            start = drawn
            hands, counts, points = other.hands, other.counts, other.points
            for seat, size in hidden:
                hand = hands[seat]
                hand[:] = cards[start:start + size]
                start += size
                counts[seat] = slot_counts(hand)
                points[seat] = None
            other.chance_seed = rng.getrandbits(64)
            if not keeps_legal:
                other.legal = None
            return other

        return sample

    def all_cards(self) -> Counter:
        """Every card in every place (a full deck while the rules conserve cards)."""
        cards = Counter(self.draw_pile)
        for cards_list in (*self.hands, *self.played, *self.piles):
            cards.update(cards_list)
        return cards

