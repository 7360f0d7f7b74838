"""What every round of the game is (rulebook 6): the private auction (5), the
starting bundles (15.1), stock rounds (7), operating rounds (8) and merger rounds (9).

A round is plain data (it is pickled with the state) behind one small protocol: who
acts, the legal moves, applying one, how the table shows it. It knows only its own
rules: when it is over it says so (:attr:`Round.over`) and the title's sequence of
rounds (:mod:`engine.sequence`) starts the next one, so no round imports another.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, NamedTuple

if TYPE_CHECKING:

    from .actions import Action
    from .state import Context, GameState

class AuctionView(NamedTuple):
    """What is up for auction now (5.1 a private, 7.2 a minor, 15.1 a bundle)."""

    what: str  # "private" (5.1), "minor" (7.2) or "bundle" (15.1)
    item: str
    high_bid: int  # 0 before the first bid
    high_bidder: str | None  # player id
    minimum: int  # the lowest bid a player may make now


class TrackView(NamedTuple):
    """A company laying track (8.6): what it has done this turn."""

    lays: tuple[str, ...]  # hexes laid or upgraded this turn
    upgraded: bool  # one of them was an upgrade (a second action then lays yellow only)
    next_lay_cost: int  # what the next lay costs the company: a second lay costs extra (8.6)


class TurnView(NamedTuple):
    """The round and what the actor is doing now, in words and flags: the one public
    view of a round for the console, Discord and pictures (:func:`engine.view.turn_view`)."""

    round_title: str  # "Stock round 3", "Operating round 3.1", "Game over"...
    round_kind: str  # "Auction", "Stock", "Operating", "Merger", "Finished"
    doing: str  # "lays track", "bids on TSR", ...
    actor: str | None  # player id or company symbol
    auction: AuctionView | None = None  # the auction under way
    placing_token: bool = False  # a home token or an operating-round token
    track: TrackView | None = None  # set while a company lays track
    operating: bool = False  # an operating round: companies act (8)
    minor_auctions_open: bool = True  # minors may be put up for auction (7.2; not in 15.1)
    private_notes: tuple[tuple[str, str], ...] = ()  # (private, what the round says of it)

    @property
    def up_for_auction(self) -> str | None:
        """The private, minor or bundle being auctioned."""
        return self.auction.item if self.auction else None

    @property
    def laying_track(self) -> bool:
        return self.track is not None


@dataclass
class Round(ABC):
    """The state of the round in progress, and its rules."""

    kind: ClassVar[str]
    """``Auction``, ``Stock``, ``Operating``, ``Merger`` (and a title's own, ``Bundles``)."""
    companies_operate: ClassVar[bool] = False
    """Companies act in it, each in its turn (8: an operating round)."""

    opens_operating_rounds: ClassVar[bool] = False
    """A set's operating rounds follow it (7.6: a stock round)."""
    bids_up_to_cash: ClassVar[bool] = False
    """An auction of the round's own, where a bid may be anything up to the bidder's cash
    (5.1: the privates; 15.1: the bundles), so its hint shows the range."""
    over: bool = field(default=False, compare=False, repr=False, kw_only=True)
    """Its last action is done: the sequence starts the next round (never stored at rest)."""

    @abstractmethod
    def actor(self, ctx: Context, state: GameState) -> str:
        """The player id or company symbol that must act now."""

    @abstractmethod
    def moves(self, ctx: Context, state: GameState) -> list[Action]:
        """Every action open to the actor now, by the rules that judge them (amounts at
        their lowest): this round's part of :func:`engine.legal.legal_actions`."""

    @abstractmethod
    def apply(self, ctx: Context, state: GameState, action: Action) -> None:
        """Apply one action, or raise an :class:`~engine.errors.IllegalAction` that says
        what was wrong and what is allowed."""

    @abstractmethod
    def heading(self, state: GameState) -> str:
        """The round as the table names it: ``Stock round 3``, ``Operating round 3.1``."""

    @abstractmethod
    def view(self, ctx: Context, state: GameState, actor: str) -> TurnView:
        """What the table shows of the round now (:func:`engine.view.turn_view`)."""

    minor_auctions_open: ClassVar[bool] = True
    """Minors may be put up for auction while it runs (7.2; not while 15.1's bundles sell)."""

    def private_note(self, ctx: Context, state: GameState, private: str) -> str | None:
        """What the round says of ``private`` on the table (15.1: the bundle holding
        it), or None."""
        return None

    def decider(self, state: GameState, company: str) -> str | None:
        """The player who decides for ``company`` while it has no president (its home
        token's placer, the merge's proposer), or None."""
        return None

    def operating_rounds_done(self) -> int:
        """The set's operating rounds played or under way: an operating round's number,
        the one a merger round follows (0 before the set's first)."""
        return 0

    def bank_breaks_end(self, state: GameState) -> tuple[int, int]:
        """12.1: the operating round (set, number) that ends the game if the bank breaks
        now: this one in an operating round, else the next one."""
        return (state.round_number, 1)


def say_who_cannot_bid(state: GameState, seats: list[int], amount: int) -> None:
    """Log the players an auction leaves out from now on because they cannot bid
    ``amount`` (their cash too little, else at the certificate limit), so nobody's turn
    is passed over without a word: ``Boris (130) and Clara (115) cannot bid 145``."""
    if not seats:
        return
    players = [state.players[s] for s in seats]
    who = [f"{p.name} ({p.cash})" if p.cash < amount else f"{p.name} (at the certificate limit)" for p in players]
    listed = who[0] if len(who) == 1 else ", ".join(who[:-1]) + f" and {who[-1]}"
    state.log.append(f"{listed} cannot bid {amount}: out of this auction")

