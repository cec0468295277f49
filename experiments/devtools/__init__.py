"""Developer tools: scripts that maintain the project's own data (the replay corpus)."""
