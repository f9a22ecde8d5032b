"""``arena analyze``: every move of a replay judged by the reference evaluator.

The package is small modules with one job each (docs/analysis.md): :mod:`record` the replay's
optional ``analysis`` section (msgspec Structs, imported by :mod:`arena.replay`, so it imports
nothing heavy), :mod:`summary` the per-seat accuracy (pure), :mod:`decisions` the walk of a
replay into each seat's decisions with what that seat saw, :mod:`analyzer` the evaluation of
each decision, :mod:`batch` a tournament's replays in worker processes.
"""
