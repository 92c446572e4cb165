"""Rewrites of linear algebra (filled in below)."""
