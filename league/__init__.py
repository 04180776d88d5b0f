"""The league: bots, leagues, ratings and the ``arena`` front ends, in layers.

Lowest first (import-linter checks the order, ``pyproject.toml``): :mod:`league.domain`
(pure: ratings, population, pairing, schedules, SPRT statistics), :mod:`league.store`
(tables, migrations, queries), :mod:`league.execution` (``LeagueRun``, its executors,
the runs built on it and a submission's flow) beside :mod:`league.web` (the HTML
report), then :mod:`league.server` and :mod:`league.cli`, which call the same
functions of the layers below. The server never imports the CLI.
"""
