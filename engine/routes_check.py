"""Compare the best routes with the routes players ran in a real game (issue: routes)."""

from __future__ import annotations

import time
from typing import Any

from .actions import Action, RunRoutes
from .game import Game
from .replay import replay
from .route_search import best_routes
from .routes import check_routes, route_text


def check_logged_routes(log: dict[str, Any]) -> dict[str, Any]:
    """Replay ``log``; before each logged run, find the company's best routes and time it.

    ``worse`` counts runs where the logged routes earned more than our optimum (a
    bug: the logged routes were legal); ``better`` counts money left on the table.
    """
    summary: dict[str, Any] = {"checked": 0, "better": 0, "equal": 0, "worse": 0, "worst": []}
    times: list[float] = []

    def before(game: Game, action: Action) -> None:
        if not isinstance(action, RunRoutes):
            return
        company = game.state.companies[action.entity]
        logged = sum(r.revenue for r in check_routes(game.ctx, game.state, company, action.routes))
        start = time.perf_counter()
        best = best_routes(game.ctx, game.state, company)
        times.append((time.perf_counter() - start) * 1000)
        ours = sum(r.revenue for r in best)
        summary["checked"] += 1
        if ours > logged:
            summary["better"] += 1
        elif ours == logged:
            summary["equal"] += 1
        else:
            summary["worse"] += 1
            summary["worst"].append(
                {"company": action.entity, "logged": logged, "ours": ours, "routes": [route_text(r) for r in best]}
            )

    replay(log, None, before=before)
    ordered = sorted(times)
    summary["max_ms"] = round(ordered[-1], 1) if ordered else 0.0
    summary["p95_ms"] = round(ordered[int(0.95 * (len(ordered) - 1))], 1) if ordered else 0.0
    return summary
