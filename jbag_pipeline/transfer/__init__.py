"""Value functions carried between game variants: the experiment and the token mapping."""
