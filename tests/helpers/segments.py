"""The segment of a recorded state, in plain Python: the reference for sql/segmented_bags.sql."""


def state_segment(state_idx: int, n_states: int, n_segments: int) -> int:
    """The 1-based segment of recorded state `state_idx` in a trajectory of `n_states` states."""
    if n_segments < 1:
        raise ValueError(f"n_segments must be >= 1, got {n_segments}")
    if not 0 <= state_idx < n_states:
        raise ValueError(f"state_idx {state_idx} outside 0..{n_states - 1}")
    return state_idx * n_segments // n_states + 1
