"""Graph rewriting: local rewriters, walkers, and the rewrite database."""
