"""The operating round (rulebook 8): privates pay, then minors, majors and the
national railway operate in turn, each through steps A–H (8.4,
:mod:`engine.operating_steps`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from . import game_end, market, trains
from .actions import Action, BuyPrivate, Choose, DiscardTrain
from .errors import IllegalAction
from .nationalization import trainless_choice
from .operating_steps import Step, buy_private
from .rounds import Round, TrackView, TurnView
from .state import Company, Context, GameState
from .tokens import home_city, put_national_token


@dataclass
class OperatingRound(Round):
    """The operating round's progress: which company operates and at which step."""

    kind: ClassVar[str] = "Operating"
    companies_operate: ClassVar[bool] = True
    number: int = 1  # 1..operating rounds in this set
    order: list[str] = field(default_factory=list)
    index: int = 0
    step: str = ""  # the name of the step the company is at (:attr:`Title.operating_steps`)
    lays: list[str] = field(default_factory=list)  # hexes of this turn's track actions
    upgraded: bool = False
    tokened: bool = False
    revenue: int = 0
    privates_offered: bool = False  # this turn's choices have included buying a private (8.12)

    def current_step(self, ctx: Context) -> Step:
        return ctx.title.operating_steps[ctx.title.step_index[self.step]]

    def actor(self, ctx: Context, state: GameState) -> str:
        if state.trainless_majors:
            return state.trainless_majors[0]
        over = trains.over_limit(ctx, state)
        if over:
            return over[0]
        company = _company(state, self)
        return company.sym if company else ""

    def moves(self, ctx: Context, state: GameState) -> list[Action]:
        """Discards over the train limit first (8.11), else the step's moves."""
        over = trains.over_limit(ctx, state)
        if over:
            return [DiscardTrain(over[0], t.id) for t in state.companies[over[0]].trains]
        company = _company(state, self)
        if company is None:
            return []
        return self.current_step(ctx).moves(ctx, state, self, company)

    def apply(self, ctx: Context, state: GameState, action: Action) -> None:
        """Apply one action of the operating round, then run automatic steps."""
        trains_moved = True
        if state.trainless_majors:
            if isinstance(action, Choose):
                refused = self.nationalizing_refused(ctx, state)
                if refused:
                    raise IllegalAction(refused)
            trainless_choice(ctx, state, action)
            _national_buys_on(ctx, state, self)
        elif trains.over_limit(ctx, state):
            trains.discard(ctx, state, action)
            _national_buys_on(ctx, state, self)
        else:
            company = _company(state, self)
            if company is None or action.entity != company.sym:
                raise IllegalAction(f"it is {company.sym if company else 'nobody'}'s turn to operate")
            step = self.current_step(ctx)
            if isinstance(action, BuyPrivate):
                buy_private(ctx, state, company, action)  # 8.12: at any step
            elif step.handle(ctx, state, self, company, action):
                _next_step(ctx, state, self)
            # nobody was over the limit, and only a step that moves trains can put one over
            trains_moved = step.moves_trains
        _advance(ctx, state, over_limit=None if trains_moved else False)

    def nationalizing_refused(self, ctx: Context, state: GameState) -> str | None:
        """Why the trainless major asked now may not be nationalized, or None: under
        :attr:`Rules.operating_major_not_nationalized`, when it is the company whose turn
        it is to operate and another trainless major is still to choose (the site's
        engine would leave it operating, stuck)."""
        company = _company(state, self)
        sym = state.trainless_majors[0] if len(state.trainless_majors) > 1 else None
        if not ctx.rules.operating_major_not_nationalized or company is None or company.sym != sym:
            return None
        return (f"{sym} cannot be nationalized now: it is its turn to operate, and 18xx.games "
                f"would leave it operating with nothing it may do; its president may keep it (pass)")

    def heading(self, state: GameState) -> str:
        return f"Operating round {state.round_number}.{self.number}"

    def view(self, ctx: Context, state: GameState, actor: str) -> TurnView:
        if actor in trains.over_limit(ctx, state):
            doing = "is over its train limit and discards"
            return TurnView(self.heading(state), self.kind, doing, actor)
        return TurnView(
            self.heading(state),
            self.kind,
            self.current_step(ctx).doing,
            actor,
            placing_token=self.step == "token",
            track=self._track_view(ctx) if self.step == "track" else None,
        )

    def _track_view(self, ctx: Context) -> TrackView:
        costs = ctx.board.lay_costs
        return TrackView(tuple(self.lays), self.upgraded, costs[len(self.lays)] if len(self.lays) < len(costs) else 0)

    def operating_rounds_done(self) -> int:
        return self.number

    def bank_breaks_end(self, state: GameState) -> tuple[int, int]:
        return (state.round_number, self.number)


# --- round flow ------------------------------------------------------------------


def start_set(ctx: Context, state: GameState) -> None:
    """After a stock round: the set's operating rounds begin."""
    state.operating_rounds = game_end.rounds_in_next_set(ctx, state, state.round_number)
    start(ctx, state, 1)


def start(ctx: Context, state: GameState, number: int) -> None:
    """8.3: record loans owing interest, privates pay, fix the operating order."""
    rnd = OperatingRound(number=number, step=ctx.title.operating_steps[0].name)
    state.round = rnd
    state.log.append(f"Operating round {state.round_number}.{number}")
    if ctx.board.national_operates:
        state.national_operator = state.players[state.priority].id
    for company in state.companies.values():
        company.loans_due = company.loans
        for train in company.trains:
            train.operated = False
    _privates_pay(ctx, state)
    floated = [s for s, c in state.companies.items() if c.floated and not c.closed]
    minors = [s for s in floated if state.companies[s].is_minor]
    majors = [s for s in floated if state.companies[s].is_major]
    rnd.order = (
        market.in_price_order(ctx, state, minors)
        + market.in_price_order(ctx, state, majors)
        + [ctx.board.national()]
    )
    rnd.index = -1
    _next_company(ctx, state, rnd)
    _advance(ctx, state)


def _privates_pay(ctx: Context, state: GameState) -> None:
    """8.3A: every owned private pays its revenue to its owner."""
    paid = []
    for sym, owner in state.private_owner.items():
        if owner is None or sym in state.closed_privates:
            continue
        if owner == ctx.board.national() and not ctx.title.national_keeps_money(ctx):
            continue
        revenue = ctx.board.private(sym).revenue
        if owner in state.companies:
            state.companies[owner].cash += revenue
        else:
            state.player(owner).cash += revenue
        state.bank -= revenue
        paid.append(f"{sym} {revenue} to {owner if owner in state.companies else state.player(owner).name}")
    if paid:
        state.log.append("Privates pay: " + ", ".join(paid))


def _company(state: GameState, rnd: OperatingRound) -> Company | None:
    if 0 <= rnd.index < len(rnd.order):
        return state.companies[rnd.order[rnd.index]]
    return None


def _next_company(ctx: Context, state: GameState, rnd: OperatingRound) -> None:
    """The next company in the order begins its turn (:func:`_advance` runs its steps)."""
    rnd.index += 1
    rnd.step = ctx.title.operating_steps[0].name
    rnd.lays, rnd.upgraded, rnd.tokened, rnd.revenue = [], False, False, 0
    rnd.privates_offered = False
    company = _company(state, rnd)
    if company is None:
        _end(ctx, state, rnd)
        return
    if company.is_national:
        if not ctx.title.national_runs(ctx, state):
            _next_company(ctx, state, rnd)
            return
        _national_home_token(ctx, state, company)
    elif company.closed or not company.floated:
        _next_company(ctx, state, rnd)


def _national_home_token(ctx: Context, state: GameState, nat: Company) -> None:
    """8.13: on its first run the RSR puts a token in its reserved St Petersburg city."""
    home = home_city(ctx, state, nat.sym)
    if home is None or any(t.hex == home[0] for t in nat.tokens):
        return
    if state.map.reservations.get(home) == nat.sym:
        put_national_token(ctx, state, nat.sym, *home, "home")


def _end(ctx: Context, state: GameState, rnd: OperatingRound) -> None:
    """8.14: after the last company the round is over (the title's sequence says what
    follows: the game's end, an export, a merger round or the next round)."""
    rnd.over = True


def _advance(ctx: Context, state: GameState, *, over_limit: bool | None = None) -> None:
    """Run steps that need nobody's decision until someone must act (``over_limit``:
    whether a company is over its train limit, if the caller knows)."""
    if over_limit is None:
        over_limit = bool(trains.over_limit(ctx, state))
    while isinstance(state.round, OperatingRound) and not state.round.over and not state.finished:
        rnd = state.round
        game_end.check_bank(ctx, state)
        if state.trainless_majors or over_limit:
            return
        company = _company(state, rnd)
        if company is None:
            return
        if company.closed or (company.market is None and not company.is_national):
            _next_company(ctx, state, rnd)
            continue
        step = rnd.current_step(ctx)
        if step.needed(ctx, state, rnd, company):
            step.asked(ctx, state, rnd, company)
            return
        line = step.passed_over(ctx, state, rnd, company)
        if line is not None:
            state.log.append(line)
        step.automatic(ctx, state, rnd, company)
        if step.moves_trains:
            over_limit = bool(trains.over_limit(ctx, state))
        if state.round is not rnd:
            continue
        _next_step(ctx, state, rnd)


def _next_step(ctx: Context, state: GameState, rnd: OperatingRound) -> None:
    """The title's next operating step, or the next company after the last."""
    steps = ctx.title.operating_steps
    following = ctx.title.step_index[rnd.step] + 1
    if following < len(steps):
        rnd.step = steps[following].name
    else:
        _next_company(ctx, state, rnd)


def _national_buys_on(ctx: Context, state: GameState, rnd: OperatingRound) -> None:
    """8.13: the RSR buys as many trains as it can afford, so once the majors left
    trainless by its own purchase are decided (their cash may now be its), it goes on
    (unless phase 8 has begun, :func:`trains.national_buys_trains`). 8.11.1: only
    once every effect of its last phase change is resolved, the discards too."""
    company = _company(state, rnd)
    if state.trainless_majors or trains.over_limit(ctx, state) or company is None or not company.is_national:
        return
    if ctx.title.step_index[rnd.step] > ctx.title.step_index.get("trains", len(ctx.title.operating_steps)):
        trains.national_buys_trains(ctx, state)
