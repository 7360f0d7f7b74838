"""Seeded random self-play with invariants checked after every action.

A random player picks among the candidate actions (:mod:`engine.legal`); the
engine accepts or refuses each. After every accepted action the invariants of a
sound game must hold: no money created or lost, every company's shares add up,
no limit broken, someone seated can act, the game ends at its first end trigger,
the national buys only while it operates, a merged major starts on its section and
every lay reaches its new track (the rulebook's rules these games play by).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import graph, shares, trains
from .actions import Action, LayTile, Pass
from .game import Game
from .game_setup import rulebook_players
from .legal import legal_actions
from .merger import MergerRound
from .rules import MARKETS, Rules
from .state import PlacedTile
from .titles import DEFAULT_TITLE

MAX_ACTIONS = 5000
PASS_WEIGHT = 0.25  # how often a random player prefers passing when it may act


@dataclass
class SelfPlayResult:
    seed: int
    players: int
    market: str
    title: str = DEFAULT_TITLE
    actions: int = 0
    finished: bool = False
    failures: list[str] = field(default_factory=list)
    played: list[Action] = field(default_factory=list)
    rules: Rules | None = None

    def site_log(self) -> dict[str, Any]:
        """The game as an 18xx.games log (:mod:`engine.exporter`)."""
        from .exporter import Entry, export_game

        seats, rules = _seats(self.players), self.rules or Rules.rulebook(market=self.market)
        entries = [Entry(n, "action", a) for n, a in enumerate(self.played, 1)]
        return export_game(self.seed, self.seed, lambda: Game.new(seats, self.seed, rules, self.title), entries).log


class InvariantError(AssertionError):
    """The state broke a rule that must always hold."""


@dataclass
class Before:
    """What the invariants need from before an action: the log's length, the phase,
    the tiles and the end already set."""

    log: int
    phase: str
    tiles: dict[str, PlacedTile]
    game_ends_after: tuple[int, int] | None

    @classmethod
    def of(cls, game: Game) -> Before:
        state = game.state
        return cls(len(state.log), state.phase, dict(state.map.tiles), state.game_ends_after)


def _seats(players: int) -> list[tuple[str, str]]:
    return [(f"p{i}", f"Player {i + 1}") for i in range(players)]


def play_random_game(
    seed: int,
    players: int,
    market: str,
    title: str = DEFAULT_TITLE,
    options: frozenset[str] = frozenset(),
    site: bool = False,
) -> SelfPlayResult:
    """Play one game of random legal moves to the end, checking invariants; ``options``
    are the rulebook's optional rules to play (:mod:`engine.options`); ``site``: by the
    rules as 18xx.games applies them."""
    rng = random.Random(seed)
    rules = (Rules.site if site else Rules.rulebook)(market=market, options=options)
    game = Game.new(_seats(players), seed, rules, title)
    result = SelfPlayResult(seed, players, market, title, rules=rules)
    while not game.state.finished and result.actions < MAX_ACTIONS:
        before = Before.of(game)
        action = random_move(game, rng)
        if action is None:
            result.failures.append(f"no legal action for {game.actor()} in {game.round_name}: {game.choices()}")
            break
        result.played.append(action)
        try:
            check_invariants(game, action, before)
        except InvariantError as exc:
            result.failures.append(f"after {action}: {exc}")
            break
        result.actions += 1
    result.finished = game.state.finished
    if not result.finished and not result.failures:
        result.failures.append(f"not finished after {MAX_ACTIONS} actions")
    return result


def random_move(game: Game, rng: random.Random) -> Action | None:
    """Apply a random legal move (:func:`random_order`) and return it; None if the
    engine accepts none of them."""
    return game.apply_first(random_order(game, rng))


def random_order(game: Game, rng: random.Random) -> list[Action]:
    """The legal moves in a random order, a pass first now and then (:data:`PASS_WEIGHT`)."""
    options = legal_actions(game)
    passes: list[Action] = [a for a in options if isinstance(a, Pass)]
    others: list[Action] = [a for a in options if not isinstance(a, Pass)]
    rng.shuffle(others)
    return passes + others if passes and rng.random() < PASS_WEIGHT else others + passes


def check_invariants(game: Game, last: Action, before: Before | None = None) -> None:
    """Raise :class:`InvariantError` if the state is unsound (``before``: the state
    before ``last``, for the rules about what the action did)."""
    ctx, state = game.ctx, game.state
    total = state.bank + sum(p.cash for p in state.players) + sum(c.cash for c in state.companies.values())
    if total != ctx.board.bank_cash:
        raise InvariantError(f"money adds up to {total}, not {ctx.board.bank_cash}")
    if state.bank < 0 and not state.bank_broken:
        raise InvariantError(f"the bank is at {state.bank} but not broken")
    for sym, company in state.companies.items():
        if company.closed or not company.floated:
            continue
        held = sum(p.percent_of(sym) for p in state.players)
        total_pct = held + sum(c.percent for c in company.treasury) + state.pool_percent(sym)
        if total_pct != 100:
            raise InvariantError(f"{sym}'s shares add up to {total_pct}%")
        placed = [t.hex for t in company.tokens if t.hex]
        if len(set(placed)) != len(placed) and not _merging_into(game, sym):
            raise InvariantError(f"{sym} has two tokens on one hex")
    for key, slots in state.map.tokens.items():
        tile, _ = ctx.tile_at(state, key[0])
        if len(slots) > tile.nodes[key[1]].slots:
            raise InvariantError(f"{key} holds more tokens than slots")
    national = state.companies[ctx.board.national()]
    keeps_income = ctx.rules.national_collects_private_income  # RN 11.23
    if not ctx.board.national_operates and (national.trains or (national.cash and not keeps_income)):
        raise InvariantError(f"{national.sym} only exports trains and keeps no money (8.13), yet holds some")
    if not ctx.title.national_keeps_money(ctx) and (national.cash or national.loans):
        raise InvariantError(f"{national.sym} keeps no money and takes no loans (8.13, §15.2), yet holds "
                             f"{national.cash} and {national.loans} loans")
    over = trains.over_limit(ctx, state)
    if over and game.actor() != over[0] and not state.trainless_majors and not _merging_into(game, over[0]):
        raise InvariantError(f"{over[0]} is over its train limit and is not discarding")
    if last.entity in {p.id for p in state.players}:
        player = state.player(last.entity)
        if shares.cert_count(player) > shares.cert_limit(ctx, state) and last.kind in ("buy_share", "par"):
            raise InvariantError(f"{player.name} bought beyond the certificate limit")
    if not state.finished and game.acting_player() not in {p.id for p in state.players}:
        raise InvariantError(f"nobody seated may act for {game.actor()} in the {game.round_name} round")
    if before is not None:
        _check_what_the_action_did(game, last, before)


def _merging_into(game: Game, sym: str) -> bool:
    """``sym`` is the major of the merge in progress: its token reduction and its
    discards (9.2E, F) wait for the merge's other steps."""
    rnd = game.state.round
    return not game.state.finished and isinstance(rnd, MergerRound) and rnd.major == sym


MERGE_LINE = re.compile(r"^\S+(?: and \S+)+ form (\S+) at \d+$")
"""The log line of a merge (two or more minors; a conversion is one minor, 9.1A)."""


def _check_what_the_action_did(game: Game, last: Action, before: Before) -> None:
    ctx, state = game.ctx, game.state
    if before.game_ends_after is not None and not ctx.rules.final_phase_end_wins and (
        state.game_ends_after is None or state.game_ends_after > before.game_ends_after
    ):  # RN 10.1, 11.35: on 18xx.games the 8-train's end replaces an earlier one
        raise InvariantError(f"the end moved from {before.game_ends_after} to {state.game_ends_after} (12.1)")
    if ctx.rules.is_site:
        return  # what follows is the rulebook's reading; the site reads it its own way (RN 0.4, 7, 9)
    phase = before.phase
    for line in state.log[before.log:]:
        if line.startswith("Phase "):
            phase = line.split()[1]
        status = ctx.board.phase(phase).status
        if line.startswith(f"{ctx.board.national()} buys") and "national_operates" not in status:
            raise InvariantError(f"the national bought a train in phase {phase} (8.13): {line}")
        merged = MERGE_LINE.match(line)
        space = state.companies[merged.group(1)].market if merged else None
        if merged and space is not None:
            cell = ctx.board.market_cell(ctx.rules.market, *space)
            if not (cell.convert_zone or cell.teal) or not 100 <= cell.price <= 200:
                raise InvariantError(f"{merged.group(1)} formed on {cell} (9.2A: blue or teal, 100-200)")
    if isinstance(last, LayTile):
        _check_lay_reaches_new_track(game, last, before)


def _check_lay_reaches_new_track(game: Game, lay: LayTile, before: Before) -> None:
    """8.6: the lay is on a token hex, raises a city's value, or the company now
    reaches a new track end of the tile."""
    ctx, state = game.ctx, game.state
    company = state.companies[lay.entity]
    if not company.placed_tokens or any(t.hex == lay.hex for t in company.tokens):
        return  # nationalized when its turn went on without it, or its own token hex
    old_placed = before.tiles.get(lay.hex)
    old, old_rotation = (
        (ctx.board.tiles[old_placed.tile], old_placed.rotation) if old_placed else (ctx.board.hexes[lay.hex], 0)
    )
    new, rotation = ctx.tile_at(state, lay.hex)
    if old.nodes and max((n.revenue for n in new.nodes), default=0) > max((n.revenue for n in old.nodes), default=0):
        return
    added = {e for pair in new.edge_pairs(rotation) - old.edge_pairs(old_rotation) for e in pair}
    added |= set(new.exits(rotation) - old.exits(old_rotation))
    if added & graph.reachable(ctx, state, company.sym).edges_at(lay.hex):
        return
    raise InvariantError(f"{lay.entity}'s lay of {new.name} on {lay.hex} reaches none of its new track (8.6)")


SELFPLAY_SETUPS = [(players, market) for players in (2, 3, 4, 5, 6) for market in MARKETS]


def selfplay_setups(title: str, options: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """The setups the rulebook seats for ``title`` and ``options``: two players only where
    it has a two-player game (16), bundles for 2 to 5 (15.1, 16.3)."""
    seats = rulebook_players(title, options)
    return [(players, market) for players, market in SELFPLAY_SETUPS if players in seats]


def play_many(
    games: int,
    seed: int,
    title: str = DEFAULT_TITLE,
    options: frozenset[str] = frozenset(),
    site: bool = False,
    each: Callable[[SelfPlayResult], None] | None = None,
) -> dict[str, object]:
    """Play ``games`` random games of ``title`` (with ``options``; ``site``: by the site's
    rules) over every player count and market, each handed to ``each``; a summary."""
    actions = 0
    failures: list[str] = []
    setups = selfplay_setups(title, options)
    label = ", ".join([title, *sorted(options)])
    for i in range(games):
        players, market = setups[i % len(setups)]
        result = play_random_game(seed + i, players, market, title, options, site)
        if each is not None:
            each(result)
        actions += result.actions
        failures += [f"game {seed + i} ({label}, {players} players, {market}): {f}" for f in result.failures]
    summary: dict[str, object] = {"title": title, "games": games, "actions": actions, "failures": failures}
    if options:
        summary["options"] = sorted(options)
    if site:
        summary["rules"] = "site"
    return summary
