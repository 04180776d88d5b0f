"""Application functions the CLI and the server both call (a submission's whole flow).

Above execution and the store, below the CLI and the server: so neither front end
imports the other."""
