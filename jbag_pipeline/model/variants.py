"""The names the model's tables are keyed by: prototype frequencies and feature-selection variants."""

FREQUENCIES = ("full", "interval", "random")  # how trajectories are sampled into bags (transforms/sampling.py)
FEATURE_VARIANTS = ("full", "interval", "random", "full_seg", "interval_seg", "random_seg", "adaptive", "none")
SENSITIVITY_VARIANT = "full_counters_kept"  # the full variant selected with the turn-order counters kept
NO_SELECTION = "none"  # every token: the value is exact JSD over the prototypes' full vocabulary
