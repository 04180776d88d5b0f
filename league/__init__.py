"""The league: bots, leagues, ratings and the ``arena`` front ends, in four layers.

Lowest first (import-linter checks the order, ``pyproject.toml``): :mod:`league.store`
(domain and storage), :mod:`league.execution` (``LeagueRun`` and its executors),
:mod:`league.services` (what both front ends call), then :mod:`league.server` and
:mod:`league.cli`. The server never imports the CLI.
"""
