"""The built-in games, one package per game: everything a game is, in its folder.

``<game>/__init__.py`` holds its registration (``ENTRY``), ``engine.py`` the rules
(pure: standard library and :mod:`referee.gamekit` only), ``codec.py`` its wire
form, ``universe.py`` every action it can take. The catalogue
(:mod:`referee.core.catalogue`) finds every package here; a new built-in game is a
new folder and edits no other file.
"""
