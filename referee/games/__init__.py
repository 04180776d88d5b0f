"""Pure game engines, one module per game (standard library only).

Games are registered, and looked up by name, in the catalogue
(:mod:`referee.core.catalogue`); nothing here imports anything outside ``referee.games``.
"""
