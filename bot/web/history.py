"""A game's history as the web page shows it: the state after any move in effect.

A game is replayed once; every :data:`CHECKPOINT_EVERY` moves its state is kept (a
saved copy, some 35 KB), so the state after move N is the nearest earlier copy and at
most that many moves. New moves extend the history; an undo cuts it back to the move
before the first one that changed. What each move did (the engine's log lines) is kept
as it is replayed. Everything here is plain computation: the server calls it off its
event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Action, Game, GameState, LayTile, PlaceToken, action_from_dict, round_title
from storage import Event, GameRecord, TroikaEngine
from storage.repository import effective_events

from ..ledger import Ledger

CHECKPOINT_EVERY = 20
"""Moves between two kept states: a history step replays fewer than this many."""


@dataclass(frozen=True)
class Documents:
    """The three pictures of a moment as SVG, as ``troika render`` draws them."""

    map: str
    market: str
    table: str


def picture_settings(game: Game) -> dict[str, Any]:
    """How ``troika render`` and the web page draw a game: the last tile or token
    highlighted, the round named, the one who acts marked."""
    from bot.posts import who_acts

    last = game.last_action
    return {
        "highlight": last.hex if isinstance(last, (LayTile, PlaceToken)) else None,
        "round_name": round_title(game),
        "acting": who_acts(game) if game.actor() else None,
    }


def documents(game: Game) -> Documents:
    """The map, market and table of ``game`` as SVG."""
    from render import render_map, render_market, render_table

    settings = picture_settings(game)
    return Documents(
        render_map(game.ctx, game.state, highlight=settings["highlight"] or ()),
        render_market(game.ctx, game.state),
        render_table(game.ctx, game.state, round_name=settings["round_name"], acting=settings["acting"]),
    )


@dataclass
class GameHistory:
    """One game's moves in effect, kept states and each move's effects."""

    record: GameRecord
    moves: list[Event] = field(default_factory=list)
    effects: dict[int, list[str]] = field(default_factory=dict)
    """The engine's log lines of each move (by its index), as far as replayed."""
    filled: int = 0
    """Moves whose effects are known from the first on (the rest come with :meth:`fill`)."""
    kept: dict[int, bytes] = field(default_factory=dict)
    """Saved states by the number of moves behind them."""
    seen_seq: int = 0
    """The last event of the store folded in."""
    events: list[Event] = field(default_factory=list)
    """Every event of the game (moves, undos, seats, the commissioner's), for the log."""
    ledger: Ledger = field(default_factory=Ledger)
    """The bot's reading of the events: when the turn now due began."""

    def __post_init__(self) -> None:
        self._engine = TroikaEngine()
        start = self._engine.new_game(self.record)
        self._ctx = start.ctx
        self.kept[0] = start.save()

    @property
    def total(self) -> int:
        """Moves in effect now."""
        return len(self.moves)

    @property
    def complete(self) -> bool:
        """Whether every move's effects are known."""
        return self.filled == self.total

    def update(self, record: GameRecord, new_events: Sequence[Event], start: tuple[int, Game] | None = None) -> None:
        """Fold in the events stored since the last update, and replay to the end: from
        the furthest kept state, or from ``start`` (moves behind it, the game then: the
        store's snapshot), so the latest moment is quick; :meth:`fill` does the rest."""
        self.record = record
        if new_events:
            self.events.extend(new_events)
            self.ledger.fold(new_events)
            self.seen_seq = new_events[-1].seq
            moves = effective_events(self.events)
            same = 0
            while same < min(len(moves), len(self.moves)) and moves[same].seq == self.moves[same].seq:
                same += 1
            self.moves = moves
            self.filled = min(self.filled, same)
            for n in [n for n in self.effects if n >= same]:
                del self.effects[n]
            for n in [n for n in self.kept if n > same]:
                del self.kept[n]
        if start is not None and start[0] not in self.kept:
            self.kept[start[0]] = start[1].save()
        self._replay(max(n for n in self.kept if n <= self.total), self.total)

    def fill(self, limit: int) -> bool:
        """Replay up to ``limit`` more moves from the first whose effects are not known;
        whether all are known now."""
        self._replay(max(n for n in self.kept if n <= self.filled), min(self.filled + limit, self.total))
        return self.complete

    def _replay(self, base: int, end: int) -> None:
        """Replay from the state kept after ``base`` moves to ``end``, noting effects and keeping states."""
        game = self._restored(base)
        for n in range(base, end):
            self.effects[n] = self._engine.apply(game, self.moves[n].action, replaying=True)
            if (n + 1) % CHECKPOINT_EVERY == 0 or n + 1 == self.total:
                self.kept[n + 1] = game.save()
        while self.filled in self.effects:
            self.filled += 1
        for n in [n for n in self.kept if n % CHECKPOINT_EVERY and n != self.total and n != base]:
            del self.kept[n]  # a previous end, now between two kept states

    def _restored(self, n: int) -> Game:
        game = Game(self._ctx, GameState.from_saved(self.kept[n]))
        game.last_action = self._action(n - 1) if n else None
        return game

    def _action(self, index: int) -> Action:
        return action_from_dict(self.moves[index].action)

    def at(self, n: int) -> Game:
        """The game after ``n`` moves in effect (0: as it was set up), a copy of its own."""
        if not 0 <= n <= self.total:
            raise ValueError(f"move {n} is not between 0 and {self.total}")
        base = max(k for k in self.kept if k <= n)
        game = self._restored(base)
        for index in range(base, n):
            self._engine.apply(game, self.moves[index].action, replaying=True)
        return game
