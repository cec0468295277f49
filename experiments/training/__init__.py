"""Training: MaskablePPO runs of ``station-master train``."""
