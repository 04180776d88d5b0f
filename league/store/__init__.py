"""The league's storage: tables, migrations and the queries over them (bots, authors,
leagues and matches, rolling ladders, SPRT tests, standings, uploads, suspensions).

It imports the pure domain (:mod:`league.domain`) and the referee's records, never
the execution, the web report, the CLI or the server (import-linter checks this)."""
