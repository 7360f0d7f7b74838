"""Troika's rules engine for 1861 and 1867: pure, deterministic, no I/O."""

ENGINE_VERSION = 7
"""Bumped when a rules change would replay an old game differently (2: the rules
fixed for every 1861 game, 1867, effects written to the log; 3: steps with nothing
to decide passed over, standing orders, and the rulebook mode's merger round,
upgrades, homes, RSR and game end of issue 21; 4: the rounds behind one protocol, the
starting bundles' round in 1861's folder, so a snapshot taken in it is rebuilt by replay;
5: a laid tile is a named tuple and a merge's undo point is saved as bytes, so
snapshots pickled before are rebuilt by replay; 6: a lay takes a copy left in the tile
supply, so laid tiles get other ids; the state's classes are dataclasses, new 8.6 and
§15 rules, so snapshots pickled before are rebuilt by replay; 7: a standing order is
over once its player's companies change, and keeps the companies it was set among)."""
