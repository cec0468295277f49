"""What is built on the bots: the ``station-master`` command (``cli``, assembling the
``Command`` records of ``command``) and its packages by job: ``play`` (demo, the play table,
replays), ``arena`` (tournaments, balance runs, their statistics), ``bench`` (speed figures),
``training`` (MaskablePPO runs) and ``devtools`` (the replay corpus)."""
