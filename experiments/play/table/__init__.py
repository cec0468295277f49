"""A seat at the table: a person plays Station Master in a terminal, bots fill the other seats.

The parts that need no terminal are plain modules with unit tests: ``events`` (which events a
person may read, and how), ``menu`` (the numbered, grouped decision list and reading what was
typed), ``builder`` (a switching Move chosen step by step), ``session`` (one game: its seats,
decisions, saving after every decision, undo, resume) and ``viewer`` (positions of a recorded
game). ``render`` draws the table with rich; ``app`` is the terminal loop of ``station-master
play`` and ``viewer.run_viewer`` the one of ``station-master replay``.
"""
