"""Benchmarks: ``station-master bench`` (``suite``), the focused timing scripts of the core, the
envs and switching (``python -m experiments.bench.core``, ``.env``, ``.switching``), and their
station fixtures."""
