"""The range of a run seed, shared by the CLI's argument checks and preset files (a leaf: imports nothing)."""

# the run seed is scikit-learn's random_state of every Random Forest (0..2^32-1, checked end to end on the smoke
# preset); 2^32..2^63-1 would pass Dagster and numpy but fail in the first forest
MAX_SEED = 2**32 - 1
