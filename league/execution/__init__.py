"""Playing a league's matches: :class:`~league.execution.league_run.LeagueRun` and its executors
(this process, ``--workers`` referee processes, Ray), and the runs built on it (bot checks,
the demo, the ladder, rolling ladders). Imports the store, never the CLI or the server."""
