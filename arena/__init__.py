"""Matador Arena: a referee, tournament runner and viewers for domino-playing bots."""

#: The product's name, as page titles, footers and help texts print it (not a game's name).
PRODUCT = "Matador Arena"
