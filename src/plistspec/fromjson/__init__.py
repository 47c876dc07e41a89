"""Stage package (see docs/architecture.md)."""
