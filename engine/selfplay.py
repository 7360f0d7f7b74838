"""Seeded self-play with invariants checked after every action.

A player who mostly does what a table does (:class:`TableHabits`: buys trains, lays
track toward revenue, runs and pays out, starts and converts companies) picks among the
legal actions (:mod:`engine.legal`) by weighted chance; the engine accepts or refuses
each. After every accepted action the invariants of a sound game must hold: no money
created or lost, every company's shares add up, no limit broken, someone seated can act,
every started company has its home token, a company passed over for want of a route has
none, each end trigger ends the game after the operating round the rulebook names, the
national buys only while it operates, a merged major starts on its section and every lay
reaches its new track (the rulebook's rules these games play by). :func:`play_many`
sums up what the games went through (:class:`Exercised`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from . import graph, shares, trains
from .actions import Action, BuyTrain, Dividend, EndGame, LayTile, Pass
from .board import TileDef, hex_distance, is_edge
from .errors import InvalidAction
from .game import Game
from .game_setup import Setup, rulebook_players
from .legal import legal_actions
from .merger import MergerRound
from .operating import OperatingRound
from .options import LONG_GAME
from .rules import MARKETS, Rules
from .state import Context, PlacedTile
from .stock_round import StockRound
from .title import Title
from .titles import DEFAULT_TITLE
from .titles.t1861 import SHORT_END_PHASE, Russia
from .titles.t1861.options import SIX_TRAIN_END
from .titles.t1867 import Canada
from .track import lay_cost, new_segments

MAX_ACTIONS = 5000


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
    phase: str = ""  # the last phase reached
    end: str | None = None  # what ended the game (12.1, §15.3), None if unfinished
    exports: int = 0  # trains the national exported (8.13, §14, §15.2)
    merges: int = 0  # majors formed by two or more minors (9.2)
    conversions: int = 0  # minors converted into majors (9.1)

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
    at: RoundAt

    @classmethod
    def of(cls, game: Game) -> Before:
        state = game.state
        rnd = state.round
        at = RoundAt(rnd.kind if rnd is not None else "", state.round_number,
                     rnd.operating_rounds_done() if rnd is not None else 0, state.operating_rounds)
        return cls(len(state.log), state.phase, dict(state.map.tiles), state.game_ends_after, at)


@dataclass
class RoundAt:
    """Where the game is in its sequence (6): the round's kind, the set, the set's
    operating rounds done or under way, and how many the set has."""

    kind: str
    set: int
    done: int
    rounds: int

    def follow(self, line: str) -> None:
        """Move on by a log line that opens a round."""
        if match := OR_LINE.match(line):
            self.kind, self.set, self.done = "Operating", int(match.group(1)), int(match.group(2))
        elif match := SR_LINE.match(line):
            self.kind, self.set, self.done = "Stock", int(match.group(1)), 0
        elif line.startswith("Merger round after"):
            self.kind = "Merger"

    def plus(self, more: int) -> tuple[int, int]:
        """The operating round ``more`` after the one under way or just done (6: a
        stock round opens each set)."""
        last = self.done + more
        return (self.set, last) if last <= self.rounds else (self.set + 1, last - self.rounds)


OR_LINE = re.compile(r"^Operating round (\d+)\.(\d+)$")
SR_LINE = re.compile(r"^Stock round (\d+)")


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
    rules as 18xx.games applies them to a move made on its page (``new … site``), so
    that the exported game is valid there move by move."""
    rng = random.Random(seed)
    rules = Setup(title, market, options, site).rules()  # as `new` sets a game up
    game = Game.new(_seats(players), seed, rules, title)
    result = SelfPlayResult(seed, players, market, title, rules=rules)
    while not game.state.finished and result.actions < MAX_ACTIONS:
        before = Before.of(game)
        action = table_move(game, rng)
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
    _note_what_was_exercised(game, result)
    if not result.finished and not result.failures:
        result.failures.append(f"not finished after {MAX_ACTIONS} actions")
    return result


EXPORT_LINE = re.compile(r"^\S+ exports an? \S+-train$")
"""The log line of the national's export (8.13)."""


def _note_what_was_exercised(game: Game, result: SelfPlayResult) -> None:
    """What the game went through: its last phase, its end, exports and majors formed."""
    state = game.state
    result.phase, result.end = state.phase, state.end_reason
    for line in state.log:
        formed = MERGE_LINE.match(line)
        result.merges += formed is not None
        result.conversions += CONVERSION_LINE.match(line) is not None
        result.exports += EXPORT_LINE.match(line) is not None


def table_move(game: Game, rng: random.Random) -> Action | None:
    """A legal action, drawn at random with the weights of :class:`TableHabits`: a
    player who mostly does what a table does, and now and then something else."""
    habits = TableHabits(game)
    keyed = [(rng.random() ** (1.0 / habits.weight(action)), action) for action in legal_actions(game)]
    keyed.sort(key=lambda pair: pair[0], reverse=True)  # a weighted draw without replacement
    return game.apply_first(action for _, action in keyed)


TABLE_WEIGHTS = {
    "run_best": 20.0,  # a company with a route runs it
    "lay_tile": 3.0,
    "place_token": 3.0,
    "buy_train": 12.0,  # from the yard or the pool: what moves the game through its phases
    "par": 4.0,
    "convert": 3.0,
    "merge": 3.0,
    "buy_share": 2.0,
    "bid": 1.5,
    "buy_private": 0.5,
    "choose": 0.5,  # a trainless major's president nationalizes it
    "redeem_shares": 0.2,
    "sell_shares": 0.15,
}
"""How much more often than a pass (1) a self-play player makes each kind of move: a
table buys trains, lays track, runs and pays out, starts and converts companies, and
seldom sells, redeems or hands a company over."""

DIVIDEND_WEIGHTS = {"payout": 8.0, "half": 1.0, "withhold": 1.0}
TRAIN_FROM_OWN_COMPANY = 0.3
TRAIN_FROM_ANOTHER_PRESIDENT = 0.03
"""A train bought from another company (often for 1): now and then from a company of
the same president, seldom from another player's, as at a table."""
TOWARD_REVENUE = 4.0
"""A lay whose new track heads for a revenue centre the company does not reach yet, or
puts one on the map, is what a table lays."""
LAY_COST_STEP = 40
"""A table lays less gladly the more a lay costs (terrain, the second lay's 20)..."""
BORROWED_LAY = 0.02
"""... and seldom borrows for one."""


class TableHabits:
    """How likely a table is to make each legal move now (:meth:`weight`, against a
    pass's 1); what a weight needs is worked out once per decision."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def weight(self, action: Action) -> float:
        if isinstance(action, Dividend):
            return DIVIDEND_WEIGHTS.get(action.choice, 1.0)
        if isinstance(action, BuyTrain):
            return self._train(action)
        if isinstance(action, LayTile):
            return self._lay(action)
        return TABLE_WEIGHTS.get(action.kind, 1.0)

    def _train(self, action: BuyTrain) -> float:
        state = self.game.state
        source, _ = trains.find_train(self.game.ctx, state, action.train)
        if source in ("yard", "pool"):
            return TABLE_WEIGHTS["buy_train"]
        same = state.president(source) == state.president(action.entity)
        return TRAIN_FROM_OWN_COMPANY if same else TRAIN_FROM_ANOTHER_PRESIDENT

    def _lay(self, action: LayTile) -> float:
        ctx, state, rnd = self.game.ctx, self.game.state, self.game.state.round
        tile = ctx.board.tiles[action.tile]
        cost = lay_cost(ctx, state, action.hex, tile, second=isinstance(rnd, OperatingRound) and bool(rnd.lays))
        if cost > state.companies[action.entity].cash:
            return BORROWED_LAY
        weight = TABLE_WEIGHTS["lay_tile"] / (1 + cost / LAY_COST_STEP)
        return weight * TOWARD_REVENUE if self._toward_revenue(action, tile) else weight

    def _toward_revenue(self, action: LayTile, tile: TileDef) -> bool:
        """The lay is on a revenue centre the company does not reach yet, or a new end of
        its track is nearer to one than the hex is."""
        targets = self._unreached_stops
        if not targets:
            return False
        if action.hex in targets and tile.nodes:
            return True
        neighbours = self.game.ctx.board.neighbours[action.hex]
        old, old_rotation = self.game.ctx.tile_at(self.game.state, action.hex)
        ends = {end for path in new_segments(old, old_rotation, tile, action.rotation % 6) for end in path
                if is_edge(end)}
        here = min(hex_distance(action.hex, t) for t in targets)
        return any(hex_distance(neighbours[e], t) < here for e in ends if e in neighbours for t in targets)

    @cached_property
    def _unreached_stops(self) -> frozenset[str]:
        """The hexes with a revenue centre the acting company does not reach."""
        ctx, state, sym = self.game.ctx, self.game.state, self.game.actor() or ""
        if sym not in state.companies:
            return frozenset()
        reached = {h for h, _ in graph.reachable(ctx, state, sym).nodes}
        return frozenset(h for h in ctx.board.hexes if h not in reached and ctx.tile_at(state, h)[0].nodes)


PASS_WEIGHT = 0.25
"""How often the random player (the arena's ``random``) prefers passing when it may act."""


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
        _check_home(game, sym, placed)
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


def _check_home(game: Game, sym: str, placed: list[str]) -> None:
    """7.2.1, 7.4, 9: a floated minor or started major has a token on the map from which
    it connects (8.1); an 1861 minor's is on its reserved home. The national places its
    own when 8.13 says; a major started in a stock round places its home the step after
    its start price (7.4); a merging major's tokens come in the merge's last step (9.2E)."""
    company, rnd = game.state.companies[sym], game.state.round
    if company.is_national or _merging_into(game, sym):
        return
    if isinstance(rnd, StockRound) and rnd.home_token == sym:
        return  # 7.4: a major just started places its home token next
    if not placed:
        raise InvariantError(f"{sym} has started but has no station token on the map")
    home = game.ctx.board.corporations[sym].home
    if company.is_minor and home is not None and home not in placed:
        raise InvariantError(f"{sym} has no token on its home {home} (7.2.1)")


def _merging_into(game: Game, sym: str) -> bool:
    """``sym`` is the major of the merge in progress: its token reduction and its
    discards (9.2E, F) wait for the merge's other steps."""
    rnd = game.state.round
    return not game.state.finished and isinstance(rnd, MergerRound) and rnd.major == sym


MERGE_LINE = re.compile(r"^\S+(?: and \S+)+ form (\S+) at \d+$")
"""The log line of a merge (two or more minors; a conversion is one minor, 9.1A)."""
CONVERSION_LINE = re.compile(r"^\S+ converts into \S+ at \d+$")


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
    _check_the_end(game, last, before)
    _check_unrun_routes(game, before)


def _first_8_train_1861(at: RoundAt) -> tuple[int, int]:
    """12.1 (1861): "purchased in the first Operating Round of a set, finish this
    Operating Round and play 2 more Operating Rounds without a Stock Round ... in the
    second Operating Round of a set, finish this Operating Round, conduct a Stock Round,
    then play 3 consecutive Operating Rounds"."""
    return (at.set, 3) if at.kind == "Operating" and at.done == 1 else (at.set + 1, 3)


def _first_8_train_1867(at: RoundAt) -> tuple[int, int]:
    """12.1 (1867): "finish this set of Operating Rounds, conduct a Stock Round, then play
    3 consecutive Operating Rounds"."""
    return (at.set + 1, 3)


FIRST_8_TRAIN_END: list[tuple[type[Title], Callable[[RoundAt], tuple[int, int]]]] = [
    (Russia, _first_8_train_1861), (Canada, _first_8_train_1867)]
"""12.1's two columns, written here apart from the titles' hooks so that self-play
checks them (a title built on one of the two ends as it does)."""


def _first_8_train_column(ctx: Context) -> Callable[[RoundAt], tuple[int, int]] | None:
    """12.1's column for the game's title, None for a title built on neither."""
    return next((end for title, end in FIRST_8_TRAIN_END if isinstance(ctx.title, title)), None)


def _rulebook_end(ctx: Context, line: str, at: RoundAt) -> tuple[str, tuple[int, int]] | None:
    """The end a log line triggers by the rulebook, or None: the bank (12.1: after this
    operating round, or after the next one if it breaks outside one), the first 8-train
    (12.1; §14's long game and §15.3 ignore it) and §15.3's first 6-train ("finish the
    Operating Round, and play two more")."""
    if line == "The bank has broken":
        return "bank", (at.set, at.done) if at.kind == "Operating" else at.plus(1)
    if not line.startswith("Phase "):
        return None
    phase = line.split()[1]
    if ctx.rules.plays(SIX_TRAIN_END):
        return ("first_6_train", at.plus(2)) if phase == SHORT_END_PHASE else None
    if phase == ctx.board.phases[-1].name and not ctx.rules.plays(LONG_GAME):
        column = _first_8_train_column(ctx)
        return ("final_phase", column(at)) if column is not None else None
    return None


def _check_the_end(game: Game, last: Action, before: Before) -> None:
    """12.1, §15.3: every trigger sets the end where the rulebook puts it (the earlier of
    two ends wins), and the game ends after that operating round, not before or after."""
    ctx, state = game.ctx, game.state
    if isinstance(last, EndGame) or ctx.rules.final_phase_end_wins or _first_8_train_column(ctx) is None:
        return  # the players agreed to end it (13); RN 10.1: the site's own order of ends; a title of its own
    at = RoundAt(before.at.kind, before.at.set, before.at.done, before.at.rounds)
    end = before.game_ends_after
    for line in state.log[before.log:]:
        if OR_LINE.match(line) and end is not None and (opened := at.plus(1)) > end:
            raise InvariantError(f"operating round {opened[0]}.{opened[1]} is played after the end "
                                 f"({end[0]}.{end[1]}, 12.1)")
        set_before = at.set
        at.follow(line)
        if at.set != set_before:
            at.rounds = state.operating_rounds
        trigger = _rulebook_end(ctx, line, at)
        if trigger is not None and (end is None or trigger[1] < end):
            end = trigger[1]
            if state.game_ends_after is None:
                raise InvariantError(f"{line!r} set no end; the rulebook ends the game after "
                                     f"operating round {end[0]}.{end[1]} ({trigger[0]})")
    if end != state.game_ends_after:
        raise InvariantError(f"the game ends after {state.game_ends_after}; the rulebook says after {end} (12.1)")
    if state.finished and (at.set, at.done) != end:
        raise InvariantError(f"the game ended after operating round {at.set}.{at.done}, not {end} (12.1)")


def _check_unrun_routes(game: Game, before: Before) -> None:
    """8.8: a company passed over as having no route to run reaches no revenue centre
    beyond its own token hexes. 8.8.1, one revenue centre per hex: track that leads only
    into another city of its own hex (Moscow's) makes no route, nor does track beyond that
    city, so a company with a token in a hex of several cities is not judged here."""
    ctx, state = game.ctx, game.state
    for line in state.log[before.log:]:
        if not line.endswith(NO_ROUTE):
            continue
        sym = line.split()[0]
        company = state.companies[sym]
        if company.closed:
            continue
        own = {t.hex for t in company.tokens if t.hex}
        if any(len(ctx.tile_at(state, h)[0].city_indexes) > 1 for h in own):
            continue  # 8.8.1: its track may leave only through another city of its own hex
        beyond = sorted({h for h, _ in graph.reachable(ctx, state, sym).nodes} - own)
        if beyond:
            raise InvariantError(f"{line!r}, yet {sym} reaches the revenue centres of {', '.join(beyond)} (8.8)")


NO_ROUTE = " has no route to run (a route needs two stops, one its own token)"


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


@dataclass
class Exercised:
    """What a run of games went through: the games by last phase reached and by how
    they ended, and the exports, merges and conversions in all."""

    phases: dict[str, int] = field(default_factory=dict)
    ends: dict[str, int] = field(default_factory=dict)
    exports: int = 0
    merges: int = 0
    conversions: int = 0

    def add(self, result: SelfPlayResult) -> None:
        self.phases[result.phase] = self.phases.get(result.phase, 0) + 1
        end = result.end or "unfinished"
        self.ends[end] = self.ends.get(end, 0) + 1
        self.exports += result.exports
        self.merges += result.merges
        self.conversions += result.conversions

    def summary(self) -> dict[str, object]:
        """The figures as ``troika selfplay --json`` prints them."""
        late = sum(n for phase, n in self.phases.items() if phase.isdigit() and int(phase) >= LATE_PHASE)
        return {
            "last_phase": dict(sorted(self.phases.items())),
            f"reached_phase_{LATE_PHASE}": late,
            "ends": dict(sorted(self.ends.items())),
            "exports": self.exports,
            "merges": self.merges,
            "conversions": self.conversions,
        }


LATE_PHASE = 6
"""Self-play should reach the late phases (6 to 8), where the variants' ends are."""


def play_many(
    games: int,
    seed: int,
    title: str = DEFAULT_TITLE,
    options: frozenset[str] = frozenset(),
    site: bool = False,
    each: Callable[[SelfPlayResult], None] | None = None,
    players: int | None = None,
) -> dict[str, Any]:
    """Play ``games`` random games of ``title`` (with ``options``; ``site``: by the site's
    rules) over every player count (or only ``players``) and market, each handed to
    ``each``; a summary with what the games exercised (:class:`Exercised`)."""
    actions = 0
    failures: list[str] = []
    exercised = Exercised()
    setups = [s for s in selfplay_setups(title, options) if players is None or s[0] == players]
    if not setups:
        seats = rulebook_players(title, options)
        raise InvalidAction(f"the rulebook seats {seats.start} to {seats.stop - 1} players for "
                            f"{', '.join([title, *sorted(options)])}, not {players}")
    label = ", ".join([title, *sorted(options)])
    for i in range(games):
        players, market = setups[i % len(setups)]
        result = play_random_game(seed + i, players, market, title, options, site)
        if each is not None:
            each(result)
        actions += result.actions
        exercised.add(result)
        failures += [f"game {seed + i} ({label}, {players} players, {market}): {f}" for f in result.failures]
    summary: dict[str, Any] = {
        "title": title, "games": games, "actions": actions, "failures": failures, "exercised": exercised.summary(),
    }
    if options:
        summary["options"] = sorted(options)
    if site:
        summary["rules"] = "site"
    return summary
