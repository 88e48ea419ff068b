"""Side-by-side speed and memory benchmarks (not run by CI): `jbag bench` runs them all via benchmarks.run_all."""
