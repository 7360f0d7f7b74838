"""A player's turn: actions, consent to a deal (`agree`, `refuse`, `withdraw`), and
`undo` / `redo`."""

from __future__ import annotations

import asyncio
from typing import Any

from engine import (
    Action,
    EngineError,
    Game,
    LayTile,
    PlaceToken,
    RemoveToken,
    StandingOrder,
    action_from_dict,
    command,
    consent_needed,
    turn_view,
)
from storage import ChannelBusy, Event, EventKind, GameRecord, GameStatus, Seat, UndoError
from storage.repository import effective_events, undos_to_redo

from .archive import archived_note
from .clock import COMPUTER_MOVED, ORDER_MOVED, ORDERS_ONLY, TIMED_OUT
from .commands import ACTION_VERBS, VERBS, Parsed
from .core import Account, Core, Feature, Reply, code_span, handles, notes, proxy_note, seat_of, sentence
from .delivery import Delivery
from .errors import NotAllowed, Refusal
from .ledger import Ledger
from .posts import (
    changed_pictures,
    choices_text,
    doing,
    event_command,
    fingerprints,
    next_line,
    player_name,
    routes_payload,
    seat_name,
    who_acts,
)
from .stats import stats_text
from .stray import LastMove, questioned_pass


class Turns(Feature):
    """The players' commands: actions, deals and undo."""

    def __init__(self, core: Core, delivery: Delivery) -> None:
        super().__init__(core)
        self.delivery = delivery
        self._questioned: dict[int, int] = {}
        """Per game, the position at which a bare `pass` was last questioned (:mod:`bot.stray`)."""
        self._pictured: dict[int, tuple[int, dict[str, int]]] = {}
        """Per game, the event its last action was stored as and the pictures' fingerprints
        after it: the next action's "before", if nothing came between."""

    async def as_seat(
        self, record: GameRecord, seat: Seat, verb: str, rest: str, proxy: Seat | None
    ) -> Reply:
        """Run a player's command (turn or action) for ``seat``; ``proxy`` is the
        commissioner entering it for them."""
        if record.status is not GameStatus.RUNNING:
            raise Refusal("The game has not started yet: `join`, then the commissioner types `start`.")
        if record.archived_at is not None and verb != "unarchive":
            raise Refusal(archived_note(record))
        kind = VERBS[verb].kind
        if kind == "turn":
            return await self.core.handlers[verb](record, seat, rest, proxy)
        if kind != "action":
            raise Refusal(f"`{verb}` cannot be done for another player.")
        return await self.core.handlers[verb](record, seat, verb, rest, proxy)

    async def check_still_open(self, record: GameRecord, game_id: int, seq: int) -> None:
        """Refuse a choice offered after event ``seq`` of game ``game_id`` if the
        channel's game (``record``) is another one now, or has moved since: a move, an
        undo or redo, or a new request for consent."""
        if record.id != game_id:
            raise Refusal(f"This choice has passed: it was offered in game {game_id}, which is over.")
        if record.status is not GameStatus.RUNNING:
            return
        ledger = await self.core.ledger(record.id)
        if ledger.position > seq or (ledger.ask is not None and ledger.ask.seq > seq):
            game = (await self.repo.load(record.id)).game
            raise Refusal(f"This choice has passed: the game has moved on since that post. Now {next_line(game)}")

    async def company_called(self, record: GameRecord) -> str:
        """The company acting now ("" when a player acts for themself)."""
        game = (await self.repo.load(record.id)).game
        actor = game.actor() or ""
        return actor if actor in game.state.companies else ""

    async def reopen_if_ended(self, channel_id: str, account: Account) -> bool:
        """The commissioner's `undo` right after `end`: the game runs again, so the undo
        can take the end back; whether it was reopened."""
        if await self.store.active_game_in_channel(channel_id) is not None:
            return False
        over = [g for g in await self.store.list_games([GameStatus.FINISHED]) if g.channel_id == channel_id]
        if not over:
            return False
        effective = effective_events(await self.store.events(over[-1].id))
        if not effective or effective[-1].action.get("type") != "end_game":
            return False
        self.core.commissioner(over[-1], account)
        try:
            await self.store.set_status(over[-1].id, GameStatus.RUNNING)
        except ChannelBusy:
            raise Refusal("Another game has started here since; the ended one stays ended.") from None
        return True

    async def undo_the_end(self, channel_id: str, account: Account, reason: str) -> Reply:
        """The undo of a reopened game's `end`; refused, the game is finished again (N10)."""
        record = await self.core.channel_game(channel_id)
        try:
            return await self.as_seat(record, self.core.seat(record, account), "undo", reason, None)
        except BaseException:
            await self.store.set_status(record.id, GameStatus.FINISHED)
            raise

    @handles(*ACTION_VERBS)
    async def act(self, record: GameRecord, seat: Seat, verb: str, rest: str, proxy: Seat | None) -> Reply:
        """An action verb for ``seat``: read by the verb's reader, asked of the other side
        first if it is their decision too, else applied."""
        live = await self.repo.load(record.id)
        game = live.game
        ledger = await self.core.ledger(record.id, live.seq)
        self.core.check_open(game, ledger)
        entry = VERBS[verb]
        if entry.any_time:  # a standing order: any seated player, at any time
            parsed = entry.reader(game, seat.player_id, verb, rest)
            await self.apply(record, live.seq, game, seat, parsed, f"{verb} {rest}".strip(), proxy_note(proxy))
            return Reply()
        if ledger.ask is not None and ledger.ask.requester != seat.player_id:
            ask = ledger.ask
            raise NotAllowed(f"Waiting for {player_name(game, ask.consenter)} to `agree` or `refuse` "
                             f"{code_span(ask.command)}; {player_name(game, ask.requester)} may `withdraw` it.")
        if game.acting_player() != seat.player_id:
            raise NotAllowed(f"Not your turn: {who_acts(game)} {doing(game)} "
                             f"(may {choices_text(game)}).")
        command = f"{verb} {rest}".strip()
        if verb == "pass" and not rest.strip():  # `pass COMPANY` is addressed: never questioned
            await self._question_pass(record, live.seq, game, seat)
        try:  # in a worker thread: `run best` solves the routes
            parsed = await asyncio.to_thread(entry.reader, game, seat.player_id, verb, rest)
        except Refusal as exc:
            raise Refusal(f"{sentence(str(exc))} You may: {choices_text(game)}") from None
        command = _as_written(game, parsed.action, command)
        consenter = consent_needed(game, parsed.action)
        if consenter is not None:
            _try(game, parsed.action)
            return await self._ask(record, live.seq, seat, consenter, parsed, command, proxy)
        await self.apply(record, live.seq, game, seat, parsed, command, proxy_note(proxy))
        return Reply()

    async def _question_pass(self, record: GameRecord, seq: int, game: Game, seat: Seat) -> None:
        """Refuse, once at this position, a bare `pass` that may be meant for a turn
        which has just ended by itself (:mod:`bot.stray`)."""
        if self._questioned.get(record.id) == seq or not turn_view(game).operating:
            return
        moves = [e for e in effective_events(await self.store.events(record.id)) if e.kind is EventKind.ACTION]
        last = LastMove(str(moves[-1].action.get("type")), str(moves[-1].action.get("entity")), moves[-1].actor) \
            if moves else None
        question = questioned_pass(game, last, seat.player_id)
        if question is not None:
            self._questioned[record.id] = seq
            raise Refusal(question)

    async def apply(
        self, record: GameRecord, seq: int, game: Game, seat: Seat, parsed: Parsed, command: str, note: str | None,
        *, reason: str = "",
    ) -> None:
        """Apply an action for ``seat`` and queue its post, in one transaction; the
        player's ``reason`` is logged before the note and shown in a code span."""
        known = self._pictured.get(record.id)
        before = known[1] if known is not None and known[0] == seq else fingerprints(game)
        acting_before = game.acting_player()
        after_prints: dict[str, int] = {}
        shown = notes(code_span(reason), note)
        note = notes(reason.strip(), note)
        entity = parsed.action.entity
        ran = routes_payload(game, parsed.action, parsed.routes)  # priced on the state before the run

        def posts(after: Game, lines: list[str]) -> list[dict[str, Any]]:
            head = f"**{seat.display_name}**" + (f" for {entity}" if entity != seat.player_id else "")
            text = "\n".join([f"{head}: {code_span(command)}" + (f" _({shown})_" if shown else ""),
                              *([parsed.detail] if parsed.detail else []), *map(_marked, lines)])
            after_prints.update(fingerprints(after))
            pictures = changed_pictures(before, after_prints) + (["routes"] if ran else [])
            return [{
                "kind": "turn", "seq": seq + 1, "text": text, "next": next_line(after),
                "mention": _turn_changed(after, acting_before),
                "pictures": pictures, "highlight": _hex_of(parsed), **({"routes": ran} if ran else {}),
            }]

        def status(after: Game) -> GameStatus | None:
            return GameStatus.FINISHED if after.state.finished else None

        def noted(after: Game) -> str | None:  # a standing order that moved at once made a decision (bot.clock)
            return notes(note, ORDER_MOVED) if isinstance(parsed.action, StandingOrder) and after.carried_out \
                else note

        try:
            done = await self.repo.act(record.id, seq, parsed.action, seat.player_id,
                                       note=noted, outbox=posts, status=status)
        except EngineError as exc:
            raise Refusal(f"{sentence(str(exc))} {who_acts(game)} may: {choices_text(game)}") from None
        self.delivery.keep_drawn(record.id, done.live.seq, done.live.saved)
        self._pictured[record.id] = (done.live.seq, after_prints)
        if done.live.game.state.finished:
            await self._post_stats(record, done.live.seq)

    async def _post_stats(self, record: GameRecord, seq: int) -> None:
        """The game's end post is followed by its time at the table (`stats`)."""
        text = stats_text(record, await self.store.events(record.id), self.core.clock(), None)
        await self.store.outbox_add(record.id, {"kind": "note", "seq": seq, "text": text, "next": ""})

    async def _ask(
        self, record: GameRecord, seq: int, seat: Seat, consenter: str, parsed: Parsed, command: str,
        proxy: Seat | None,
    ) -> Reply:
        """Store a request for ``consenter``'s agreement and ask them in the channel."""
        ask = {"type": "ask", "consenter": consenter, "action": parsed.action.to_dict(), "command": command}
        other = seat_of(record, consenter).display_name
        post = {
            "kind": "ask", "seq": seq + 1,
            "text": f"**{seat.display_name}** for {parsed.action.entity} asks **{other}** to agree: "
                    f"{code_span(command)}",
            "next": "`agree` or `refuse`?", "mention": consenter,
        }
        await self.repo.record_admin(record.id, seq, ask, seat.player_id, note=proxy_note(proxy), outbox=[post])
        return Reply()

    @handles("agree")
    async def agree(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        ledger = await self.core.ledger(record.id)
        ask = self._open_ask(ledger, seat)
        live = await self.repo.load(record.id)
        self.core.check_open(live.game, ledger)
        requester = seat_of(record, ask.requester)
        note = f"agreed by {seat.display_name}" + (f", {proxy_note(proxy)}" if proxy else "")
        await self.apply(record, live.seq, live.game, requester, Parsed(action_from_dict(ask.action)),
                          ask.command, note)
        return Reply()

    @handles("refuse")
    async def refuse(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        ledger = await self.core.ledger(record.id)
        ask = self._open_ask(ledger, seat)
        live = await self.repo.load(record.id)
        post = {
            "kind": "note", "seq": live.seq + 1, "text": f"**{seat.display_name}** refuses {code_span(ask.command)}.",
            "next": next_line(live.game), "mention": ask.requester,
        }
        await self.repo.record_admin(record.id, live.seq, {"type": "answer", "answer": "refused"},
                                     seat.player_id, note=proxy_note(proxy), outbox=[post])
        return Reply()

    @handles("withdraw")
    async def withdraw(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        ledger = await self.core.ledger(record.id)
        ask = ledger.ask
        if ask is None:
            raise Refusal("Nobody is waiting for an answer.")
        if ask.requester != seat.player_id and proxy is None:
            raise NotAllowed(f"Only {seat_name(record, ask.requester)}, who asked, may withdraw "
                             f"{code_span(ask.command)}.")
        live = await self.repo.load(record.id)
        post = {"kind": "note", "seq": live.seq + 1,
                "text": f"**{seat.display_name}** withdraws {code_span(ask.command)}.", "next": next_line(live.game)}
        await self.repo.record_admin(record.id, live.seq, {"type": "answer", "answer": "withdrawn"},
                                     seat.player_id, note=proxy_note(proxy), outbox=[post])
        return Reply()

    @staticmethod
    def _open_ask(ledger: Ledger, seat: Seat) -> Any:
        if ledger.ask is None:
            raise Refusal("Nobody is waiting for an answer.")
        if ledger.ask.consenter != seat.player_id:
            raise NotAllowed("The open request is not addressed to you.")
        return ledger.ask

    @handles("undo")
    async def undo(self, record: GameRecord, seat: Seat, reason: str, proxy: Seat | None) -> Reply:
        self.core.check_paused(await self.core.ledger(record.id))
        events = await self.store.events(record.id)
        effective = effective_events(events)
        if not effective:
            raise Refusal("There is nothing to undo.")
        last = effective[-1]
        self._check_travel(record, seat, last.actor, reason, proxy, "take back")
        _check_not_made_for(last, seat, proxy)
        line = f"↶ **{seat.display_name}** takes back #{len(effective)} " \
               f"({seat_name(record, last.actor)}: `{event_command(record, last)}`)"
        return await self._travel(record, seat, reason, proxy, line, undo=True,
                                  orders_of=last.action if last.kind is EventKind.ACTION else None,
                                  clock_note=ORDERS_ONLY if _order_alone(last) else None)

    @handles("redo")
    async def redo(self, record: GameRecord, seat: Seat, reason: str, proxy: Seat | None) -> Reply:
        self.core.check_paused(await self.core.ledger(record.id))
        stored = await self.store.events(record.id)
        undos = undos_to_redo(stored)
        if not undos:
            raise Refusal("There is nothing to redo.")
        self._check_travel(record, seat, undos[-1].actor, reason, proxy, "redo")
        undo = stored.index(undos[-1])
        kept = {e.seq for e in effective_events(stored[: undo + 1])}
        restored = [(n, e) for n, e in enumerate(effective_events(stored[:undo]), 1) if e.seq not in kept]
        what = ", ".join(f"#{n} ({seat_name(record, e.actor)}: `{event_command(record, e)}`)"
                         for n, e in restored)
        first = restored[0][1] if restored else None
        return await self._travel(record, seat, reason, proxy, f"↷ **{seat.display_name}** redoes {what}".rstrip(),
                                  undo=False, orders_of=first.action if first and first.kind is EventKind.ACTION
                                  else None, clock_note=ORDERS_ONLY if all(_order_alone(e) for _, e in restored)
                                  and restored else None)

    @staticmethod
    def _check_travel(
        record: GameRecord, seat: Seat, owner: str | None, reason: str, proxy: Seat | None, doing_: str
    ) -> None:
        """Players undo and redo their own last move; the commissioner anything, saying why."""
        if owner == seat.player_id:
            return
        if not (seat.commissioner or proxy is not None):
            raise NotAllowed(f"You can only {doing_} your own last move; this one was "
                             f"{seat_name(record, owner)}'s. Ask the commissioner.")
        if not reason.strip():
            raise Refusal(f"Say why, for the log: `{'undo' if doing_ == 'take back' else 'redo'} REASON`.")

    async def _travel(
        self, record: GameRecord, seat: Seat, reason: str, proxy: Seat | None, line: str, *, undo: bool,
        orders_of: dict[str, Any] | None = None, clock_note: str | None = None,
    ) -> Reply:
        """Undo or redo; ``orders_of``: the action an undo takes back (a redo makes
        again), whose standing orders' moves, taken back (made again) with it, the post
        names; ``clock_note``: what the clock reads from it (:data:`bot.clock.ORDERS_ONLY`)."""
        live = await self.repo.load(record.id)
        before, acting_before = fingerprints(live.game), live.game.acting_player()
        note = notes(reason.strip(), proxy_note(proxy), clock_note)
        shown = notes(code_span(reason), proxy_note(proxy))
        travel = self.repo.undo if undo else self.repo.redo
        redone = "" if undo else _orders_taken_back(live.game, orders_of)  # found on the game before the redo

        def posts(game: Game, seq: int) -> list[dict[str, Any]]:
            text = line + (_orders_taken_back(game, orders_of) if undo else redone)
            return [{
                "kind": "turn", "seq": seq, "text": text + (f" _({shown})_" if shown else ""),
                "next": next_line(game), "mention": _turn_changed(game, acting_before),
                "pictures": changed_pictures(before, fingerprints(game)),
            }]

        try:
            await travel(record.id, live.seq, seat.player_id, note=note, outbox=posts)
        except UndoError as exc:
            raise Refusal(f"{sentence(str(exc))}") from None
        return Reply()


def _check_not_made_for(event: Event, seat: Seat, proxy: Seat | None) -> None:
    """A move made for a player (by the computer, or when their time ran out) is taken
    back by the commissioner, not by that player: else a time-out could be undone by the
    one it timed out, and never come again (issue 38)."""
    if event.actor != seat.player_id or proxy is not None:
        return
    note = event.note or ""
    if TIMED_OUT in note:
        raise NotAllowed("That move was made for you when your time ran out; only the commissioner may take it "
                         "back (`undo REASON`).")
    if COMPUTER_MOVED in note:
        raise NotAllowed("That move was made for you by the computer; only the commissioner may take it back "
                         "(`undo REASON`).")


def _order_alone(event: Event) -> bool:
    """Whether ``event`` set or cancelled a standing order that did not move the game."""
    return event.kind is EventKind.ACTION and event.action.get("type") == "standing_order" \
        and ORDER_MOVED not in (event.note or "")


def _try(game: Game, action: Action) -> None:
    """Raise a :class:`Refusal` if ``action`` would be refused now (a deal is checked
    before the other side is asked)."""
    try:
        game.check(action)
    except EngineError as exc:
        raise Refusal(f"{sentence(str(exc))} You may: {choices_text(game)}") from None


def _turn_changed(game: Game, acting_before: str | None) -> str | None:
    """The player to mention: the one who must act now, if it was someone else before."""
    now = game.acting_player()
    return now if now is not None and now != acting_before else None


def _orders_taken_back(game: Game, undone: dict[str, Any] | None) -> str:
    """`` and what standing orders did after it: ⚙ CV `run best`, ⚙ CV `withhold```:
    the moves an undo took back (a redo made again) with ``undone``, found by playing it
    again on a copy of ``game``, the game without it (after the undo, before the redo)."""
    if undone is None:
        return ""
    again = Game(game.ctx, game.state.copy())
    try:
        again.apply(action_from_dict(undone))
    except EngineError:
        return ""
    if not again.carried_out:
        return ""
    moves = ", ".join(f"⚙ {_entity_name(again, a.entity)} `{command(None, a)}`" for a in again.carried_out)
    return f" and what standing orders did after it: {moves}"


def _entity_name(game: Game, entity: str) -> str:
    return entity if entity in game.state.companies else player_name(game, entity)


def _marked(line: str) -> str:
    """A line of the engine's log, marked ⚙ if a standing order made, set or ended it."""
    return f"⚙ {line}" if "'s standing order" in line else line


def _hex_of(parsed: Parsed) -> str | None:
    action = parsed.action
    return action.hex if isinstance(action, (LayTile, PlaceToken, RemoveToken)) else None


def _as_written(game: Game, action: Action, typed: str) -> str:
    """The command as typed, or as the notation writes it where they differ only in
    case (`bid tsr 20` is shown and logged as `bid TSR 20`)."""
    try:
        written = command(game, action)
    except EngineError:
        return typed
    return written if written.lower() == typed.lower() else typed

