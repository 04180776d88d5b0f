"""``python -m league.cli``: the ``arena`` command without its installed script."""

from league.cli import main

main()
