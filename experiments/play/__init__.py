"""Playing: the demo game of bots, the table where people take seats, and replay viewing."""
