"""The event store in SQL, once for both databases.

:class:`SqlEventStore` implements every :class:`EventStore` method in SQL that SQLite
and PostgreSQL both run (``?`` placeholders, ``RETURNING``, ``ON CONFLICT``,
``IS DISTINCT FROM``). What differs lives in the two dialects, :mod:`storage.sqlite`
and :mod:`storage.postgres`: connecting and transactions, how times are stored, the
locks PostgreSQL takes where SQLite's one writer at a time needs none, claims timed by
the server's clock, and running the migration scripts.

An append checks the request keys, locks the game, checks its sequence number and
writes events, seats, status and posts in one transaction. Rows are decoded by
:mod:`storage.codec`, so a damaged row is its game's problem only.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Collection, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from .codec import UNREADABLE, UNREADABLE_TIME, Row, decode_event, decode_game, decode_post, migration_scripts, to_json
from .store import (
    ACTIVE_STATUSES,
    CLAIM_LEASE,
    LONGEST_CLAIM,
    AppendConflict,
    ChannelBusy,
    DuplicateRequest,
    Event,
    EventStore,
    GameNotFound,
    GameRecord,
    GameStatus,
    NewEvent,
    NewGame,
    OutboxMessage,
    Seat,
    Snapshot,
    StoreError,
    UnfinishedCopy,
    check_seats,
    utc_now,
)

_GAME_COLUMNS = (
    "id, title, options, seed, guild_id, channel_id, created_by, status, engine_version, created_at, archived_at"
)
_SEAT_COLUMNS = "game_id, seat, player_id, discord_user_id, display_name, commissioner"
_EVENT_COLUMNS = "game_id, seq, kind, action, actor, created_at, note, state_hash, request_key"
_ACTIVE = tuple(sorted(ACTIVE_STATUSES))
_CHANNEL_LOCKS = 1861  # lock class of channels, for :meth:`SqlEventStore._hold`
_REQUEST_LOCKS = 1867  # lock class of request keys

log = logging.getLogger("troika.storage")


class Db(Protocol):
    """One connection as the store uses it, whatever the driver; ``?`` placeholders."""

    async def fetch(self, sql: str, *args: Any) -> list[Row]: ...

    async def fetchval(self, sql: str, *args: Any) -> Any:
        """The first column of the first row (None if no row)."""

    async def execute(self, sql: str, *args: Any) -> None: ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...


def _in(values: Sequence[str]) -> str:
    return f"({', '.join('?' for _ in values)})"


class SqlEventStore(EventStore):
    """The store's logic over a SQL dialect; subclasses connect and say how their SQL differs."""

    for_update = ""
    """What locks a row read in a transaction until commit (``FOR UPDATE``; SQLite's
    writers take turns, so it needs nothing)."""

    reads_older_schemas = False
    """Whether a read-only store may be of an older schema (SQLite's backups copy pages)."""

    def __init__(self, *, accept_unfinished_copy: bool = False, read_only: bool = False) -> None:
        self._accept_unfinished_copy = accept_unfinished_copy
        self.read_only = read_only
        """Opened only to read (a backup, an export): the schema is not upgraded, nor the
        database checked to be writable, so a read-only disk or login will do."""

    # --- the dialect ---------------------------------------------------------------

    @property
    @abstractmethod
    def location(self) -> str:
        """The database's name in messages (never a password)."""

    @abstractmethod
    def _connection(self, doing: str) -> AbstractAsyncContextManager[Db]:
        """A connection, with the driver's errors turned into StoreError naming ``doing``."""

    @abstractmethod
    def _transaction(self, doing: str) -> AbstractAsyncContextManager[Db]:
        """A write transaction: committed if the block succeeds, else rolled back."""

    @abstractmethod
    def _time(self, moment: datetime) -> Any:
        """A time as the database stores it."""

    @abstractmethod
    def _read_time(self, value: Any) -> datetime:
        """A stored time; TypeError or ValueError if it cannot be read."""

    async def _hold(self, db: Db, lock_class: int, key: str) -> None:
        """Hold a lock on ``key`` until commit, where writers may overlap (default: they do not)."""

    @abstractmethod
    async def _claim(self, db: Db, game_id: int, owner: str, lease: timedelta) -> bool:
        """The claim upsert of :meth:`claim_game`, timed by the database's clock."""

    async def _now(self, db: Db) -> datetime:
        """The time by the clock claims are timed by (default: this machine's)."""
        return utc_now()

    async def _after_restore(self, db: Db) -> None:
        """What must follow rows inserted with their own ids (default: nothing)."""

    @abstractmethod
    async def _run_migration(self, db: Db, script: str) -> None:
        """Run one migration script; the driver's error if it fails."""

    async def _lock_migrations(self, db: Db) -> None:
        """Keep other processes from migrating at the same time (default: the transaction does)."""

    # --- opening ---------------------------------------------------------------------

    async def _prepare(self, migrations: Path, time_type: str) -> None:
        """Bring the schema up to date (read-only: check it is one this Troika reads),
        and refuse the target of an unfinished copy."""
        if self.read_only:
            await self._check_schema_version(len(migration_scripts(migrations)))
        else:
            await self._migrate(migrations, time_type)
        started = await self.copy_started()
        if started is not None and not self._accept_unfinished_copy:
            raise UnfinishedCopy(self.location, started)

    async def _check_schema_version(self, known: int) -> None:
        async with self._connection("reading the schema version") as db:
            current = await db.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
        if current > known or (current < known and not self.reads_older_schemas):
            raise StoreError(
                f"the database {self.location} has schema version {current} and this Troika reads {known}; "
                + ("upgrade Troika" if current > known else "open it once to write (`troika run`), which upgrades it")
            )

    async def _migrate(self, migrations: Path, time_type: str) -> None:
        scripts = migration_scripts(migrations)
        async with self._transaction("upgrading the database schema") as db:
            await self._lock_migrations(db)
            await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                f" (version INTEGER PRIMARY KEY, applied_at {time_type} NOT NULL)"
            )
            current = await db.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
            if current > len(scripts):
                raise StoreError(
                    f"the database {self.location} has schema version {current} but this Troika "
                    f"only knows up to {len(scripts)}; upgrade Troika"
                )
            for version, name, script in scripts[current:]:
                try:
                    await self._run_migration(db, script)
                except StoreError:
                    raise
                except Exception as exc:
                    raise StoreError(f"migration {name} failed: {exc}") from exc
                await db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                                 version, self._time(utc_now()))

    # --- games -----------------------------------------------------------------------

    async def create_game(self, game: NewGame, events: Sequence[NewEvent] = ()) -> GameRecord:
        check_seats(game.seats)
        options = to_json(game.options)
        actions = [to_json(e.action) for e in events]
        now = utc_now()
        async with self._transaction(f"creating a game of {game.title}") as db:
            if game.channel_id is not None and game.status in ACTIVE_STATUSES:
                await self._check_channel_free(db, game.channel_id)
            game_id = int(await db.fetchval(
                "INSERT INTO games (title, options, seed, guild_id, channel_id, created_by, status,"
                " engine_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                game.title, options, game.seed, game.guild_id, game.channel_id, game.created_by,
                game.status.value, game.engine_version, self._time(now),
            ))
            await self._replace_seats(db, game_id, game.seats)
            await self._check_request_keys(db, events)
            await self._insert_events(db, game_id, 0, events, actions, now)
        return game.record(game_id, now)

    async def get_game(self, game_id: int) -> GameRecord:
        async with self._connection(f"reading game {game_id}") as db:
            games = await db.fetch(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", game_id)
            if not games:
                raise GameNotFound(game_id)
            seats = await db.fetch(f"SELECT {_SEAT_COLUMNS} FROM seats WHERE game_id = ? ORDER BY seat", game_id)
        return decode_game(games[0], seats, self._read_time)

    async def list_games(self, statuses: Collection[GameStatus] | None = None) -> list[GameRecord]:
        wanted = () if statuses is None else tuple(GameStatus(s).value for s in statuses)
        if statuses is not None and not wanted:
            return []
        where = f"WHERE status IN {_in(wanted)}" if wanted else ""
        async with self._connection("listing games") as db:
            games = await db.fetch(f"SELECT {_GAME_COLUMNS} FROM games {where} ORDER BY id", *wanted)
            seats = await db.fetch(
                f"SELECT {_SEAT_COLUMNS} FROM seats WHERE game_id IN (SELECT id FROM games {where})"
                " ORDER BY game_id, seat",
                *wanted,
            )
        by_game: dict[int, list[Row]] = {}
        for seat in seats:
            by_game.setdefault(seat["game_id"], []).append(seat)
        return [decode_game(game, by_game.get(game["id"], []), self._read_time) for game in games]

    async def active_game_in_channel(self, channel_id: str) -> GameRecord | None:
        async with self._connection(f"looking up channel {channel_id}") as db:
            game_id = await db.fetchval(
                f"SELECT id FROM games WHERE channel_id = ? AND status IN {_in(_ACTIVE)}", channel_id, *_ACTIVE
            )
        return None if game_id is None else await self.get_game(game_id)

    async def set_status(self, game_id: int, status: GameStatus) -> None:
        async with self._transaction(f"setting game {game_id} {status}") as db:
            await self._set_status(db, game_id, status)

    async def set_archived(self, game_id: int, at: datetime | None) -> None:
        async with self._transaction(f"archiving game {game_id}") as db:
            updated = await db.fetchval("UPDATE games SET archived_at = ? WHERE id = ? RETURNING id",
                                        None if at is None else self._time(at), game_id)
        if updated is None:
            raise GameNotFound(game_id)

    async def set_engine_version(self, game_id: int, version: int) -> None:
        async with self._transaction(f"recording game {game_id}'s engine version") as db:
            updated = await db.fetchval("UPDATE games SET engine_version = ? WHERE id = ? RETURNING id",
                                        version, game_id)
        if updated is None:
            raise GameNotFound(game_id)

    # --- events ----------------------------------------------------------------------

    async def last_seq(self, game_id: int) -> int:
        async with self._connection(f"reading game {game_id}") as db:
            return await self._last_seq(db, game_id)

    async def append_many(
        self,
        game_id: int,
        expected_seq: int,
        events: Sequence[NewEvent],
        *,
        outbox: Sequence[dict[str, Any]] = (),
        seats: Sequence[Seat] | None = None,
        status: GameStatus | None = None,
    ) -> list[Event]:
        if not events:
            raise ValueError("append_many needs at least one event")
        if seats is not None:
            check_seats(seats)
        actions = [to_json(e.action) for e in events]
        posts = [to_json(p) for p in outbox]
        now = utc_now()
        async with self._transaction(f"appending to game {game_id}") as db:
            await self._check_request_keys(db, events)
            last = await self._last_seq(db, game_id, lock=True)
            if last != expected_seq:
                raise AppendConflict(game_id, expected_seq, last)
            stored = await self._insert_events(db, game_id, last, events, actions, now)
            if seats is not None:
                await self._replace_seats(db, game_id, seats)
            if status is not None:
                await self._set_status(db, game_id, status)
            await db.executemany("INSERT INTO outbox (game_id, payload, created_at) VALUES (?, ?, ?)",
                                 [(game_id, post, self._time(now)) for post in posts])
        return stored

    async def events(self, game_id: int, after_seq: int = 0) -> list[Event]:
        async with self._connection(f"reading game {game_id}'s events") as db:
            rows = await db.fetch(
                "SELECT seq, kind, action, actor, created_at, note, state_hash, request_key FROM events"
                " WHERE game_id = ? AND seq > ? ORDER BY seq",
                game_id, after_seq,
            )
            if not rows:
                await self._last_seq(db, game_id)  # raises GameNotFound
        return [decode_event(game_id, after_seq + i, row, self._read_time) for i, row in enumerate(rows, 1)]

    # --- the outbox ------------------------------------------------------------------

    async def outbox_add(self, game_id: int, payload: dict[str, Any]) -> int:
        post = to_json(payload)
        async with self._transaction(f"queueing a post for game {game_id}") as db:
            await self._last_seq(db, game_id)  # raises GameNotFound
            return int(await db.fetchval(
                "INSERT INTO outbox (game_id, payload, created_at) VALUES (?, ?, ?) RETURNING id",
                game_id, post, self._time(utc_now()),
            ))

    async def outbox_unsent(
        self, limit: int | None = 100, after_id: int = 0, *, game_id: int | None = None
    ) -> list[OutboxMessage]:
        of_game = "" if game_id is None else " AND game_id = ?"
        limited = "" if limit is None else " LIMIT ?"
        args = [after_id, *([] if game_id is None else [game_id]), *([] if limit is None else [limit])]
        async with self._connection("reading the outbox") as db:
            rows = await db.fetch(
                f"SELECT id, game_id, payload, created_at FROM outbox WHERE sent_at IS NULL AND id > ?{of_game}"
                f" ORDER BY id{limited}",
                *args,
            )
        return [decode_post(row, self._read_time) for row in rows]

    async def outbox_mark_sent(self, message_id: int, pictures_for: str | None = None) -> None:
        async with self._transaction(f"marking post {message_id} sent") as db:
            known = await db.fetchval(
                "UPDATE outbox SET pictures_for = CASE WHEN sent_at IS NULL THEN ? ELSE pictures_for END,"
                " sent_at = COALESCE(sent_at, ?) WHERE id = ? RETURNING id",
                pictures_for, self._time(utc_now()), message_id)
        if known is None:
            raise StoreError(f"there is no outbox message {message_id}")

    async def outbox_owed(self, *, game_id: int | None = None) -> list[OutboxMessage]:
        of_game = "" if game_id is None else " AND game_id = ?"
        async with self._connection("reading the pictures owed") as db:
            rows = await db.fetch(
                "SELECT id, game_id, payload, created_at, sent_at, pictures_for FROM outbox"
                f" WHERE pictures_for IS NOT NULL AND sent_at IS NOT NULL{of_game} ORDER BY id",
                *([] if game_id is None else [game_id]),
            )
        return [decode_post(row, self._read_time) for row in rows]

    async def outbox_pictures_done(self, message_id: int) -> None:
        async with self._transaction(f"marking post {message_id}'s pictures attached") as db:
            await db.execute("UPDATE outbox SET pictures_for = NULL WHERE id = ?", message_id)

    # --- snapshots and claims --------------------------------------------------------

    async def put_snapshot(self, game_id: int, snapshot: Snapshot) -> None:
        async with self._transaction(f"saving a snapshot of game {game_id}") as db:
            await self._last_seq(db, game_id)  # raises GameNotFound
            await db.execute(
                "INSERT INTO snapshots (game_id, engine_version, seq, state_hash, data, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, engine_version) DO UPDATE"
                " SET seq = excluded.seq, state_hash = excluded.state_hash, data = excluded.data,"
                " created_at = excluded.created_at",
                game_id, snapshot.engine_version, snapshot.seq, snapshot.state_hash, snapshot.data,
                self._time(utc_now()),
            )

    async def get_snapshot(self, game_id: int, engine_version: int) -> Snapshot | None:
        async with self._connection(f"reading game {game_id}'s snapshot") as db:
            rows = await db.fetch(
                "SELECT seq, state_hash, data FROM snapshots WHERE game_id = ? AND engine_version = ?",
                game_id, engine_version,
            )
        if not rows:
            return None
        seq, digest, data = rows[0]
        if not (isinstance(seq, int) and isinstance(digest, str) and isinstance(data, bytes)):
            log.warning("game %s: its snapshot row is unreadable; not used", game_id)
            return None  # a cache: a row of the wrong types costs a full replay
        return Snapshot(seq, engine_version, digest, data)

    async def claim_game(self, game_id: int, owner: str, lease: timedelta = CLAIM_LEASE) -> bool:
        async with self._transaction(f"claiming game {game_id}") as db:
            await self._last_seq(db, game_id)  # raises GameNotFound
            await self._drop_unreadable_claim(db, game_id, lease)
            return await self._claim(db, game_id, owner, lease)

    async def _drop_unreadable_claim(self, db: Db, game_id: int, lease: timedelta) -> None:
        """Delete the game's claim if it cannot be one a process took: its owner or time
        unreadable, or running out later than any lease could make it (a claim that never
        ran out would hold the game's posts back for ever). Logged, as damage is."""
        rows = await db.fetch("SELECT owner, expires_at FROM claims WHERE game_id = ?", game_id)
        if not rows:
            return
        owner, expires = rows[0]["owner"], rows[0]["expires_at"]
        try:
            until = self._read_time(expires)
            damaged = until.tzinfo is None or until - await self._now(db) > max(lease, LONGEST_CLAIM)
        except (*UNREADABLE, OverflowError):
            damaged = True
        if damaged or not isinstance(owner, str):
            log.error("game %s: its delivery claim is damaged (owner %.40r, until %.40r); this process takes it over",
                      game_id, owner, expires)
            await db.execute("DELETE FROM claims WHERE game_id = ?", game_id)

    async def release_claims(self, owner: str) -> None:
        async with self._transaction(f"releasing the claims of {owner}") as db:
            await db.execute("DELETE FROM claims WHERE owner = ?", owner)

    # --- copies ----------------------------------------------------------------------

    async def restore_game(
        self, record: GameRecord, events: Sequence[Event], outbox: Sequence[OutboxMessage] = ()
    ) -> None:
        check_seats(record.seats)
        async with self._transaction(f"restoring game {record.id}") as db:
            if await db.fetchval("SELECT 1 FROM games WHERE id = ?", record.id):
                raise StoreError(f"game {record.id} is already in {self.location}")
            await db.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                record.id, record.title, to_json(record.options), record.seed, record.guild_id,
                record.channel_id, record.created_by, record.status.value, record.engine_version,
                self._time(record.created_at), None if record.archived_at is None else self._time(record.archived_at),
            )
            await self._replace_seats(db, record.id, record.seats)
            await self._write_events(db, events, [to_json(e.action) for e in events])
            await db.executemany(
                "INSERT INTO outbox (id, game_id, payload, created_at, sent_at) VALUES (?, ?, ?, ?, ?)",
                [(m.id, record.id, to_json(m.payload), self._time(m.created_at),
                  None if m.sent_at is None else self._time(m.sent_at)) for m in outbox],
            )
            await self._after_restore(db)

    async def copy_started(self) -> datetime | None:
        async with self._connection("reading the copy marker") as db:
            started = await db.fetchval("SELECT started_at FROM copy_marker")
        if started is None:
            return None
        try:
            return self._read_time(started)
        except UNREADABLE:  # a marker is there, whatever its time: the copy is not proved
            log.error("the copy marker of %s is unreadable (%.40r): a copy began and did not finish",
                      self.location, started)
            return UNREADABLE_TIME

    async def mark_copy(self, started: datetime | None) -> None:
        async with self._transaction("marking the copy") as db:
            await db.execute("DELETE FROM copy_marker")
            if started is not None:
                await db.execute("INSERT INTO copy_marker (id, started_at) VALUES (1, ?)", self._time(started))

    # --- in a transaction ------------------------------------------------------------

    async def _last_seq(self, db: Db, game_id: int, *, lock: bool = False) -> int:
        """The game's latest sequence number; with ``lock``, the game is held until commit."""
        if lock and self.for_update:
            await db.fetchval(f"SELECT id FROM games WHERE id = ? {self.for_update}", game_id)
        last, exists = (await db.fetch(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?),"
            " EXISTS (SELECT 1 FROM games WHERE id = ?)",
            game_id, game_id,
        ))[0]
        if not exists:
            raise GameNotFound(game_id)
        return int(last)

    async def _check_channel_free(self, db: Db, channel_id: str, except_game: int | None = None) -> None:
        """Hold the channel until commit, then raise ChannelBusy if another game is active in it."""
        await self._hold(db, _CHANNEL_LOCKS, channel_id)
        busy = await db.fetchval(
            f"SELECT id FROM games WHERE channel_id = ? AND status IN {_in(_ACTIVE)} AND id IS DISTINCT FROM ?",
            channel_id, *_ACTIVE, except_game,
        )
        if busy is not None:
            raise ChannelBusy(channel_id, busy)

    async def _set_status(self, db: Db, game_id: int, status: GameStatus) -> None:
        games = await db.fetch(f"SELECT channel_id FROM games WHERE id = ? {self.for_update}", game_id)
        if not games:
            raise GameNotFound(game_id)
        channel_id = games[0]["channel_id"]
        if channel_id is not None and status in ACTIVE_STATUSES:
            await self._check_channel_free(db, channel_id, except_game=game_id)
        await db.execute("UPDATE games SET status = ? WHERE id = ?", status.value, game_id)

    async def _check_request_keys(self, db: Db, events: Sequence[NewEvent]) -> None:
        """Raise DuplicateRequest if an event's request key is stored already. A request
        carried out at this moment by another connection is held until it commits."""
        for key in sorted({e.request_key for e in events if e.request_key is not None}):
            await self._hold(db, _REQUEST_LOCKS, key)
            if await db.fetchval("SELECT 1 FROM events WHERE request_key = ?", key):
                raise DuplicateRequest(key)

    async def _replace_seats(self, db: Db, game_id: int, seats: Iterable[Seat]) -> None:
        await db.execute("DELETE FROM seats WHERE game_id = ?", game_id)
        await db.executemany(
            f"INSERT INTO seats ({_SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
            [(game_id, s.seat, s.player_id, s.discord_user_id, s.display_name, s.commissioner) for s in seats],
        )

    async def _insert_events(
        self, db: Db, game_id: int, last_seq: int, events: Sequence[NewEvent], actions: Sequence[str], now: datetime
    ) -> list[Event]:
        stored = [event.at(game_id, last_seq + i, now) for i, event in enumerate(events, 1)]
        await self._write_events(db, stored, actions)
        return stored

    async def _write_events(self, db: Db, events: Sequence[Event], actions: Sequence[str]) -> None:
        await db.executemany(
            f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(e.game_id, e.seq, e.kind.value, action, e.actor, self._time(e.created_at), e.note, e.state_hash,
              e.request_key) for e, action in zip(events, actions, strict=True)],
        )

