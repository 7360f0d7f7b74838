"""Replay an 18xx.games log and compare our state with its trace after every action.

The trace (``shared/games/*.trace.jsonl``) holds the state the site computed
after each action; matching it action by action is our proof that the engine
plays by the same rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from . import market
from .actions import Action
from .errors import EngineError
from .game import Game
from .importer import actions_of, read_log
from .state import Context, GameState


@dataclass
class ReplayReport:
    """How a replay went: actions applied, states matching the trace, the first divergence."""

    title: str
    actions: int = 0
    applied: int = 0
    matched: int = 0
    compared: int = 0
    first_divergence: dict[str, Any] | None = None
    result: dict[str, int] | None = None
    expected_result: dict[str, int] | None = None
    finished: bool = False

    @property
    def ok(self) -> bool:
        return (
            self.first_divergence is None
            and self.applied == self.actions
            and self.result == self.expected_result
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(eq=False, repr=False)  # holds a live game: compared by identity, no generated repr
class Replay:
    """A game being replayed from a log, for tools that want the game afterwards."""

    game: Game
    report: ReplayReport
    stopped_at: int | None = None  # log id of the action that could not be applied
    history: list[int] = field(default_factory=list)  # log ids applied
    moves: int = 0  # Troika's moves applied (one log entry may be several, or none)


def replay(
    log: dict[str, Any],
    trace: list[dict[str, Any]] | None = None,
    *,
    until: int | None = None,
    moves: int | None = None,
    before: Callable[[Game, Action], None] | None = None,
) -> Replay:
    """Replay ``log`` (stopping after log id ``until``, or after ``moves`` of Troika's
    moves: the ``#N`` of the bot's ``log`` and the web page's ``?at=N`` for the game
    imported), comparing with ``trace``; ``before`` is called with the game and each
    action just before it is applied."""
    game, logged = read_log(log)
    report = ReplayReport(title=str(log.get("title", "")), actions=len(logged))
    expected = {int(k): int(v) for k, v in (log.get("result") or {}).items()}
    report.expected_result = {str(k): v for k, v in expected.items()} or None
    by_id = {int(line["id"]): line for line in trace or [] if "id" in line}
    run = Replay(game, report)
    for entry in logged:
        if (until is not None and entry.id > until) or (moves is not None and run.moves >= moves):
            report.actions = report.applied
            break
        try:
            for action in actions_of(lambda: game.state, entry):
                if moves is not None and run.moves >= moves:
                    break  # within a site action that is several of Troika's moves
                if before is not None:
                    before(game, action)
                game.apply(action, check=False)
                run.moves += 1
        except EngineError as exc:
            report.first_divergence = {
                "id": entry.id,
                "field": f"apply {entry.raw['type']}",
                "expected": "applied",
                "got": str(exc),
            }
            run.stopped_at = entry.id
            break
        report.applied += 1
        run.history.append(entry.id)
        line = by_id.get(entry.id)
        if line is not None:
            report.compared += 1
            diff = first_difference(line, trace_view(game.ctx, game.state))
            if diff is None:
                report.matched += 1
            elif report.first_divergence is None:
                field_name, want, got = diff
                report.first_divergence = {"id": entry.id, "field": field_name, "expected": want, "got": got}
                run.stopped_at = entry.id
                break
    report.finished = game.state.finished
    if game.state.finished:
        report.result = game.result()
    return run


def trace_view(ctx: Context, state: GameState) -> dict[str, Any]:
    """Our state in the shape of a trace line (the fields that are compared)."""
    names = {p.id: p.name for p in state.players}
    holdings: dict[str, dict[str, int]] = {}  # company -> player name -> percent, in player order
    presidents: dict[str, str] = {}
    for p in state.players:
        for c in p.certs:
            held = holdings.setdefault(c.company, {})
            held[p.name] = held.get(p.name, 0) + c.percent
            if (c.president or c.percent == 100) and c.company not in presidents:
                presidents[c.company] = p.name
    pool: dict[str, int] = {}
    for c in state.pool:
        pool[c.company] = pool.get(c.company, 0) + c.percent
    corporations: dict[str, Any] = {}
    for sym, company in state.companies.items():
        if not (company.floated or company.is_national) or company.closed:
            continue
        president = presidents.get(sym)
        if company.is_national:
            president = state.player(state.national_operator).name if state.national_operator else None
        corporations[sym] = {
            "type": company.type,
            "cash": company.cash,
            "price": market.price(ctx, state, sym) if company.market else None,
            "trains": [t.name for t in company.trains],  # in the order bought, like the site's
            "loans": company.loans,
            "president": president,
            "shares": {name: pct for name, pct in holdings.get(sym, {}).items() if pct},
            "treasury_pct": sum(c.percent for c in company.treasury) if company.is_major else 0,
            "pool_pct": pool.get(sym, 0),
            "tokens": sorted(t.hex for t in company.tokens if t.hex),
        }
    owners: dict[str, str | None] = {}
    for sym, owner in state.private_owner.items():
        if sym in state.closed_privates:
            owners[sym] = "closed"
        else:
            owners[sym] = names.get(owner, owner) if owner else None
    return {
        "round": None if state.finished or state.round is None else state.round.kind,
        "phase": state.phase,
        "bank": state.bank,
        "players": {p.name: p.cash for p in state.players},
        "corporations": corporations,
        "companies": owners,
        "tiles": {h: f"{t.tile}@{t.rotation}" for h, t in state.map.tiles.items()},
        "finished": state.finished,
    }


COMPARED = ("round", "phase", "bank", "players", "corporations", "companies", "tiles", "finished")


def first_difference(line: dict[str, Any], ours: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """The first compared field where the trace and our state differ."""
    for key in COMPARED:
        want = line.get(key)
        got = ours.get(key)
        if key == "round" and (line.get("finished") or ours.get("finished")):
            continue
        if key == "corporations":
            if want == got:
                continue
            diff = _corporations_difference(want or {}, got or {})
            if diff:
                return diff
            continue
        if want != got:
            return key, want, got
    return None


def _corporations_difference(want: dict[str, Any], got: dict[str, Any]) -> tuple[str, Any, Any] | None:
    for sym in sorted(set(want) | set(got)):
        w, g = want.get(sym), got.get(sym)
        if w is None or g is None:
            return f"corporations.{sym}", w, g
        for key in ("cash", "price", "trains", "loans", "president", "shares", "treasury_pct", "pool_pct", "tokens"):
            wv, gv = w.get(key), g.get(key)
            if key in ("trains", "tokens") and isinstance(wv, list) and isinstance(gv, list):
                wv, gv = sorted(wv), sorted(gv)
            if wv != gv:
                return f"corporations.{sym}.{key}", wv, gv
    return None
