"""The shared play core: what the referee and the SDK both build on.

The game catalogue, the decision driver, chance, playouts, digests and protocol
constants. Games (``referee.games``) import nothing from here; the referee's
process and network code (the rest of ``referee``) is never imported from here.
"""
