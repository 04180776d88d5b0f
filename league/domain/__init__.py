"""The league's pure domain: ratings and their intervals, the population view (Nash
averaging), pairing, schedules and SPRT statistics. Standard library and numpy only
(import-linter contract ``league-domain-pure``): no database, no process, no web."""
