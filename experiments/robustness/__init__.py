"""Robustness: the soak (``station-master soak``), many games over every configuration with
every decision checked, its journal and its report."""
