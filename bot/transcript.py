"""A real game as the commands its players would have typed to Troika.

Each action of an 18xx.games log (read by :mod:`engine.importer`) becomes the short
command a player types, preceded by who types it: the player who decides for the
acting player or company, and, after a deal that needs another player's consent,
that player's ``agree``. Used to play real games through the console in tests and
in ``troika bench``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine import EndGame, Pass, actions_of, addressed, command, consent_needed, read_log

from .stray import LastMove, questioned_pass


def log_commands(log: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(player name, command) for every action of the log, in order."""
    game, logged = read_log(log)
    last: LastMove | None = None
    for entry in logged:
        for action in actions_of(lambda: game.state, entry):
            names = {p.id: p.name for p in game.state.players}
            # Only the commissioner (the first seat here) may end a game in Troika, with `confirm`.
            typist = game.state.players[0].id if isinstance(action, EndGame) else game.controller(action.entity)
            typed = command(game, action) + (" confirm" if isinstance(action, EndGame) else "")
            if isinstance(action, Pass) and questioned_pass(game, last, typist):
                typed = addressed(action)  # meant for the company called now
            yield names[typist or ""], typed
            last = LastMove(action.kind, action.entity, typist)
            consenter = consent_needed(game, action)
            if consenter is not None:
                yield names[consenter], "agree"
            game.apply(action, check=False)

