"""The game-score heuristics of TAG's baseline OSLA players (docs/RULES.md section 3), as OSLA value objects.

Each is a memoryless ValueFunction (engines/agents/value_function.py): value(state, seat) -> float, larger is
better for `seat`. HEURISTICS names every one, including the own-minus-best-opponent ScoreValue
("score_margin"), which TAG does not use. A heuristic that reads one engine's own facts names that game
(`only_for`); the others value a state of any game.
"""

from __future__ import annotations

from engines.agents.osla import ScoreValue
from engines.agents.value_function import MemorylessValue
from engines.base import State

WIN_FACTOR, LOSS_FACTOR = 1.5, 0.5  # TAG's ScoreHeuristic
SSP_WIN, SSP_LOSS, SSP_CAP = 1.0, -1.0, 0.99  # ScoreAndHandHeuristic: only a won game reaches 1


def _result(state: State, seat: int) -> int:
    """+1 won, -1 lost, 0 for a draw or a running game."""
    return state.returns()[seat] if state.is_terminal() else 0


class PureScoreValue(MemorylessValue):
    """TAG's PureScoreHeuristic: the seat's raw game score (Can't Stop: completed tracks; Dominion: VP)."""

    def value(self, state: State, seat: int) -> float:
        return float(state.score(seat))


class WinLossScaledScoreValue(MemorylessValue):
    """TAG's ScoreHeuristic: the seat's game score, times 1.5 once the game is won and 0.5 once it is lost."""

    def value(self, state: State, seat: int) -> float:
        score, result = float(state.score(seat)), _result(state, seat)
        return score * WIN_FACTOR if result > 0 else score * LOSS_FACTOR if result < 0 else score


class ScoreAndHandValue(MemorylessValue):
    """Sea Salt and Paper's ScoreAndHandHeuristic: 1 won, -1 lost, else (banked + hand points) / victory threshold
    clamped to [-1, 0.99]."""

    only_for = "sea_salt_paper"  # reads banked_and_hand_points and the victory threshold

    def value(self, state: State, seat: int) -> float:
        result = _result(state, seat)
        if result:
            return SSP_WIN if result > 0 else SSP_LOSS
        share = state.banked_and_hand_points(seat) / state.game.threshold
        return min(max(share, SSP_LOSS), SSP_CAP)


class Wonders7Value(MemorylessValue):
    """TAG's Wonders7Heuristic: the seat's VP estimate (score with the running age's military fought now) over
    the sum of every seat's estimate; 0 when that sum is 0."""

    only_for = "seven_wonders"  # reads vp_estimates

    def value(self, state: State, seat: int) -> float:
        estimates = state.vp_estimates()
        total = sum(estimates)
        return estimates[seat] / total if total else 0.0


HEURISTICS = {
    "score_margin": ScoreValue,
    "pure_score": PureScoreValue,
    "win_loss_scaled_score": WinLossScaledScoreValue,
    "score_and_hand": ScoreAndHandValue,
    "wonders7_vp_share": Wonders7Value,
}
