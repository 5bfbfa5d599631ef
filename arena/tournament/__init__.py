"""Tournaments, persistence and ratings (layer 4)."""
