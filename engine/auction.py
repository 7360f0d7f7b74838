"""The private company auction (rulebook 5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .actions import Action, Bid, Pass
from .errors import IllegalAction
from .options import LEFT_OF_AUCTIONEER
from .rounds import AuctionView, Round, TurnView
from .state import Context, GameState

BID_STEP = 5


@dataclass
class AuctionRound(Round):
    """Auction of the privates, one at a time in ascending face value."""

    kind: ClassVar[str] = "Auction"
    bids_up_to_cash: ClassVar[bool] = True
    private: str = ""
    opener: int = 0  # seat of the player who had the first opportunity
    minimum: int = 0  # current minimum opening bid
    high_bid: int = 0
    high_bidder: int | None = None
    active: list[int] = field(default_factory=list)  # seats still in, in turn order
    turn: int = 0  # seat to act
    declined: list[int] = field(default_factory=list)  # passed before any bid
    reduced: bool = False  # the minimum has dropped since nobody opened

    def actor(self, ctx: Context, state: GameState) -> str:
        return state.players[self.turn].id

    def lowest_bid(self) -> int:
        """The minimum opening bid, or a raise of 5 on the high bid (5.1)."""
        return self.minimum if self.high_bidder is None else self.high_bid + BID_STEP

    def moves(self, ctx: Context, state: GameState) -> list[Action]:
        """A bid at the lowest amount allowed, and a pass."""
        player = state.players[self.turn]
        lowest = self.lowest_bid()
        bid: list[Action] = [Bid(player.id, self.private, lowest)] if player.cash >= lowest else []
        return bid + [Pass(player.id)]

    def apply(self, ctx: Context, state: GameState, action: Action) -> None:
        """A bid or a pass in the private auction."""
        seat = state.player_index(action.entity)
        if seat != self.turn:
            raise IllegalAction(f"it is {state.players[self.turn].name}'s turn to bid on {self.private}")
        if isinstance(action, Bid):
            _bid(ctx, state, self, seat, action)
        elif isinstance(action, Pass):
            _pass(ctx, state, self, seat)
        else:
            raise IllegalAction(f"during the private auction you may only bid or pass (not {action.kind})")

    def heading(self, state: GameState) -> str:
        return "Private auction"

    def view(self, ctx: Context, state: GameState, actor: str) -> TurnView:
        bidder = None if self.high_bidder is None else state.players[self.high_bidder].id
        auction = AuctionView("private", self.private, self.high_bid, bidder, self.lowest_bid())
        return TurnView(self.heading(state), self.kind, f"bids on {self.private}", actor, auction=auction)


def start(ctx: Context, state: GameState) -> AuctionRound:
    """Begin the auction with the cheapest private, opened by the priority player."""
    auction = AuctionRound()
    state.round = auction
    _offer(ctx, state, auction, _next_private(ctx, state), state.priority)
    return auction


def _next_private(ctx: Context, state: GameState) -> str | None:
    unsold = [p for p in ctx.board.privates if p.sym in state.private_owner and state.private_owner[p.sym] is None]
    unsold.sort(key=lambda p: p.value)
    return unsold[0].sym if unsold else None


def _offer(ctx: Context, state: GameState, auction: AuctionRound, private: str | None, opener: int) -> None:
    if private is None:
        return
    auction.private = private
    auction.opener = opener
    auction.minimum = ctx.board.private(private).min_bid
    auction.reduced = False
    _open_bidding(state, auction)
    if not auction.active:
        _reduce_price(ctx, state, auction)


def _open_bidding(state: GameState, auction: AuctionRound) -> None:
    n = len(state.players)
    order = [(auction.opener + i) % n for i in range(n)]
    auction.active = [s for s in order if state.players[s].cash >= auction.minimum]
    auction.high_bid = 0
    auction.high_bidder = None
    auction.declined = []
    auction.turn = auction.active[0] if auction.active else auction.opener


def _bid(ctx: Context, state: GameState, auction: AuctionRound, seat: int, action: Bid) -> None:
    if action.target != auction.private:
        raise IllegalAction(f"{auction.private} is up for auction, not {action.target}")
    player = state.players[seat]
    lowest = auction.minimum if auction.high_bidder is None else auction.high_bid + BID_STEP
    if action.price < lowest:
        raise IllegalAction(f"the lowest bid on {auction.private} is {lowest}")
    if action.price % BID_STEP:
        raise IllegalAction(f"bids are multiples of {BID_STEP}")
    if action.price > player.cash:
        raise IllegalAction(f"{player.name} has only {player.cash}")
    if auction.reduced and ctx.rules.auction_reduced_price_first_taker:
        _sell(ctx, state, auction, seat, action.price)
        return
    auction.high_bid = action.price
    auction.high_bidder = seat
    if seat in auction.declined:
        auction.declined.remove(seat)
    # Anyone who cannot raise drops out (RULES-NOTES 3).
    auction.active = [s for s in auction.active if s == seat or state.players[s].cash >= action.price + BID_STEP]
    _next_turn(ctx, state, auction, seat)


def _pass(ctx: Context, state: GameState, auction: AuctionRound, seat: int) -> None:
    nobody_bid = auction.high_bidder is None and not (auction.reduced and ctx.rules.auction_reduced_price_first_taker)
    if nobody_bid and ctx.rules.auction_decliner_may_bid:
        auction.declined.append(seat)
        if len(auction.declined) == len(auction.active):
            _reduce_price(ctx, state, auction)
            return
        _next_turn(ctx, state, auction, seat)
        return
    # A pass is final for this private (rulebook 5.2).
    following = _following(state, auction, seat)
    auction.active.remove(seat)
    if auction.high_bidder is None and not auction.active:
        _reduce_price(ctx, state, auction)
        return
    if auction.high_bidder is not None and auction.active == [auction.high_bidder]:
        _sell(ctx, state, auction, auction.high_bidder, auction.high_bid)
        return
    auction.turn = following


def _following(state: GameState, auction: AuctionRound, seat: int) -> int:
    """The next seat after ``seat`` (clockwise) that is still in the auction."""
    n = len(state.players)
    for i in range(1, n + 1):
        s = (seat + i) % n
        if s in auction.active and s != seat:
            return s
    return seat


def _next_turn(ctx: Context, state: GameState, auction: AuctionRound, seat: int) -> None:
    if auction.high_bidder is not None and auction.active == [auction.high_bidder]:
        _sell(ctx, state, auction, auction.high_bidder, auction.high_bid)
        return
    auction.turn = _following(state, auction, seat)


def _reduce_price(ctx: Context, state: GameState, auction: AuctionRound) -> None:
    """Nobody opened: the minimum drops by 5; at 0 the first player gets it free (5 note)."""
    auction.minimum -= BID_STEP
    state.log.append(f"Nobody bid on {auction.private}; its minimum drops to {auction.minimum}")
    if auction.minimum <= 0:
        _sell(ctx, state, auction, auction.opener, 0)
        return
    auction.reduced = True
    _open_bidding(state, auction)
    if not auction.active:
        _reduce_price(ctx, state, auction)


def _proposer(ctx: Context, auction: AuctionRound, winner: int) -> int:
    """5.2: the player left of the winner goes next; with §14's left of auctioneer, the
    player left of the one who had the first opportunity to bid (who proposed it)."""
    return auction.opener if ctx.rules.plays(LEFT_OF_AUCTIONEER) else winner


def _sell(ctx: Context, state: GameState, auction: AuctionRound, seat: int, price: int) -> None:
    """The winner pays the bank; the player to their left opens the next auction (5.2)."""
    player = state.players[seat]
    player.cash -= price
    state.bank += price
    player.privates.append(auction.private)
    state.private_owner[auction.private] = player.id
    state.log.append(f"{player.name} buys {auction.private} for {price}")
    after = (_proposer(ctx, auction, seat) + 1) % len(state.players)
    nxt = _next_private(ctx, state)
    if nxt is None:
        state.priority = after  # 5.3: left of the last winner has priority
        auction.over = True
        return
    _offer(ctx, state, auction, nxt, after)
