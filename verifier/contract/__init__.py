"""Contracts: the v1 format's models, safe YAML loading with positions, lint, schema."""
