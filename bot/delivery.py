"""Delivery: the outbox's posts to their channels, the pictures drawn for them, the
pinned status message, and reminders.

A post's text may go out as soon as its event is stored and its pictures follow, drawn
beside the later posts and handed over in the channel's order (``flush``'s ``attach``).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Collection
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from engine import Game
from storage import (
    CorruptEvent,
    Event,
    EventKind,
    GameNotFound,
    GameRecord,
    GameStatus,
    OutboxMessage,
    Shard,
    StoreError,
)
from storage.repository import effective_events

from .archive import archive_if_idle
from .clock import HOUR, shown_duration
from .core import Core, Feature, Post
from .errors import PostWaits, WorkerStopped
from .posts import Picture, event_command, next_line, player_name, render_pictures, seat_name

SINCE_SHOWN = 6
"""Others' moves listed in "since your last move" (older ones are counted)."""
DRAWN_KEPT = 64
"""States kept for posts whose pictures are not drawn yet (one per game and event)."""
PICTURE_TRIES = 3
"""Times this process tries to attach a post's pictures (its worker stopped, Discord
failed) before it gives them up."""

log = logging.getLogger("troika.service")


class Delivery(Feature):
    """The posts the bot owes its channels, and the reminders it owes its players."""

    def __init__(self, core: Core) -> None:
        super().__init__(core)
        self._guilds: dict[int, str | None] = {}
        self._flush_locks: dict[str, asyncio.Lock] = {}
        self._channels: dict[int, str | None] = {}
        self._drawn: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        """(game, event) -> the state the event left, saved as it was stored, for its post's pictures."""
        self._sent_unmarked: dict[int, str | None] = {}
        """Posts delivered but not yet marked sent, each with where its pictures are owed (if they are)."""
        self._attaching: set[int] = set()
        """Posts whose pictures this process is drawing or attaching."""
        self._tries: Counter[int] = Counter()
        """Failed tries at attaching a post's pictures."""
        self.draw: Callable[[OutboxMessage], Awaitable[list[Picture]]] = self.pictures
        """Who draws a post's pictures: this process (:meth:`pictures`), or the game's worker."""
        self._drawing: dict[str, asyncio.Task[None]] = {}
        """Per channel, the latest post's pictures being drawn and attached."""
        self.holds: Callable[[GameRecord, str | None, datetime], Awaitable[bool]] | None = None
        """Whether a reminder to a player waits now (their quiet hours: :mod:`bot.timekeeping`)."""
        self.waited: Callable[[GameRecord, str | None, datetime], Awaitable[tuple[datetime, float] | None]] | None \
            = None
        """Since when the player's open decision counts, and its seconds counted so far (the
        table's clock, :mod:`bot.timekeeping`: the start `status` shows, holidays left out)."""

    async def flush(
        self, deliver: Callable[[Post], Awaitable[Any]], *, channel_id: str | None = None,
        then: Callable[[int], Awaitable[None]] | None = None,
        attach: Callable[[Any, Post, list[Picture]], Awaitable[None]] | None = None,
    ) -> set[int]:
        """Deliver every post not yet sent of this process's games (or of the games in
        ``channel_id``), oldest first per game, marking each sent once ``deliver``
        returns; ``then(game_id)`` follows a game's posts. Returns the games posted to.

        Without ``attach``, each post goes to ``deliver`` with its pictures. With it, a
        post goes without them at once, and its pictures, drawn afterwards, go to
        ``attach(sent, post, pictures)`` (``sent``: what ``deliver`` returned) in the
        channel's order, one post's after the other's, while later posts' texts go out;
        :meth:`drawn` waits for them. What ``deliver`` returns (None: nothing sent) names
        where the text went, by its ``id`` if it has one: that is kept, as text, with the
        post until its pictures are attached, so that pictures a stopped process owed are
        attached by the next flush (to ``attach`` with that text for ``sent``). A picture that cannot be drawn is
        logged and left out; one whose drawing or attaching failed (a worker stopped,
        Discord refused) is tried again at later flushes, :data:`PICTURE_TRIES` times.

        Each channel's posts go out on their own, side by side with other channels',
        under the channel's own lock, so a slow channel (a rate limit, Discord's retries
        after server errors) holds back no other; in a channel, an older game's posts go
        before a newer one's. A game's posts go out under this process's claim on it,
        taken or renewed before each post, so no other process sends them too; a post is
        sent only if it is still unsent once the claim is held. A game's trouble stays
        with that game: if ``deliver`` raises, that post and the game's later ones wait
        for the next flush. A post whose stored payload cannot be read is logged and
        dropped. A post delivered but not marked (the database busy) is marked before
        anything else is sent, never delivered again by this process."""
        await self._mark_delivered()
        channels: dict[str, list[int]] = {}  # the games with posts to send, by channel, oldest first
        owed = await self.store.outbox_owed() if attach is not None else []
        after = 0
        while batch := await self.store.outbox_unsent(after_id=after):
            after = batch[-1].id
            owed += batch
        for message in owed:
            where = await self._channel_of(message.game_id) or f"game {message.game_id}"
            games = channels.setdefault(where, [])
            if message.game_id not in games and channel_id in (None, where):
                games.append(message.game_id)
        results = await asyncio.gather(*(self._flush_channel(where, games, deliver, then, attach)
                                         for where, games in channels.items() if games), return_exceptions=True)
        touched: set[int] = set()
        for result in results:
            if isinstance(result, BaseException):
                raise result
            touched |= result
        return touched

    async def _flush_channel(
        self, where: str, games: list[int], deliver: Callable[[Post], Awaitable[Any]],
        then: Callable[[int], Awaitable[None]] | None,
        attach: Callable[[Any, Post, list[Picture]], Awaitable[None]] | None,
    ) -> set[int]:
        """Deliver the unsent posts of a channel's games, game by game (see :meth:`flush`),
        each followed by ``then``; the games posted to."""
        touched = set()
        async with self._flush_locks.setdefault(where, asyncio.Lock()):
            for game_id in games:
                if await self._send_game(where, game_id, deliver, attach):
                    touched.add(game_id)
                    if then is not None:
                        await then(game_id)
        return touched

    async def _send_game(
        self, where: str, game_id: int, deliver: Callable[[Post], Awaitable[Any]],
        attach: Callable[[Any, Post, list[Picture]], Awaitable[None]] | None,
    ) -> bool:
        posted = False
        if attach is not None:
            try:
                if not await self._claim(game_id):
                    return posted
            except GameNotFound:  # deleted by hand: its pictures are owed nowhere
                for message in await self.store.outbox_owed(game_id=game_id):
                    await self.store.outbox_pictures_done(message.id)
            else:
                await self._attach_owed(where, game_id, attach)
        after = 0
        while batch := await self.store.outbox_unsent(after_id=after, game_id=game_id):
            after = batch[-1].id
            for message in batch:
                if message.id in self._sent_unmarked:
                    continue
                try:
                    claimed = await self._claim(game_id)
                except GameNotFound:  # its game was deleted by hand: nowhere to post it
                    log.error("post %s dropped: there is no game %s", message.id, game_id)
                    await self.store.outbox_mark_sent(message.id)
                    continue
                if not claimed:
                    return posted
                if not await self._still_unsent(message):
                    continue
                problem = message.problem or payload_problem(message.payload)
                owed = None
                if problem is not None:
                    log.error("post %s of game %s dropped: %s", message.id, game_id, problem)
                else:
                    try:
                        post = await self._post(message)
                        if attach is None:
                            await deliver(replace(post, pictures=await self._pictures_if_drawn(message)))
                        else:
                            sent = await deliver(post)
                            owed = None if sent is None or not self._wants_pictures(message) \
                                else str(getattr(sent, "id", sent))
                            self._attach_later(where, message, post, sent, attach)
                    except PostWaits:  # kept, with the game's later posts, for a later delivery
                        return posted
                    except Exception:
                        log.exception("post %s of game %s not delivered; retried later", message.id, game_id)
                        return posted
                    posted = True
                self._sent_unmarked[message.id] = owed
                await self._mark_delivered()
        return posted

    async def _attach_owed(
        self, where: str, game_id: int, attach: Callable[[Any, Post, list[Picture]], Awaitable[None]]
    ) -> None:
        """Attach, in the channel's order, the pictures owed to the game's posts that this
        process is not attaching now: a stopped process's, or a failed try's."""
        for message in await self.store.outbox_owed(game_id=game_id):
            if message.id in self._attaching:
                continue
            problem = message.problem or payload_problem(message.payload)
            if problem is None and self._tries[message.id] >= PICTURE_TRIES:
                problem = f"{PICTURE_TRIES} tries failed"
            try:
                if problem is None:
                    self._attach_later(where, message, await self._post(message), message.pictures_for, attach)
                    continue
            except Exception:  # the game's trouble: tried again at the next flush
                self._tries[message.id] += 1
                log.exception("the pictures of post %s of game %s are not attached", message.id, game_id)
                continue
            log.error("the pictures of post %s of game %s are given up: %s", message.id, game_id, problem)
            await self.store.outbox_pictures_done(message.id)

    async def _channel_of(self, game_id: int) -> str | None:
        if game_id not in self._channels:
            try:
                self._channels[game_id] = (await self.store.get_game(game_id)).channel_id
            except GameNotFound:  # deleted by hand: in no channel
                return None
        return self._channels[game_id]

    async def _mark_delivered(self) -> None:
        """Mark sent the posts delivered but not yet marked (with where their pictures are
        owed); raises if the store cannot."""
        for message_id in sorted(self._sent_unmarked):  # a copy: other games' flushes add to it meanwhile
            if message_id in self._sent_unmarked:
                await self.store.outbox_mark_sent(message_id, self._sent_unmarked[message_id])
                self._sent_unmarked.pop(message_id, None)

    async def _post(self, message: OutboxMessage) -> Post:
        """The post's text (its pictures are drawn apart)."""
        payload = message.payload
        record = await self.store.get_game(message.game_id)
        mention = next((s for s in record.seats if s.player_id == payload.get("mention")), None)
        since = ""
        if mention is not None and payload.get("kind") == "turn":
            try:
                since = await self._since(record, mention.player_id, int(payload["seq"]))
            except CorruptEvent as exc:  # the game's log is damaged: the post goes without its recap
                log.warning("post %s goes without its recap: %s", message.id, exc)
        return Post(message.id, message.game_id, record.channel_id, payload.get("text", ""), payload.get("next", ""),
                    mention, [], seq=int(payload.get("seq", 0)), recap=since)

    def _wants_pictures(self, message: OutboxMessage) -> bool:
        return self.core.pictures and bool(message.payload.get("pictures"))

    async def _pictures(self, message: OutboxMessage) -> list[Picture]:
        """The post's pictures by :attr:`draw`, if it has any and pictures are wanted."""
        if not self._wants_pictures(message):
            return []
        return await self.draw(message)

    async def _pictures_if_drawn(self, message: OutboxMessage) -> list[Picture]:
        """The post's pictures, or none (logged) where drawing them fails for the post's
        or its game's sake; the database's or a worker's trouble is raised, to try again."""
        try:
            return await self._pictures(message)
        except (StoreError, WorkerStopped):
            raise
        except Exception:
            log.exception("post %s of game %s goes without its pictures", message.id, message.game_id)
            return []

    async def pictures(self, message: OutboxMessage) -> list[Picture]:
        """Draw the pictures a post names, of the game as it was after its event."""
        payload = message.payload
        try:
            game = await self._game_at(message.game_id, int(payload["seq"]))
        except CorruptEvent as exc:
            log.warning("post %s goes without pictures: %s", message.id, exc)
            return []
        hex_id = payload.get("highlight")  # a close-up around the tile or token just placed
        return await render_pictures(game, payload["pictures"], highlight=hex_id, focus=hex_id,
                                     routes=payload.get("routes"))

    def _attach_later(
        self, where: str, message: OutboxMessage, post: Post, sent: Any,
        attach: Callable[[Any, Post, list[Picture]], Awaitable[None]],
    ) -> None:
        """Draw the post's pictures now and attach them once the channel's earlier
        posts have theirs; then they are owed no more (unless drawing or attaching
        failed, for a later flush to try again)."""
        earlier = self._drawing.get(where)
        drawing = asyncio.ensure_future(self._pictures_if_drawn(message))
        self._attaching.add(message.id)

        async def in_turn() -> None:
            if earlier is not None:
                await asyncio.wait([earlier])
            try:
                try:
                    try:
                        pictures = await drawing
                    except WorkerStopped:  # the worker drawing them died: its successor draws them
                        pictures = await self._pictures_if_drawn(message)
                    if pictures:
                        await attach(sent, post, pictures)
                except Exception:
                    self._tries[message.id] += 1
                    log.exception("the pictures of post %s of game %s are not attached (try %s of %s)", message.id,
                                  message.game_id, self._tries[message.id], PICTURE_TRIES)
                    return
                if self._wants_pictures(message):
                    await self._mark_delivered()  # its mark first: a later one would not owe them again
                    await self.store.outbox_pictures_done(message.id)
            except Exception:
                log.exception("post %s of game %s: its pictures are attached but not marked so", message.id,
                              message.game_id)
            finally:
                self._attaching.discard(message.id)

        self._drawing[where] = asyncio.create_task(in_turn())

    async def drawn(self) -> None:
        """Wait until every post's pictures sent for attaching so far are attached."""
        while pending := [t for t in self._drawing.values() if not t.done()]:
            await asyncio.wait(pending)

    async def _since(self, record: GameRecord, player_id: str, seq: int) -> str:
        """The moves others made between ``player_id``'s last move and event ``seq``."""
        effective = effective_events([e for e in await self.store.events(record.id) if e.seq <= seq])
        moves = [e for e in effective if e.kind is EventKind.ACTION]
        own = [i for i, e in enumerate(moves) if e.actor == player_id]
        others = [e for e in moves[own[-1] + 1 if own else 0:] if e.seq != seq]
        if not others:
            return ""
        shown = [f"{_mover(record, e)} `{event_command(record, e)}`" for e in others[-SINCE_SHOWN:]]
        earlier = f"{len(others) - SINCE_SHOWN} earlier moves · " if len(others) > SINCE_SHOWN else ""
        return f"_Since your last move:_ {earlier}{' · '.join(shown)} (`log` shows what each did)"

    def keep_drawn(self, game_id: int, seq: int, saved: bytes | None) -> None:
        """Keep the state event ``seq`` left, as the repository saved it when the event was
        stored (no copy taken here), for its post's pictures."""
        if saved is None or not self.core.pictures:
            return
        self._drawn[(game_id, seq)] = saved
        while len(self._drawn) > DRAWN_KEPT:
            self._drawn.popitem(last=False)

    async def _game_at(self, game_id: int, seq: int) -> Game:
        """The game as it was after event ``seq``, the caller's own: the state saved as
        the event was stored if this process stored it, else a copy of the live one (its
        next command may change it while the post's pictures are drawn) unless it has
        moved on."""
        saved = self._drawn.pop((game_id, seq), None)
        if saved is not None:
            live = (await self.repo.load(game_id)).game
            drawn: Game = self.core.engine.load_saved(live, saved)
            return drawn
        later = await self.store.events(game_id, after_seq=seq)
        if not any(e.kind is not EventKind.ADMIN and e.kind is not EventKind.SEAT for e in later):
            live = await self.repo.load(game_id)
            copy = live.saved if live.saved is not None else self.core.engine.save(live.game)
            latest: Game = self.core.engine.load_saved(live.game, copy)
            return latest
        record = await self.store.get_game(game_id)
        game: Game = self.core.engine.new_game(record)
        events = [e for e in await self.store.events(game_id) if e.seq <= seq]
        for event in effective_events(events):
            self.core.engine.apply(game, event.action, replaying=True)
        return game

    async def _claim(self, game_id: int) -> bool:
        """Whether this process may post to the game now: it is one of its shard's, and
        the process holds the game's claim (taken or renewed here)."""
        if self.core.shard is not None:
            if game_id not in self._guilds:
                self._guilds[game_id] = (await self.store.get_game(game_id)).guild_id
            if not self.core.shard.owns(self._guilds[game_id]):
                return False
        return await self.store.claim_game(game_id, self.core.owner)

    async def _still_unsent(self, message: OutboxMessage) -> bool:
        """Whether the post is still unsent (another process may have sent it since it
        was read, before this one held the game's claim)."""
        first = await self.store.outbox_unsent(1, message.id - 1, game_id=message.game_id)
        return bool(first) and first[0].id == message.id

    async def send_reminders(self, game_ids: Collection[int] | None = None, now: datetime | None = None) -> None:
        """Queue the reminders that are due in this process's games (of ``game_ids``, if
        given): the acting player after the game's reminder time, then the channel after
        twice that, each once per decision; one that falls in the player's quiet hours (or
        while they are away) waits (:attr:`holds`). A game that cannot be loaded is logged
        and skipped."""
        now = now or self.core.clock()
        for record in await self.store.list_games([GameStatus.RUNNING]):
            if game_ids is not None and record.id not in game_ids:
                continue
            try:
                if not self.core.owns(record) or not await self.store.claim_game(record.id, self.core.owner):
                    continue
                async with self.core.lock(record.channel_id or f"game {record.id}"):
                    await self.core.retrying(partial(self._reminders_for, record, now))
            except Exception as exc:  # that game's trouble; later games are still reminded
                log.warning("no reminders for game %s: %s", record.id, exc)

    async def _reminders_for(self, record: GameRecord, now: datetime) -> None:
        ledger = await self.core.ledger(record.id)
        if await archive_if_idle(self.core, record, ledger, now):
            return  # idle games are archived, and archived games are not reminded
        if ledger.paused is not None or ledger.turn_began is None:
            return
        game = (await self.repo.load(record.id)).game
        player = ledger.ask.consenter if ledger.ask else game.acting_player()
        began, seconds = ledger.turn_began, (now - ledger.turn_began).total_seconds()
        if self.waited is not None and (counted := await self.waited(record, player, now)) is not None:
            began, seconds = counted
        waited = seconds / 3600
        hours = ledger.player_remind.get(player or "", ledger.remind_hours) if player in ledger.player_remind \
            else ledger.remind_hours
        if not hours or (self.holds is not None and await self.holds(record, player, now)):
            return
        name = player_name(game, player)
        since = f"since <t:{int(began.timestamp())}:R>" if self.core.timestamps \
            else f"for {shown_duration(round(waited) * HOUR)}"
        for stage in (1, 2):
            if waited < stage * hours or stage in ledger.reminded or game.state.finished:
                continue
            if stage == 1:
                text, mention = f"⏰ Your turn has waited {since.removeprefix('for ')}.", player
            else:
                commissioner = next(s.display_name for s in record.seats if s.commissioner)
                text, mention = (f"⏰ **{name}** has not acted {since}. The commissioner "
                                 f"({commissioner}) may act for them: `as {name} ...`."), None
            live = await self.repo.load(record.id)
            post = {"kind": "note", "seq": live.seq + 1, "text": text, "next": next_line(game), "mention": mention}
            await self.repo.record_admin(
                record.id, live.seq, {"type": "reminder", "stage": stage, "position": ledger.position}, None,
                outbox=[post])
            await self.core.ledger(record.id)

    async def close(self) -> None:
        """Give up this process's claims, so another may deliver its games' posts at once."""
        await self.store.release_claims(self.core.owner)

    async def set_status_message(self, game_id: int, message_id: str) -> None:
        record = await self.store.get_game(game_id)

        async def attempt() -> None:
            live = await self.repo.load(game_id)
            await self.repo.record_admin(game_id, live.seq, {"type": "status_message", "message_id": message_id},
                                         None)

        async with self.core.lock(record.channel_id or f"game {game_id}"):
            await self.core.retrying(attempt)


POST_FIELDS: dict[str, tuple[type, ...]] = {
    "text": (str,), "next": (str,), "kind": (str,), "seq": (int,), "mention": (str, type(None)),
    "pictures": (list,), "highlight": (str, type(None)), "routes": (dict, type(None)),
}
"""The fields of a stored post that delivery reads, and the types each may have."""


def payload_problem(payload: dict[str, Any]) -> str | None:
    """Why a stored post cannot be delivered as it is (a field of the wrong type, pictures
    without the event they show), if it cannot: such a post is dropped, not retried."""
    for field, kinds in POST_FIELDS.items():
        value = payload.get(field)
        if field in payload and (not isinstance(value, kinds) or isinstance(value, bool)):
            return f"its {field} is a {type(value).__name__} ({str(value)[:40]!r})"
    if "pictures" in payload and not all(isinstance(name, str) for name in payload["pictures"]):
        return "its pictures are not named by text"
    if payload.get("pictures") and "seq" not in payload:
        return "it wants pictures but names no event"
    return None


def _mover(record: GameRecord, event: Event) -> str:
    """Who made a move: the company acting, else the player's name."""
    entity = str(event.action.get("entity") or "")
    return entity if entity and all(s.player_id != entity for s in record.seats) else seat_name(record, event.actor)


def process_name(shard: Shard | None) -> str:
    """The name this process claims games under: its shard and machine, so that the same
    bot restarted after a crash takes its games back at once, while any other process
    waits for the claims to run out."""
    which = f"shard {shard.index} of {shard.count}" if shard else "troika"
    return f"{which} on {socket.gethostname()}"
