"""What every game is built from: the engine contract (``base``), the registration
record (``entry``), and rule helpers shared by several games (dice, cards, poker
hands, poker dice, action-universe keys). Standard library only.
"""
