"""Troika's rules engine for 1861 and 1867: pure, deterministic, no I/O."""

ENGINE_VERSION = 1
"""Bumped when a rules change would replay an old game differently."""
