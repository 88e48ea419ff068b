"""The JSON-Bag OSLA agent, the self-play loop and the evaluation games."""
