"""What every TAG-dialect document shares (docs/RULES.md section 1): the common fields of TAG's
AbstractGameStateContainer, the Gson shape of a component, and the moments at which TAG serialises a state.

TAG's recorders write a state from an event listener inside the forward model's step, before the counters
move on: at TURN_OVER (Dots and Boxes, Can't Stop: every turn whose turnCounter is a multiple of the player
count) the tick, turnCounter and turnOwner are still those of the turn that just ended; at ROUND_OVER
(Connect4) the tick is that of the last action, the roundCounter not yet increased and turnCounter equals
the player count. The same position serialised between actions (what an agent sees, LIVE) has the
advanced counters. The position is the same in all three; only these counters tell them apart.
"""

from __future__ import annotations

LIVE, TURN_OVER, ROUND_OVER = "live", "turn_over", "round_over"
MOMENTS = (LIVE, TURN_OVER, ROUND_OVER)
ONGOING, GAME_END = "GAME_ONGOING", "GAME_END"
TICK_UNKNOWN = -1  # written for TAG's tick (its count of every action) where our engine does not count actions


def check_moment(where: str, moment: str, allowed: tuple[str, ...]) -> str:
    """Return `moment` if this game records at it, else raise naming the moments it knows."""
    if moment not in allowed:
        raise ValueError(f"{where}: unknown moment {moment!r}; this game knows {list(allowed)}")
    return moment


def component(component_type: str, name: str) -> dict:
    """The fields every TAG Component adds (componentID and ownerId are transient, so absent)."""
    return {"type": component_type, "properties": {}, "componentName": name}


def common_fields(game_type: str, n_players: int, tick: int, round_counter: int, turn_counter: int,
                  turn_owner: int, results: list[str] | None) -> dict:
    """AbstractGameStateContainer's fields in its order; `results` are TAG result names once the game is over."""
    return {"gameType": game_type, "tick": tick, "roundCounter": round_counter, "turnCounter": turn_counter,
            "turnOwner": turn_owner, "firstPlayer": 0, "nPlayers": n_players, "nTeams": n_players,
            "gameStatus": ONGOING if results is None else GAME_END,
            "playerResults": [ONGOING] * n_players if results is None else list(results)}


def check_game_type(where: str, doc, game_type: str) -> None:
    """Reject anything but a dict whose gameType is `game_type`."""
    if not isinstance(doc, dict) or doc.get("gameType") != game_type:
        raise ValueError(f"{where}: document is not a TAG {game_type} state (gameType "
                         f"{doc.get('gameType') if isinstance(doc, dict) else None!r})")


def int_field(where: str, doc: dict, key: str, low: int = 0) -> int:
    """doc[key] as an int >= low, or a clear error."""
    value = doc.get(key)
    if type(value) is not int or value < low:
        raise ValueError(f"{where}: {key} must be an int >= {low}, got {value!r}")
    return value


def match_rebuilt(where: str, doc: dict, rebuilt: dict) -> None:
    """Raise on the first field where `doc` differs from the document the parsed position implies."""
    for key in list(doc) + [k for k in rebuilt if k not in doc]:
        if doc.get(key) != rebuilt.get(key):
            raise ValueError(f"{where}: field {key!r} is {_short(doc.get(key))}, the position implies "
                             f"{_short(rebuilt.get(key))}")


def _short(value, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
