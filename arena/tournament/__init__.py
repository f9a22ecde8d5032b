"""Tournaments: schedules, worker processes, the results database, standings and ratings."""
