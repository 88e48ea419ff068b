"""Ingest trajectories recorded elsewhere: read, convert, tokenize, store, and plan refreshes of derived partitions."""
