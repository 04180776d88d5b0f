"""The league as HTML: the self-contained league report (``arena league report``, and
the server's pages reuse its parts). Reads the store; starts nothing."""
