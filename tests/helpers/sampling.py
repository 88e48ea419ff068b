"""Which recorded states each tokenization frequency keeps, in plain Python: the reference that
sql/sampled_states.sql (jbag_pipeline.transforms.sampling.sampled_states) is tested
against; the two must stay identical."""

from __future__ import annotations

from jbag_pipeline.transforms.sampling import FREQUENCIES

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def state_hash(run_seed: int, game_id: int, state_idx: int) -> int:
    """64-bit hash: splitmix64 output number game_id * 2^32 + state_idx + 1 from seed run_seed (all mod 2^64)."""
    counter = (((game_id << 32) + state_idx) & _MASK64) + 1
    z = ((run_seed & _MASK64) + counter * _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def random_keeps(run_seed: int, game_id: int, state_idx: int, n_players: int) -> bool:
    """Whether the random frequency keeps this state: hash * n_players < 2^64, probability 1/n_players."""
    return state_hash(run_seed, game_id, state_idx) * n_players <= _MASK64


def sample_state_indices(n_states: int, terminal_idx: int | None, n_players: int, frequency: str,
                         run_seed: int, game_id: int) -> list[int]:
    """Sorted indices of the recorded states that `frequency` keeps from a trajectory of `n_states` states."""
    if n_states < 0:
        raise ValueError(f"n_states must be >= 0, got {n_states} (game_id {game_id})")
    if n_players < 1:
        raise ValueError(f"n_players must be >= 1, got {n_players} (game_id {game_id})")
    if terminal_idx is not None and not 0 <= terminal_idx < n_states:
        raise ValueError(f"terminal_idx {terminal_idx} outside 0..{n_states - 1} (game_id {game_id})")
    if frequency == "full":
        return list(range(n_states))
    if frequency == "interval":
        return [j for j in range(n_states) if (j + 1) % n_players == 0 or j == terminal_idx]
    if frequency == "random":
        return [j for j in range(n_states) if random_keeps(run_seed, game_id, j, n_players)]
    raise ValueError(f"unknown frequency {frequency!r}; expected one of {list(FREQUENCIES)}")
