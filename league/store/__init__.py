"""The league's domain and storage: tables, migrations, schedules, ratings, standings.

The lowest league layer: it imports referee and the database stack, never the
execution, the services, the CLI or the server (import-linter checks this)."""
