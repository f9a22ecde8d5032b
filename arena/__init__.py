"""Matador Arena: a referee and arena for domino-playing programs."""

#: The product's name, as the pages and messages print it (not a game: the games are plugins).
PRODUCT = "Matador Arena"
