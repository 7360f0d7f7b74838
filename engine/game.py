"""A game of 1861 or 1867: set-up, the round in progress, and applying actions.

``Game.apply`` either changes the state or raises an :class:`EngineError` and
leaves the state exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass, replace
from functools import partial
from typing import Any

from . import orders, sequence
from .actions import Action, EndGame, StandingOrder
from .board import load_board
from .errors import EngineError, IllegalAction, InvalidAction
from .game_end import check_bank
from .game_setup import board_for, check_options
from .rounds import Round
from .rules import Rules
from .scoring import end_game, final_values
from .setup import new_state
from .state import Context, GameState
from .titles import DEFAULT_TITLE, title_named


class Game:
    """One game: its static context (board, rules) and its changing state."""

    def __init__(self, ctx: Context, state: GameState) -> None:
        self.ctx = ctx
        self.state = state
        self.last_action: Action | None = None
        self.carried_out: list[Action] = []  # what standing orders did after the last action

    @classmethod
    def new(
        cls,
        players: list[tuple[str, str]],
        seed: int,
        rules: Rules | None = None,
        title: str = DEFAULT_TITLE,
        *,
        first_player: int | None = None,
        site_moves: int = 0,
    ) -> Game:
        """A new game. ``players`` are (id, name) in seat order; the first player
        (priority deal, rule 2M) is drawn from ``seed`` unless given (or the first
        seat, by the site's rules). ``rules`` holds the market, the options (refused
        unless the title offers them) and the switches. ``site_moves``: the number of
        moves an 18xx.games log imported into the game holds; they are replayed as the
        site loads a log (:meth:`Rules.loading`), the moves after them by ``rules``."""
        rules = rules or Rules.rulebook(market=load_board(title).default_market)
        ctx = Context(board_for(title, check_options(title, rules.options)), rules, title_named(title))
        if first_player is None:
            first_player = 0 if ctx.rules.first_seat_starts else _drawn_first_seat(seed, len(players))
        state = new_state(ctx, players, first_player, seed)
        if not isinstance(site_moves, int) or isinstance(site_moves, bool) or site_moves < 0:
            raise InvalidAction(f"the moves loaded from an 18xx.games log must be a count, not {site_moves!r}")
        state.site_moves_to_load = site_moves
        sequence.begin(ctx, state)
        return cls(ctx, state)

    @property
    def round(self) -> Round:
        """The round in progress (the last one, once the game is over)."""
        if self.state.round is None:
            raise IllegalAction("the game has no round under way")
        return self.state.round

    def check(self, action: Action) -> None:
        """Raise the engine's refusal (:class:`~engine.errors.EngineError`) if ``action``
        would be refused now; the game itself is left as it is."""
        Game(self.ctx, self.state.copy()).apply(action, check=False)

    @property
    def round_name(self) -> str:
        return "Finished" if self.state.finished else self.round.kind

    def actor(self) -> str | None:
        """The player id or company symbol that must act now (None when finished)."""
        if self.state.finished:
            return None
        return self.round.actor(self.ctx, self.state)

    def acting_player(self) -> str | None:
        """The player who decides for the actor (the president of an acting company)."""
        actor = self.actor()
        if actor is None:
            return None
        return self.controller(actor)

    def controller(self, entity: str) -> str | None:
        """The player who decides for ``entity`` (a player id or a company symbol)."""
        if any(p.id == entity for p in self.state.players):
            return entity
        company = self.state.companies.get(entity)
        if company is None:
            return None
        if company.is_national:
            return self.state.national_operator
        president = self.state.president(entity)
        if president is None and not self.state.finished:
            return self.round.decider(self.state, entity)
        return president.id if president else None

    def choices(self) -> list[str]:
        """What the actor may do now, in command words."""
        from .notation import hints

        return hints(self)

    def apply(self, action: Action, *, check: bool = True, saved: bytes | None = None,
              orders: bool = True) -> list[str]:
        """Apply an action and return the log lines it produced.

        With ``check`` (the default) a refused action leaves the state untouched;
        replays of trusted logs may pass ``check=False`` to skip the safety copy.
        ``saved``, the state as :meth:`save` wrote it just now, serves as the safety
        copy if the caller has it (one serialisation instead of two). The players'
        standing orders are then carried out (their moves in :attr:`carried_out`)
        unless ``orders`` is False (the exporter names each of those moves apart).
        """
        if self.state.finished:
            raise IllegalAction("the game is over")
        start = len(self.state.log)
        before = saved if saved is not None or not check else _snapshot(self.state)
        try:
            self._apply(action, orders)
        except Exception:
            if before is not None:
                self.state = _restore(before, self.state, start, whole=saved is not None)
            raise
        return self.state.log[start:]

    def save(self) -> bytes:
        """The whole state as bytes (:meth:`GameState.from_saved` gives it back): a copy
        to draw from, to store as a snapshot, and to pass to :meth:`apply` as ``saved``."""
        return self.state.saved()

    def apply_first(self, actions: Iterable[Action]) -> Action | None:
        """Apply the first of ``actions`` the engine accepts and return it, or None if
        it refuses them all (or the game is over). Refused ones change nothing; one
        safety copy serves them all."""
        if self.state.finished:
            return None
        start = len(self.state.log)
        before = _snapshot(self.state)
        for action in actions:
            try:
                self._apply(action)
            except EngineError:
                self.state = _restore(before, self.state, start)
                continue
            except Exception:
                self.state = _restore(before, self.state, start)
                raise
            return action
        return None

    def _apply(self, action: Action, orders_due: bool = True) -> None:
        if not self.state.site_moves_to_load:
            self._apply_move(action, orders_due)
            return
        self.state.site_moves_to_load -= 1  # a refusal restores the state, and the count with it
        checked_by = self.ctx
        self.ctx = replace(checked_by, rules=checked_by.rules.loading())
        try:
            self._apply_move(action, orders_due)
        finally:
            self.ctx = checked_by

    def _apply_move(self, action: Action, orders_due: bool) -> None:
        self.carried_out = []
        if isinstance(action, EndGame):
            end_game(self.ctx, self.state, "manually_ended")
        elif isinstance(action, StandingOrder):
            orders.set_order(self.ctx, self.state, action)
        elif not self.state.orders:
            self._play(action)
        else:
            where, key, controller = orders.place(self.state), orders.round_key(self.state), \
                self.controller(action.entity)
            self._play(action)
            orders.after_move(self.state, action, where, key, controller)
        if self.state.orders and orders_due:
            self._carry_out_orders()
        self.last_action = action

    def _play(self, action: Action) -> None:
        """The round's move, the rounds that follow if it ended the round (6), the bank."""
        self.round.apply(self.ctx, self.state, action)
        sequence.run_on(self.ctx, self.state)
        check_bank(self.ctx, self.state)

    def _carry_out_orders(self) -> None:
        """Whoever is to act with a standing order for it acts at once (one order's
        actions tried in turn); an order that cannot act is dropped and the player asked."""
        for _ in range(orders.MAX_IN_A_ROW):
            if self.state.finished:
                return
            found = orders.due(self.ctx, self.state, self.actor(), self.acting_player())
            if found is None:
                return
            order, tries = found
            key = orders.round_key(self.state)
            done = self._first_accepted(tries, partial(orders.announcement, self.state, order))
            if done is not None:
                self.carried_out.append(done)
            orders.carried_out(self.state, order, done)
            orders.round_ended(self.state, key)

    def _first_accepted(self, tries: list[Action], announce: Callable[[Action], str]) -> Action | None:
        """Apply the first of ``tries`` the round accepts, its announcement logged first."""
        start = len(self.state.log)
        before = _snapshot(self.state)
        for action in tries:
            self.state.log.append(announce(action))
            try:
                self._play(action)
            except EngineError:
                self.state = _restore(before, self.state, start)
                continue
            return action
        return None

    def result(self) -> dict[str, int]:
        """Each player's net worth (12.2); final once the game is finished."""
        return final_values(self.ctx, self.state)

    def dump(self) -> dict[str, Any]:
        """The whole state as plain JSON data: equal dumps mean equal states."""
        # The round may hold a merge's undo point (a whole state): dump it on its own.
        rest = {name: getattr(self.state, name) for name in _field_names(type(self.state))}
        plain: dict[str, Any] = _plain(rest | {"round": _round_dump(self.state)})
        return plain


def _snapshot(state: GameState) -> bytes:
    """The state, less its log, as bytes to restore after a refusal (pickling is the
    fastest deep copy, and an accepted action never needs the copy back)."""
    log, state.log = state.log, []
    try:
        return state.saved()
    finally:
        state.log = log


def _restore(snapshot: bytes, state: GameState, length: int, *, whole: bool = False) -> GameState:
    """``state`` as :func:`_snapshot` (or, ``whole``, :meth:`Game.save`) saved it, with
    its log (which only grows) cut back to the ``length`` it had then. Most refusals
    come before any change: if the state still pickles to the same bytes, it is
    unchanged and stays (quicker than a copy)."""
    log = state.log
    del log[length:]
    now = state.saved() if whole else _snapshot(state)
    if now != snapshot:
        state = GameState.from_saved(snapshot)
        state.log = log
    return state


def _round_dump(state: GameState) -> Any:
    if state.round is None:
        return None
    shown = [f.name for f in fields(state.round) if f.compare]
    return {"kind": state.round.kind} | {name: getattr(state.round, name) for name in shown}


def _drawn_first_seat(seed: int, players: int) -> int:
    """2M: the seat that gets the priority deal, drawn from the game's seed."""
    import random  # imported here: only a new game draws, and a replay starts without it

    return random.Random(seed).randrange(players)


def _plain(value: Any) -> Any:
    """``value`` as JSON data: a dataclass as the dict of its fields, dict keys as text
    and sorted, tuples as lists, sets sorted (what ``dataclasses.asdict`` and a sort give,
    in one pass)."""
    if isinstance(value, dict):
        return {_key(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: _key(kv[0]))}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple: as a record
        return _plain(dict(zip(value._fields, value)))
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return sorted(_plain(v) for v in value)
    names = _FIELDS.get(type(value))
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _field_names(type(value))
    if names is not None:
        return _plain({name: getattr(value, name) for name in names})
    return value


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


def _key(key: Any) -> str:
    if isinstance(key, tuple):
        return ",".join(str(k) for k in key)
    return str(key)
