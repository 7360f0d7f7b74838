"""The stock round (rulebook 7): sell, then buy one certificate, auction a minor or
start a major; ends when everybody passes in a row."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from . import market, shares
from .actions import Action, Bid, BuyShare, Par, Pass, PlaceToken, SellShares
from .errors import IllegalAction
from .nationalization import trainless_choice
from .options import LEFT_OF_AUCTIONEER
from .rounds import AuctionView, Round, TurnView
from .state import Certificate, Context, GameState, Player

MINOR_MIN_BID = 100
BID_STEP = 5


@dataclass
class MinorAuction:
    """A minor put up for auction during a stock turn (7.2)."""

    minor: str
    nominator: int
    high_bid: int
    high_bidder: int
    active: list[int]  # seats still bidding
    turn: int


@dataclass
class StockRound(Round):
    """The stock round's progress: whose turn, consecutive passes, what each sold."""

    kind: ClassVar[str] = "Stock"
    opens_operating_rounds: ClassVar[bool] = True  # 7.6
    turn: int = 0  # seat to act
    passes: int = 0  # consecutive passes
    last_actor: int | None = None
    sold: dict[str, list[str]] = field(default_factory=dict)  # player id -> companies sold
    sold_this_turn: bool = False
    dropped_this_turn: list[str] = field(default_factory=list)  # price already dropped (7.3.1)
    auction: MinorAuction | None = None
    home_token: str | None = None  # a company that must place its home token now
    home_player: int | None = None  # the player who places it

    def actor(self, ctx: Context, state: GameState) -> str:
        if state.trainless_majors:
            return state.trainless_majors[0]
        if self.home_token is not None:
            return self.home_token
        if self.auction is not None:
            return state.players[self.auction.turn].id
        return state.players[self.turn].id

    def moves(self, ctx: Context, state: GameState) -> list[Action]:
        """Every action open to whoever acts now (bids at the lowest amount allowed)."""
        if self.home_token:
            return [PlaceToken(self.home_token, h, c) for h, c in home_cities(ctx, state)]
        if self.auction:
            a = self.auction
            bidder = state.players[a.turn]
            bid = [Bid(bidder.id, a.minor, a.high_bid + BID_STEP)] if bidder.cash >= a.high_bid + BID_STEP else []
            return bid + [Pass(bidder.id)]
        player = state.players[self.turn]
        result: list[Action] = []
        for sym in _held_majors(player):
            result += [SellShares(player.id, sym, n) for n in range(1, _max_sellable(ctx, state, player, sym) + 1)]
        if not _over_limits(ctx, state, player):
            for sym in _started_majors(state):
                sources = _buyable_sources(ctx, state, self, player, sym)
                result += [BuyShare(player.id, sym, source) for source in sources]
            if player.cash >= MINOR_MIN_BID and shares.cert_count(player) < shares.cert_limit(ctx, state):
                result += [Bid(player.id, sym, MINOR_MIN_BID) for sym in available_minors(ctx, state)]
            result += _starts(ctx, state, player)
        if not (_over_limits(ctx, state, player) and result):
            result.append(Pass(player.id))
        return result

    def apply(self, ctx: Context, state: GameState, action: Action) -> None:
        """Apply one stock-round action."""
        if state.trainless_majors:
            trainless_choice(ctx, state, action)
        elif self.home_token is not None:
            _home_token(ctx, state, self, action)
        elif self.auction is not None:
            _auction_action(ctx, state, self, action)
        else:
            _turn_action(ctx, state, self, action)

    def heading(self, state: GameState) -> str:
        return f"Stock round {state.round_number}"

    def view(self, ctx: Context, state: GameState, actor: str) -> TurnView:
        title = self.heading(state)
        if self.home_token:
            return TurnView(title, self.kind, "places its home token", actor, placing_token=True)
        if self.auction:
            a = self.auction
            auction = AuctionView("minor", a.minor, a.high_bid, state.players[a.high_bidder].id, a.high_bid + BID_STEP)
            return TurnView(title, self.kind, f"bids on {a.minor}", actor, auction=auction)
        return TurnView(title, self.kind, "has a stock turn", actor)

    def decider(self, state: GameState, company: str) -> str | None:
        """The player who places ``company``'s home token now (its nominator or founder)."""
        if self.home_token != company or self.home_player is None:
            return None
        return state.players[self.home_player].id


def start(ctx: Context, state: GameState) -> None:
    """Begin a stock round with the priority deal player."""
    sr = StockRound(turn=state.priority)
    state.round = sr
    state.log.append(f"Stock round {state.round_number}")
    _skip_players_without_actions(ctx, state, sr)


# --- a player's turn -------------------------------------------------------------


def _turn_action(ctx: Context, state: GameState, sr: StockRound, action: Action) -> None:
    seat = _seat_of(state, action)
    if seat != sr.turn:
        raise IllegalAction(f"it is {state.players[sr.turn].name}'s turn in the stock round")
    player = state.players[seat]
    over = _over_limits(ctx, state, player)
    if over and not isinstance(action, SellShares):
        can_sell = any(_max_sellable(ctx, state, player, c) for c in _held_majors(player))
        if can_sell or not isinstance(action, Pass):
            raise IllegalAction(f"{player.name} is {over} and must sell down to it first (7.5)")
    if isinstance(action, SellShares):
        _sell(ctx, state, sr, player, action)
        if not has_action(ctx, state, sr, player):
            _end_turn(ctx, state, sr, acted=True)  # 7.1: nothing more to sell or buy
    elif isinstance(action, BuyShare):
        _buy(ctx, state, sr, player, action)
        _end_turn(ctx, state, sr, acted=True)
    elif isinstance(action, Bid):
        _nominate(ctx, state, sr, seat, action)
    elif isinstance(action, Par):
        _par(ctx, state, sr, seat, action)
    elif isinstance(action, Pass):
        _end_turn(ctx, state, sr, acted=sr.sold_this_turn)
    else:
        raise IllegalAction(
            f"in a stock round you may sell, buy a share, auction a minor, start a major or pass (not {action.kind})"
        )


def _seat_of(state: GameState, action: Action) -> int:
    return state.player_index(action.entity)


def _over_limits(ctx: Context, state: GameState, player: Player) -> str:
    """Why a player must sell (7.5: over the certificate limit, e.g. after a presidency
    change), or '' if they need not."""
    if shares.cert_count(player) > shares.cert_limit(ctx, state):
        return f"over the certificate limit of {shares.cert_limit(ctx, state)}"
    return ""


def _end_turn(ctx: Context, state: GameState, sr: StockRound, *, acted: bool) -> None:
    if acted:
        sr.passes = 0
        sr.last_actor = sr.turn
    else:
        sr.passes += 1
    sr.sold_this_turn = False
    sr.dropped_this_turn = []
    sr.turn = (sr.turn + 1) % len(state.players)
    _skip_players_without_actions(ctx, state, sr)


def _skip_players_without_actions(ctx: Context, state: GameState, sr: StockRound) -> None:
    """Players with nothing they could do pass automatically; all passing ends the round."""
    if sr.home_token is not None:
        return  # the home token comes first; the turn moves on after it
    n = len(state.players)
    while sr.passes < n:
        if has_action(ctx, state, sr, state.players[sr.turn]):
            return
        state.log.append(f"{state.players[sr.turn].name} passes: nothing to sell, buy or auction")
        sr.passes += 1
        sr.turn = (sr.turn + 1) % n
    _finish(ctx, state, sr)


def has_action(ctx: Context, state: GameState, sr: StockRound, player: Player) -> bool:
    """Whether a player has any stock action available (else they pass automatically)."""
    if any(_max_sellable(ctx, state, player, c) for c in _held_majors(player)):
        return True
    if _over_limits(ctx, state, player):
        return False
    at_limit = shares.cert_count(player) >= shares.cert_limit(ctx, state)
    if at_limit:
        return False
    if player.cash >= MINOR_MIN_BID and available_minors(ctx, state):
        return True
    if may_start_a_major(ctx, state, player):
        return True
    return any(_buyable_sources(ctx, state, sr, player, sym) for sym in _started_majors(state))


def _finish(ctx: Context, state: GameState, sr: StockRound) -> None:
    """7.6: priority to the left of the last actor, sold-out majors move; the round is over."""
    if sr.last_actor is not None:
        state.priority = (sr.last_actor + 1) % len(state.players)
    for sym in market.in_price_order(ctx, state, _started_majors(state)):
        if _sold_out(state, sym):
            market.move_up(ctx, state, sym)
    sr.over = True


def _sold_out(state: GameState, sym: str) -> bool:
    company = state.companies[sym]
    return not company.treasury and state.pool_percent(sym) == 0


def _held_majors(player: Player) -> list[str]:
    seen: list[str] = []
    for c in player.certs:
        if c.percent != 100 and c.company not in seen:
            seen.append(c.company)
    return seen


def _started_majors(state: GameState) -> list[str]:
    return [
        sym
        for sym, c in state.companies.items()
        if c.is_major and c.floated and not c.closed
    ]


# --- selling (7.3) ---------------------------------------------------------------


def _max_sellable(ctx: Context, state: GameState, player: Player, sym: str) -> int:
    """How many 10% shares of ``sym`` the player could sell now."""
    company = state.companies[sym]
    if not company.is_major or not company.operated:
        return 0
    held = player.percent_of(sym) // 10
    room = (MAX_POOL_UNITS - state.pool_percent(sym) // 10)
    if any(c.company == sym and c.president for c in player.certs):
        others = max((p.percent_of(sym) for p in state.players if p is not player), default=0)
        if others < 20:
            held -= 2  # the president's certificate cannot go to the pool (7.3.3)
    return max(0, min(held, room))


MAX_POOL_UNITS = shares.MAX_POOL // 10


def _sell(ctx: Context, state: GameState, sr: StockRound, player: Player, action: SellShares) -> None:
    sym = action.company
    company = state.companies.get(sym)
    if company is None or not company.is_major:
        raise IllegalAction(f"only shares of major companies can be sold; {sym} is not a major")
    if not company.operated:
        raise IllegalAction(f"{sym} has not operated yet, so its shares cannot be sold (7.3.3)")
    if action.count < 1:
        raise IllegalAction("sell at least one share")
    if player.percent_of(sym) < action.count * 10:
        raise IllegalAction(f"{player.name} holds only {player.percent_of(sym)}% of {sym}")
    if state.pool_percent(sym) + action.count * 10 > shares.MAX_POOL:
        raise IllegalAction(
            f"at most {shares.MAX_POOL}% of {sym} may be in the bank pool; it holds {state.pool_percent(sym)}%"
        )
    if action.count > _max_sellable(ctx, state, player, sym):
        raise IllegalAction(
            f"the president's certificate of {sym} can only change hands if another player holds 20%"
        )
    was_president = shares.president_seat(state, sym) == state.players.index(player)
    price = market.price(ctx, state, sym)
    _move_sold_certificates(state, player, sym, action)
    player.cash += price * action.count
    state.bank -= price * action.count
    sr.sold.setdefault(player.id, []).append(sym)
    sr.sold_this_turn = True
    state.log.append(f"{player.name} sells {action.count * 10}% of {sym} for {price * action.count}")
    if was_president:
        line = shares.update_president(state, sym)
        if line:
            state.log.append(line)
        if ctx.rules.price_drop_per_sell_action or sym not in sr.dropped_this_turn:
            market.move_down(ctx, state, sym)
            sr.dropped_this_turn.append(sym)
    elif (line := shares.update_president(state, sym)) is not None:
        state.log.append(line)


def _move_sold_certificates(state: GameState, player: Player, sym: str, action: SellShares) -> None:
    """Put the sold certificates in the pool, exchanging the president's certificate
    when it is part of the sale (7.3.2, RULES-NOTES 4.7)."""
    units = action.count
    chosen = choose_sold(player, sym, units, action.certs)
    if not any(c.president for c in chosen):
        for cert in chosen:
            player.certs.remove(cert)
            state.pool.append(cert)
        return
    listed = sum(c.percent for c in chosen) // 10
    for cert in chosen:
        player.certs.remove(cert)
        state.pool.append(cert)
    pres = next(c for c in chosen if c.president)
    # The new president: most shares, ties clockwise from the seller.
    seat = state.players.index(player)
    n = len(state.players)
    candidates = [state.players[(seat + i) % n] for i in range(1, n)]
    new = max(candidates, key=lambda p: p.percent_of(sym))  # max keeps the first of equals
    seller_keeps = player.percent_of(sym)
    given = [c for c in new.certs if c.company == sym and not c.president][:2]
    for cert in given:
        new.certs.remove(cert)
        (player.certs if seller_keeps >= 20 else state.pool).append(cert)
    state.pool.remove(pres)
    new.certs.append(pres)
    for _ in range(listed - units):  # a partial sale: the president's certificate counted as 10%
        back = shares.first_plain(state.pool, sym)
        assert back is not None
        state.pool.remove(back)
        player.certs.append(back)


def choose_sold(player: Player, sym: str, units: int, named: tuple[str, ...]) -> list[Certificate]:
    """The certificates a sale of ``units`` shares hands over: those ``named``, else
    the plain shares first, then the president's."""
    if named:
        by_id = {c.id: c for c in player.certs}
        missing = [n for n in named if n not in by_id]
        if missing:
            raise IllegalAction(f"{player.name} does not hold {', '.join(missing)}")
        chosen = [by_id[n] for n in named]
        total = sum(c.percent for c in chosen) // 10
        if not units <= total <= units + 1:
            raise IllegalAction(f"the certificates named do not make {units * 10}%")
        return chosen
    plain = [c for c in player.certs if c.company == sym and not c.president]
    if len(plain) >= units:
        return plain[:units]
    pres = [c for c in player.certs if c.company == sym and c.president]
    return plain + pres


# --- buying (7.4) ----------------------------------------------------------------


def _buyable_sources(ctx: Context, state: GameState, sr: StockRound, player: Player, sym: str) -> list[str]:
    """Where the player could buy a share of ``sym`` from right now."""
    try:
        _check_buy(ctx, state, sr, player, sym)
    except IllegalAction:
        return []
    price = market.price(ctx, state, sym)
    if player.cash < price:
        return []
    sources = []
    if shares.first_plain(state.companies[sym].treasury, sym):
        sources.append("treasury")
    if shares.first_plain(state.pool, sym):
        sources.append("pool")
    return sources


def _check_buy(ctx: Context, state: GameState, sr: StockRound, player: Player, sym: str) -> None:
    company = state.companies.get(sym)
    if company is None or not company.is_major or not company.floated or company.closed:
        raise IllegalAction(f"{sym} is not a started major company")
    if sym in sr.sold.get(player.id, []):
        raise IllegalAction(f"{player.name} sold {sym} this round and may not buy it back (7.4.1)")
    if player.percent_of(sym) + 10 > shares.max_holding(state):
        raise IllegalAction(f"no player may own more than {shares.max_holding(state)}% of {sym}")
    if shares.cert_count(player) >= shares.cert_limit(ctx, state):
        raise IllegalAction(f"{player.name} is at the certificate limit of {shares.cert_limit(ctx, state)}")


def _buy(ctx: Context, state: GameState, sr: StockRound, player: Player, action: BuyShare) -> None:
    sym = action.company
    _check_buy(ctx, state, sr, player, sym)
    company = state.companies[sym]
    source = company.treasury if action.source == "treasury" else state.pool
    if action.source not in ("treasury", "pool"):
        raise IllegalAction("buy from the 'treasury' or the 'pool'")
    cert = (
        next((c for c in source if c.id == action.cert), None)
        if action.cert
        else shares.first_plain(source, sym)
    )
    if cert is None or cert.president or cert.company != sym:
        raise IllegalAction(f"there is no share of {sym} in the {action.source}")
    price = market.price(ctx, state, sym)
    if player.cash < price:
        raise IllegalAction(f"a share of {sym} costs {price}; {player.name} has {player.cash}")
    source.remove(cert)
    player.certs.append(cert)
    player.cash -= price
    if action.source == "treasury":
        company.cash += price
    else:
        state.bank += price
    state.log.append(f"{player.name} buys 10% of {sym} from the {action.source} for {price}")
    line = shares.update_president(state, sym)
    if line:
        state.log.append(line)


# --- minor auctions (7.2) --------------------------------------------------------


def available_minors(ctx: Context, state: GameState) -> list[str]:
    """Minors that may be put up for auction now (7.2; green ones from phase 3; the
    title's first minor before any other, 7.2.1)."""
    if "minors_cannot_start" in state.events:
        return []
    if ctx.title.minors_choose_home and not ctx.title.minor_home_cities(ctx, state):
        return []  # 7.2.1 (1867): no open city left for a minor's home
    first = ctx.title.first_minor
    if first is not None and not state.companies[first].floated and not state.companies[first].closed:
        return [first]
    result = []
    for sym in ctx.board.minors():
        company = state.companies[sym]
        if company.floated or company.closed:
            continue
        if sym in ctx.board.green_minors and "green_minors_available" not in state.events:
            continue
        result.append(sym)
    return result


def _nominate(ctx: Context, state: GameState, sr: StockRound, seat: int, action: Bid) -> None:
    player = state.players[seat]
    sym = action.target
    available = available_minors(ctx, state)
    first = ctx.title.first_minor
    if first is not None and available == [first] and sym != first:
        raise IllegalAction(f"{ctx.board.corporations[first].name} ({first}) must be the first minor auctioned (7.2.1)")
    if sym not in available:
        raise IllegalAction(f"{sym} cannot be auctioned now; available: {', '.join(available) or 'none'}")
    if shares.cert_count(player) >= shares.cert_limit(ctx, state):
        raise IllegalAction(f"{player.name} is at the certificate limit")
    _check_bid_amount(player, action.price, MINOR_MIN_BID)
    n = len(state.players)
    order = [(seat + i) % n for i in range(n)]
    active = [s for s in order if s == seat or _can_bid(ctx, state, state.players[s], action.price + BID_STEP)]
    sr.auction = MinorAuction(sym, seat, action.price, seat, active, seat)
    state.log.append(f"{player.name} puts {sym} up for auction at {action.price}")
    if ctx.title.minors_choose_home:
        # 7.2.1 (1867): the nominating player places the minor's token before bidding goes on.
        sr.home_token, sr.home_player = sym, seat
    else:
        from .tokens import home_city, put_token

        home = home_city(ctx, state, sym)
        if home is not None:
            put_token(ctx, state, sym, *home)
    _auction_next(ctx, state, sr)


def _can_bid(ctx: Context, state: GameState, player: Player, amount: int) -> bool:
    return player.cash >= amount and shares.cert_count(player) < shares.cert_limit(ctx, state)


def _check_bid_amount(player: Player, price: int, lowest: int) -> None:
    if price < lowest:
        raise IllegalAction(f"the lowest bid is {lowest}")
    if price % BID_STEP:
        raise IllegalAction(f"bids are multiples of {BID_STEP}")
    if price > player.cash:
        raise IllegalAction(f"{player.name} has only {player.cash}")


def _auction_action(ctx: Context, state: GameState, sr: StockRound, action: Action) -> None:
    auction = sr.auction
    assert auction is not None
    seat = _seat_of(state, action)
    if seat != auction.turn:
        raise IllegalAction(f"it is {state.players[auction.turn].name}'s turn to bid on {auction.minor}")
    player = state.players[seat]
    if isinstance(action, Bid):
        if action.target != auction.minor:
            raise IllegalAction(f"{auction.minor} is up for auction, not {action.target}")
        _check_bid_amount(player, action.price, auction.high_bid + BID_STEP)
        auction.high_bid = action.price
        auction.high_bidder = seat
        auction.active = [
            s for s in auction.active if s == seat or _can_bid(ctx, state, state.players[s], action.price + BID_STEP)
        ]
    elif isinstance(action, Pass):
        auction.active.remove(seat)
    else:
        raise IllegalAction(f"bid on {auction.minor} or pass")
    _auction_next(ctx, state, sr)


def _auction_next(ctx: Context, state: GameState, sr: StockRound) -> None:
    auction = sr.auction
    assert auction is not None
    if auction.active == [auction.high_bidder]:
        _minor_sold(ctx, state, sr, auction)
        return
    n = len(state.players)
    for i in range(1, n + 1):
        s = (auction.turn + i) % n
        if s in auction.active and s != auction.turn:
            auction.turn = s
            return


def _minor_sold(ctx: Context, state: GameState, sr: StockRound, auction: MinorAuction) -> None:
    """The winner pays the whole bid into the minor's treasury; price = half (7.2)."""
    winner = state.players[auction.high_bidder]
    minor = state.companies[auction.minor]
    winner.cash -= auction.high_bid
    minor.cash += auction.high_bid
    cert = minor.treasury.pop(0)
    winner.certs.append(cert)
    minor.floated = True
    market.place(state, auction.minor, market.minor_start_cell(ctx, auction.high_bid))
    state.log.append(
        f"{winner.name} wins {auction.minor} for {auction.high_bid}; "
        f"its share price is {market.price(ctx, state, auction.minor)}"
    )
    sr.auction = None
    sr.turn = auction.nominator if ctx.rules.plays(LEFT_OF_AUCTIONEER) else auction.high_bidder  # §14
    _end_turn(ctx, state, sr, acted=True)


# --- starting a major (7.4, phase 4+) --------------------------------------------


def _can_par_now(ctx: Context, state: GameState) -> bool:
    return "majors_can_ipo" in state.events and any(
        not state.companies[s].floated for s in ctx.board.majors()
    )


def may_start_a_major(ctx: Context, state: GameState, player: Player) -> bool:
    """7.4: from phase 4, a major starts at a major start price (70 or more, paid twice)
    in a free home city (1861: an unconnected one). RN 4.1: 18xx.games offers it to anyone with twice the
    market's lowest start price (50, a minor's) and does not look for a home."""
    if not _can_par_now(ctx, state):
        return False
    cells = list(ctx.board.market_cells(ctx.rules.market))
    if ctx.rules.major_start_offered_from_lowest_price:
        return player.cash >= 2 * min(c.price for c in cells if c.can_start_major or c.can_start_minor)
    cheapest = min(c.price for c in cells if c.can_start_major)
    return player.cash >= 2 * cheapest and bool(ctx.title.major_home_cities(ctx, state))


def _par(ctx: Context, state: GameState, sr: StockRound, seat: int, action: Par) -> None:
    player = state.players[seat]
    sym = action.company
    company = state.companies.get(sym)
    if company is None or not company.is_major:
        raise IllegalAction(f"{sym} is not a major company")
    if "majors_can_ipo" not in state.events:
        raise IllegalAction("majors can be started in a stock round only from phase 4 (7.4)")
    if company.floated:
        raise IllegalAction(f"{sym} has already started")
    cell = market.major_start_cell(ctx, action.price, exact=True)
    if player.cash < 2 * action.price:
        raise IllegalAction(
            f"starting {sym} at {action.price} costs {2 * action.price}; {player.name} has {player.cash}"
        )
    if shares.cert_count(player) >= shares.cert_limit(ctx, state):
        raise IllegalAction(f"{player.name} is at the certificate limit")
    if not ctx.title.major_home_cities(ctx, state):
        raise IllegalAction("no city is open for a new major's home, so none can start now (7.4)")
    pres = company.treasury.pop(0)
    player.certs.append(pres)
    player.cash -= 2 * action.price
    company.cash += 2 * action.price
    company.floated = True
    market.place(state, sym, cell)
    state.log.append(f"{player.name} starts {sym} at {action.price}")
    sr.home_token = sym
    sr.home_player = seat


def home_cities(ctx: Context, state: GameState) -> list[tuple[str, int]]:
    """Where the company that must place its home token now may put it: a minor just
    nominated (7.2.1, 1867) or a major just started (7.4)."""
    sr = state.round
    if isinstance(sr, StockRound) and sr.home_token is not None and state.companies[sr.home_token].is_minor:
        return ctx.title.minor_home_cities(ctx, state)
    return ctx.title.major_home_cities(ctx, state)


def _home_token(ctx: Context, state: GameState, sr: StockRound, action: Action) -> None:
    if not isinstance(action, PlaceToken) or action.entity != sr.home_token:
        raise IllegalAction(f"{sr.home_token} must first place its home token")
    from .tokens import put_token

    allowed = home_cities(ctx, state)
    if (action.hex, action.city) not in allowed:
        raise IllegalAction(
            f"{sr.home_token}'s home may be: " + (", ".join(f"{h} city {c}" for h, c in allowed) or "nowhere")
        )
    put_token(ctx, state, action.entity, action.hex, action.city)
    minor = state.companies[action.entity].is_minor
    sr.home_token = None
    if minor:
        sr.home_player = None
        if sr.auction is None:
            _skip_players_without_actions(ctx, state, sr)
        return
    sr.turn = sr.home_player if sr.home_player is not None else sr.turn
    sr.home_player = None
    _end_turn(ctx, state, sr, acted=True)


def _starts(ctx: Context, state: GameState, player: Player) -> list[Action]:
    """7.4: the majors the player may start now, at each start price they can pay."""
    if not _can_par_now(ctx, state) or shares.cert_count(player) >= shares.cert_limit(ctx, state):
        return []
    if not ctx.title.major_home_cities(ctx, state):
        return []
    prices = sorted({c.price for c in ctx.board.market_cells(ctx.rules.market) if c.can_start_major})
    majors = [s for s in ctx.board.majors() if not state.companies[s].floated]
    return [Par(player.id, sym, price) for sym in majors for price in prices if 2 * price <= player.cash]
