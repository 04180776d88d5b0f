"""A tiny self-play example: train a tabular Liar's Dice policy in a PettingZoo env, serve it."""
