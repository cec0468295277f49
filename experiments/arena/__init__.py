"""The arena: bots played against each other in tournaments and balance runs, their statistics,
the parallel runner both use, and the ledger summaries of a game's revenue."""
