"""The starting bundles of the 1861 short variant (rulebook 15.1; 16.3 for two players).

Instead of the private auction, the first stock round sells one bundle of privates and
minors to each player. Starting with the priority deal, a player without a bundle must
nominate one and bid at least the minimum; the others without a bundle raise in fives
or pass (a pass is final for that bundle). The winner pays the bank, the bank fills
each minor's treasury (its price is half of it, rounded down to a start price) and
hands over any bonus cash; the player left of the winner nominates next. A player with
a bundle takes no further part in the round. When everyone has one, the operating
rounds begin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine import market
from engine.actions import Action, Bid, Pass
from engine.errors import IllegalAction
from engine.rounds import AuctionView, Round, TurnView
from engine.state import Context, GameState

BID_STEP = 5
TWO_PLAYER_BUNDLES = 3
"""16.3.1: two players use the 3-player game's bundles."""


@dataclass
class BundleRound(Round):
    """The bundle round's progress: whose turn, the bundle up for auction and its bids."""

    kind: ClassVar[str] = "Bundles"
    opens_operating_rounds: ClassVar[bool] = True  # it is the first stock round (15.1)
    bids_up_to_cash: ClassVar[bool] = True
    minor_auctions_open: ClassVar[bool] = False  # 15.1: the bundles' minors are sold in them
    turn: int = 0  # seat to act
    bundle: str | None = None  # the bundle up for auction ("1", "2", ...)
    nominator: int = 0
    high_bid: int = 0
    high_bidder: int = 0
    active: list[int] = field(default_factory=list)  # seats still bidding on it
    unsold: list[str] = field(default_factory=list)
    holders: list[int] = field(default_factory=list)  # seats that have a bundle

    def actor(self, ctx: Context, state: GameState) -> str:
        return state.players[self.turn].id

    def private_note(self, ctx: Context, state: GameState, private: str) -> str | None:
        """15.1: "in bundle 2", and "(up for auction)" while it is."""
        held = bundle_of(ctx, state, private)
        if held is None:
            return None
        return f"in bundle {held}" + (" (up for auction)" if held == self.bundle else "")

    def moves(self, ctx: Context, state: GameState) -> list[Action]:
        """The nominations at the minimum bid, or the lowest raise and a pass."""
        player = state.players[self.turn]
        if self.bundle is None:
            return [Bid(player.id, name, minimum_bid(ctx, state)) for name in self.unsold]
        lowest = self.high_bid + BID_STEP
        raise_: list[Action] = [Bid(player.id, self.bundle, lowest)] if player.cash >= lowest else []
        return raise_ + [Pass(player.id)]

    def apply(self, ctx: Context, state: GameState, action: Action) -> None:
        """A nomination, a raise or a pass."""
        seat = state.player_index(action.entity)
        if seat != self.turn:
            raise IllegalAction(f"it is {state.players[self.turn].name}'s turn")
        if self.bundle is None:
            if not isinstance(action, Bid):
                raise IllegalAction("a player without a bundle must nominate one and bid (15.1): "
                                    f"`bid BUNDLE {minimum_bid(ctx, state)}`, bundles {', '.join(self.unsold)}")
            _nominate(ctx, state, self, seat, action)
        elif isinstance(action, Bid):
            _raise(ctx, state, self, seat, action)
        elif isinstance(action, Pass):
            self.active.remove(seat)
            state.log.append(f"{state.players[seat].name} passes on bundle {self.bundle}")
            _next_bidder(ctx, state, self, seat)
        else:
            raise IllegalAction(f"bundle {self.bundle} is up for auction: bid or pass")

    def heading(self, state: GameState) -> str:
        return f"Stock round {state.round_number}: starting bundles"

    def view(self, ctx: Context, state: GameState, actor: str) -> TurnView:
        if self.bundle is None:
            offered = " · ".join(describe(ctx, state, name) for name in self.unsold)
            return TurnView(self.heading(state), self.kind, f"nominates a bundle (15.1): {offered}", actor)
        auction = AuctionView("bundle", self.bundle, self.high_bid, state.players[self.high_bidder].id,
                              self.high_bid + BID_STEP)
        return TurnView(self.heading(state), self.kind, f"bids on bundle {self.bundle}", actor, auction=auction)


def bundle_set(ctx: Context, players: int) -> dict[str, Any]:
    """The minimum bid and the bundles for this many players (15.1.1–15.1.3, 16.3.1)."""
    data = ctx.title.data("bundles.json")
    key = str(TWO_PLAYER_BUNDLES if players == 2 else players)
    if key not in data:
        raise IllegalAction("starting bundles (15.1) are for 3 to 5 players, or two in 1861S (16.3)")
    chosen: dict[str, Any] = data[key]
    return chosen


def bundle(ctx: Context, state: GameState, name: str) -> dict[str, Any]:
    """Bundle ``name`` ("1" for Bundle 1) of this game."""
    bundles = bundle_set(ctx, len(state.players))["bundles"]
    if not name.isdigit() or not 1 <= int(name) <= len(bundles):
        raise IllegalAction(f"there is no bundle {name}; the bundles are 1 to {len(bundles)}")
    chosen: dict[str, Any] = bundles[int(name) - 1]
    return chosen


def minimum_bid(ctx: Context, state: GameState) -> int:
    return int(bundle_set(ctx, len(state.players))["minimum_bid"])


def start(ctx: Context, state: GameState) -> None:
    """15.1: the first stock round sells the bundles, from the priority deal."""
    count = len(bundle_set(ctx, len(state.players))["bundles"])
    state.round = BundleRound(turn=state.priority, unsold=[str(i) for i in range(1, count + 1)])
    state.log.append(f"Stock round {state.round_number}: the starting bundles (15.1)")


def describe(ctx: Context, state: GameState, name: str) -> str:
    """``Bundle 1: TSR, WVR, N (165), KB (100), bonus 10``."""
    data = bundle(ctx, state, name)
    parts = [*data["privates"], *(f"{sym} ({cash})" for sym, cash in data["minors"].items())]
    if data["cash"]:
        parts.append(f"bonus {data['cash']}")
    return f"Bundle {name}: " + ", ".join(parts)


def bundle_of(ctx: Context, state: GameState, private: str) -> str | None:
    """The unsold bundle that holds ``private``, during the bundle round."""
    rnd = state.round
    if not isinstance(rnd, BundleRound):
        return None
    return next((name for name in rnd.unsold if private in bundle(ctx, state, name)["privates"]), None)


def _check_bid(ctx: Context, state: GameState, seat: int, price: int, lowest: int) -> None:
    if price < lowest:
        raise IllegalAction(f"the lowest bid is {lowest}")
    if price % BID_STEP:
        raise IllegalAction(f"bids are in multiples of {BID_STEP}")
    player = state.players[seat]
    if price > player.cash:
        raise IllegalAction(f"{player.name} has only {player.cash} (a bundle's bonus cash cannot be bid, 15.1)")


def _nominate(ctx: Context, state: GameState, rnd: BundleRound, seat: int, action: Bid) -> None:
    name = action.target
    bundle(ctx, state, name)
    if name not in rnd.unsold:
        raise IllegalAction(f"bundle {name} is sold; the bundles left are {', '.join(rnd.unsold)}")
    _check_bid(ctx, state, seat, action.price, minimum_bid(ctx, state))
    n = len(state.players)
    rnd.bundle, rnd.nominator, rnd.high_bid, rnd.high_bidder = name, seat, action.price, seat
    rnd.active = [s for s in ((seat + i) % n for i in range(n)) if s not in rnd.holders]
    state.log.append(f"{state.players[seat].name} nominates {describe(ctx, state, name)} for {action.price}")
    _next_bidder(ctx, state, rnd, seat)


def _raise(ctx: Context, state: GameState, rnd: BundleRound, seat: int, action: Bid) -> None:
    if action.target != rnd.bundle:
        raise IllegalAction(f"bundle {rnd.bundle} is up for auction")
    _check_bid(ctx, state, seat, action.price, rnd.high_bid + BID_STEP)
    rnd.high_bid, rnd.high_bidder = action.price, seat
    state.log.append(f"{state.players[seat].name} bids {action.price} on bundle {rnd.bundle}")
    _next_bidder(ctx, state, rnd, seat)


def _next_bidder(ctx: Context, state: GameState, rnd: BundleRound, seat: int) -> None:
    """The next seat still bidding; the last one left wins."""
    if rnd.active == [rnd.high_bidder]:
        _sell(ctx, state, rnd)
        return
    n = len(state.players)
    rnd.turn = next(s for s in ((seat + i) % n for i in range(1, n + 1)) if s in rnd.active)


def _sell(ctx: Context, state: GameState, rnd: BundleRound) -> None:
    """15.1: the winner pays the bank; the bank fills the minors' treasuries (price half of
    it) and pays the bonus cash; the player left of the winner nominates next."""
    assert rnd.bundle is not None
    seat, name = rnd.high_bidder, rnd.bundle
    player, data = state.players[seat], bundle(ctx, state, rnd.bundle)
    player.cash -= rnd.high_bid
    state.bank += rnd.high_bid
    for private in data["privates"]:
        player.privates.append(private)
        state.private_owner[private] = player.id
    for sym, treasury in data["minors"].items():
        minor = state.companies[sym]
        minor.cash += treasury
        state.bank -= treasury
        player.certs.append(minor.treasury.pop(0))
        minor.floated = True
        market.place(state, sym, market.minor_start_cell(ctx, treasury))
    player.cash += data["cash"]
    state.bank -= data["cash"]
    state.log.append(f"{player.name} buys bundle {name} for {rnd.high_bid}")
    rnd.unsold.remove(name)
    rnd.holders.append(seat)
    rnd.bundle = None
    n = len(state.players)
    waiting = [s for s in ((seat + i) % n for i in range(1, n + 1)) if s not in rnd.holders]
    if waiting and rnd.unsold:
        rnd.turn = waiting[0]
        return
    _finish(ctx, state, rnd, seat)


def _finish(ctx: Context, state: GameState, rnd: BundleRound, last_winner: int) -> None:
    """Everyone has a bundle: 16.3.2's unbought bundle leaves its minors for later stock
    rounds and its privates out of play; the player left of the last winner has the
    priority deal; the round is over."""
    for name in rnd.unsold:
        for private in bundle(ctx, state, name)["privates"]:
            del state.private_owner[private]
            state.log.append(f"{private} is removed: its bundle was not bought (16.3.2)")
    state.priority = (last_winner + 1) % len(state.players)
    rnd.over = True
