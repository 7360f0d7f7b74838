"""Routes as players write them: ``2-0: H8-G5-E1; 3-1: A9-B8-B4-E1 = 200``.

A route is its stops' hexes in order, one route per train (``TRAIN:`` may be left out:
routes then go to the trains in order). Hexes the track passes between two stops may
be written too, to choose one track over another. The resolver finds every way the
company's track joins the stops, lets the engine check and price each, and picks the
legal set of routes that earns the most, or exactly the claimed ``= REVENUE``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.actions import Route, RunRoutes
from engine.errors import IllegalAction
from engine.graph import TrackGraph, track_graph
from engine.routes import RouteResult, check_routes, route_text, stop_values
from engine.state import Company, Context, GameState, Train

from .errors import Refusal

MAX_READINGS = 64
"""Track readings of one train's stops that are priced (more are very unlikely)."""

_CLAIM = re.compile(r"\s*(?:=|\bfor\b)\s*\$?(\d+)\s*$", re.IGNORECASE)
_LEGS = tuple[tuple[str, ...], ...]


def parse_routes(
    ctx: Context, state: GameState, company: Company, text: str
) -> tuple[RunRoutes, list[RouteResult]]:
    """The run ``text`` describes for ``company``, and what each route earns."""
    claim_match = _CLAIM.search(text)
    claim = int(claim_match.group(1)) if claim_match else None
    body = text[: claim_match.start()] if claim_match else text
    graph = track_graph(ctx, state)
    options = [_priced(ctx, state, company, graph, train, stops) for train, stops in _specs(company, body)]
    chosen = _combine(ctx, state, company, options, claim)
    action = RunRoutes(company.sym, tuple(Route(r.train, r.legs) for r in chosen), claim)
    return action, chosen


def routes_detail(ctx: Context, state: GameState, company: Company, results: Sequence[RouteResult]) -> str:
    """``2-0 H8-(G5)-E1 (H8 40 + E1 40 = 80)``: each route with what each stop earns; a
    stop in brackets is passed but not counted. Trains left without a route are named."""
    parts = [f"{r.train} {_stops_text(r)} ({_sum_text(ctx, state, company, r)})" for r in results]
    ran = {r.train for r in results}
    idle = [t.id for t in company.trains if not t.operated and t.id not in ran]
    if idle:
        parts.append(f"{', '.join(idle)}: no route (a route needs two stops, one with a {company.sym} token)")
    text = "; ".join(parts)
    if any(len(r.counted) < len(r.stops) for r in results if r.counted):
        text += " — stops in brackets are passed but not counted"
    return text


def _sum_text(ctx: Context, state: GameState, company: Company, result: RouteResult) -> str:
    values = stop_values(ctx, state, company, result)
    if not values:
        return str(result.revenue)
    return " + ".join(_stop_text(ctx, state, company, h, v) for h, v in values) + f" = {result.revenue}"


def _stop_text(ctx: Context, state: GameState, company: Company, hex_id: str, value: int) -> str:
    """``L12 60``, or with a private's bonus there itemised: ``L12 50+10 (MB)`` (8.8.2)."""
    bonuses = [(sym, ctx.board.private(sym).bonus) for sym in company.privates
               if sym not in state.closed_privates and hex_id in ctx.board.private(sym).bonus_hexes]
    if not bonuses:
        return f"{hex_id} {value}"
    extra = "".join(f"+{amount}" for _, amount in bonuses)
    return f"{hex_id} {value - sum(a for _, a in bonuses)}{extra} ({', '.join(sym for sym, _ in bonuses)})"


def _stops_text(result: RouteResult) -> str:
    if not result.counted:
        return route_text(result)
    counted = set(result.counted)
    return "-".join(h if (h, i) in counted else f"({h})" for h, i in result.stops)


def _specs(company: Company, body: str) -> list[tuple[Train, list[str]]]:
    """Each route's train and stop hexes."""
    free = [t for t in company.trains if not t.operated]
    specs = []
    for part in (p.strip() for p in re.split(r"[;,|]", body)):
        if not part:
            continue
        if ":" in part:
            word, stops = (s.strip().upper() for s in part.split(":", 1))
            train = next((t for t in free if t.id.upper() == word), None) or next(
                (t for t in free if t.name.upper() == word), None)
            if train is None:
                raise Refusal(f"{company.sym} has no train {word} that has not run yet")
        else:
            if not free:
                raise Refusal(f"{company.sym} has more routes than trains to run")
            first, _, after = part.upper().partition(" ")
            named = next((t for t in free if first in (t.id.upper(), t.name.upper())), None)
            train, stops = (named, after) if named is not None and after else (free[0], part.upper())
        free.remove(train)
        hexes = [h for h in re.split(r"[\s\-–>]+", stops) if h]
        if len(hexes) < 2:
            raise Refusal(f"train {train.id}: write at least two stops, e.g. `{train.id}: H8-G5`")
        specs.append((train, hexes))
    if not specs:
        raise Refusal("Write routes as `TRAIN: HEX-HEX-...`, separated by `;`, or just `run` for the best.")
    return specs


def _priced(
    ctx: Context, state: GameState, company: Company, graph: TrackGraph, train: Train, hexes: list[str]
) -> list[RouteResult]:
    """Every legal reading of one train's stops, best first."""
    _check_stop_count(ctx, state, train, hexes)
    readings = _readings(graph, hexes, train.id)
    results: list[RouteResult] = []
    error: IllegalAction | None = None
    for legs in readings[:MAX_READINGS]:
        try:
            results += check_routes(ctx, state, company, [Route(train.id, legs)])
        except IllegalAction as exc:
            error = error or exc
    if not results:
        assert error is not None
        raise Refusal(str(error))
    return sorted(results, key=lambda r: -r.revenue)


def _check_stop_count(ctx: Context, state: GameState, train: Train, hexes: list[str]) -> None:
    """The first thing wrong with a route that names more cities than its train may
    stop at (a plain train counts every city it passes, 8.8): say so before the track."""
    kind = ctx.board.train(train.name)
    if kind.express or kind.multiplier != 1 or kind.name != str(kind.pay):
        return
    cities = [h for h in hexes if h in ctx.board.hexes
              and any(n.kind in ("city", "offboard") for n in ctx.tile_at(state, h)[0].nodes)]
    if len(cities) > kind.pay:
        raise Refusal(f"train {train.id}: a {kind.name}-train stops at {kind.pay} cities at most, and "
                      f"{'-'.join(hexes)} names {len(cities)} ({', '.join(cities)})")


def _readings(graph: TrackGraph, hexes: list[str], train_id: str) -> list[_LEGS]:
    """The ways track joins the stops in ``hexes`` (with any written pass-through hexes)
    in order, each as legs: one hex chain per stretch of track between two stops."""
    found: list[_LEGS] = []
    reached = [0]

    def walk(node: int, at: int, visited: int, used: int, legs: list[tuple[str, ...]]) -> None:
        reached[0] = max(reached[0], at)
        if at == len(hexes) - 1:
            found.append(tuple(legs))
            return
        for s in graph.adjacent[node]:
            seg = graph.segments[s]
            other = seg.b if seg.a == node else seg.a
            if seg.mask & used or visited >> other & 1:
                continue
            chain = seg.hexes if seg.a == node else seg.hexes[::-1]
            nxt = at + 1
            for passed in chain[1:-1]:
                if nxt < len(hexes) - 1 and hexes[nxt] == passed:
                    nxt += 1
            if graph.nodes[other][0] == hexes[nxt]:
                walk(other, nxt, visited | 1 << other, used | seg.mask, legs + [chain])

    starts = [n for n, (hex_id, _) in enumerate(graph.nodes) if hex_id == hexes[0]]
    if not starts:
        raise Refusal(f"train {train_id}: {hexes[0]} has no city, town or off-board to start from")
    for start in starts:
        walk(start, 0, 1 << start, 0, [])
    if not found:
        a, b = hexes[reached[0]], hexes[reached[0] + 1]
        raise Refusal(f"train {train_id}: no track runs from {a} to {b} without passing another stop; "
                      "write every stop the train visits")
    return found


def _combine(
    ctx: Context, state: GameState, company: Company, options: list[list[RouteResult]], claim: int | None
) -> list[RouteResult]:
    """The readings, one per train, that may run together (no track used twice) and earn
    the most, or exactly ``claim``."""
    best: list[RouteResult] | None = None
    best_total = -1
    error: IllegalAction | None = None
    tops = [max(r.revenue for r in rs) for rs in options]

    def choose(i: int, chosen: list[RouteResult], total: int) -> bool:
        nonlocal best, best_total, error
        if i == len(options):
            if claim is None or total == claim:
                best, best_total = list(chosen), total
            return claim is not None and total == claim
        for result in options[i]:
            if claim is None and total + result.revenue + sum(tops[i + 1:]) <= best_total:
                break
            attempt = chosen + [result]
            if len(attempt) > 1:  # a route alone was checked when it was priced
                try:
                    check_routes(ctx, state, company, [Route(r.train, r.legs) for r in attempt])
                except IllegalAction as exc:
                    error = error or exc
                    continue
            if choose(i + 1, attempt, total + result.revenue):
                return True
        return False

    choose(0, [], 0)
    if best is not None:
        return best
    if claim is not None:
        top = _combine(ctx, state, company, options, None)
        raise Refusal(f"these routes earn {sum(r.revenue for r in top)}, not {claim}")
    raise Refusal(str(error) if error else "these routes cannot run together")
