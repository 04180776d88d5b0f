"""Exact analysis of the games, apart from play: full best responses on small rule
sets (:mod:`referee.analysis.best_response`) and local best responses at full size
(:mod:`referee.analysis.local_best_response`)."""
