"""The PostgreSQL backend of the event store (asyncpg), for several bot processes.

It keeps the promises of :mod:`storage.sqlite` with a pool of connections: an append
locks its game's row, checks the sequence number and writes events, seats and posts in
one transaction; creating or reactivating a game in a channel holds a lock on that
channel. The schema is the numbered scripts in ``migrations_pg/``, applied under an
advisory lock at :meth:`PostgresEventStore.open`. A backup is a SQLite file holding the
whole store as of one moment.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Collection, Iterable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from .codec import decode_event, decode_game, decode_post, migration_scripts, to_json
from .store import (
    ACTIVE_STATUSES,
    CLAIM_LEASE,
    AppendConflict,
    ChannelBusy,
    DatabaseAccess,
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

MIGRATIONS_DIR = Path(__file__).with_name("migrations_pg")
_POSTGRES_SCHEME = re.compile(r"^postgres(?:ql)?(?:\+\w+)?://", re.IGNORECASE)
"""``postgresql://``, ``postgres://``, in any capitals, with a driver suffix such as ``+asyncpg``."""
_URL_PASSWORD = re.compile(r"^(\w[\w+.-]*://[^/?#]*?:)[^/?#]*(@)")  # the password before the last @
_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&#]*", re.IGNORECASE)

_MIGRATION_LOCK = 18611867  # advisory lock held while the schema is brought up to date
_CHANNEL_LOCKS = 1861  # advisory lock class of channels: (this, hashtext(channel id))
_REQUEST_LOCKS = 1867  # advisory lock class of request keys: (this, hashtext(key))
_GAME_COLUMNS = (
    "id, title, options, seed, guild_id, channel_id, created_by, status, engine_version, created_at"
)
_SEAT_COLUMNS = "game_id, seat, player_id, discord_user_id, display_name, commissioner"
_ACTIVE = sorted(ACTIVE_STATUSES)
_DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)
_LOGIN_REFUSED = (asyncpg.InvalidAuthorizationSpecificationError, asyncpg.InvalidPasswordError)
_NOT_WRITABLE = (asyncpg.InsufficientPrivilegeError, asyncpg.ReadOnlySQLTransactionError)


def is_postgres_url(location: str | Path) -> bool:
    """Whether ``location`` names a PostgreSQL database rather than a SQLite file."""
    return bool(_POSTGRES_SCHEME.match(str(location)))


def is_url(location: str | Path) -> bool:
    """Whether ``location`` is written as a URL (``scheme://...``), whatever the scheme."""
    return re.match(r"^\w[\w+.-]*://", str(location)) is not None


def safe_url(url: str) -> str:
    """The URL without its password (in the address or as ``?password=``), fit for
    messages and logs; works on URLs too malformed to parse."""
    return _QUERY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***\2", url))


def _driver_url(url: str) -> str:
    """The URL with the scheme asyncpg knows."""
    return _POSTGRES_SCHEME.sub("postgresql://", url)


class PostgresEventStore(EventStore):
    """An :class:`EventStore` in a PostgreSQL database, given by a ``postgresql://`` URL."""

    refuses_nul = True

    def __init__(
        self, url: str, *, password: str | None = None, max_connections: int = 8, accept_unfinished_copy: bool = False
    ) -> None:
        self.url = url
        self._accept_unfinished_copy = accept_unfinished_copy
        self._password = password
        self._max_connections = max_connections
        self._pool: asyncpg.Pool | None = None
        self._pinned: ContextVar[asyncpg.Connection | None] = ContextVar("pinned", default=None)

    async def open(self) -> None:
        if self._pool is not None:
            return
        try:
            self._pool = await asyncpg.create_pool(
                _driver_url(self.url), password=self._password, min_size=1, max_size=self._max_connections,
                command_timeout=60,
            )
        except _LOGIN_REFUSED as exc:
            raise DatabaseAccess(f"the server refuses the login to {safe_url(self.url)}: {self._scrub(exc)}"
                                 " (check the user and TROIKA_DB_PASSWORD_FILE)") from exc
        except (*_DRIVER_ERRORS, ValueError, OverflowError) as exc:  # a port over 65535, say
            raise StoreError(f"cannot open the database {safe_url(self.url)}: {self._scrub(exc)}") from exc
        try:
            await self._migrate()
            await self._check_writable()
            started = await self.copy_started()
            if started is not None and not self._accept_unfinished_copy:
                raise UnfinishedCopy(safe_url(self.url), started)
        except StoreError as exc:
            await self.close()
            if isinstance(exc.__cause__, _NOT_WRITABLE):
                raise self._not_writable(exc.__cause__) from exc
            raise
        except BaseException:
            await self.close()
            raise

    async def _check_writable(self) -> None:
        """Refuse, at start, a database this login may only read."""
        async with self._connection("checking the database is writable") as db:
            read_only = await db.fetchval(
                "SELECT current_setting('transaction_read_only') = 'on'"
                " OR NOT has_table_privilege('events', 'INSERT') OR NOT has_table_privilege('outbox', 'UPDATE')"
            )
        if read_only:
            raise self._not_writable("it may only read")

    def _not_writable(self, why: object) -> DatabaseAccess:
        return DatabaseAccess(f"the database {safe_url(self.url)} is not writable by this login ({why}); "
                              "grant it INSERT and UPDATE on Troika's tables, on a server that is not read-only")

    def _scrub(self, error: BaseException) -> str:
        """The driver's message with any password in it masked."""
        text = safe_url(str(error))
        secrets = [self._password, *re.findall(r"(?i)[?&]password=([^&#]*)", self.url),
                   *(m.group(0)[len(m.group(1)):-1] for m in [_URL_PASSWORD.match(self.url)] if m)]
        for secret in filter(None, secrets):
            text = text.replace(secret, "***")
        return text

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @asynccontextmanager
    async def _connection(self, doing: str) -> AsyncIterator[asyncpg.Connection]:
        """A connection of the pool (or the snapshot's), driver errors turned into StoreError."""
        try:
            pinned = self._pinned.get()
            if pinned is not None:
                yield pinned
                return
            if self._pool is None:
                raise StoreError("the store is not open")
            async with self._pool.acquire() as db:
                yield db
        except _DRIVER_ERRORS as exc:
            raise StoreError(f"database error while {doing}: {exc}") from exc

    @asynccontextmanager
    async def _transaction(self, doing: str) -> AsyncIterator[asyncpg.Connection]:
        """A write transaction: committed if the block succeeds, else rolled back."""
        async with self._connection(doing) as db, db.transaction():
            yield db

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        """Within the block, this task's reads all see the store as of one moment."""
        async with (
            self._connection("taking a snapshot") as db,
            db.transaction(isolation="repeatable_read", readonly=True),
        ):
            token = self._pinned.set(db)
            try:
                yield
            finally:
                self._pinned.reset(token)

    async def _migrate(self) -> None:
        scripts = migration_scripts(MIGRATIONS_DIR)
        async with self._transaction("upgrading the database schema") as db:
            await db.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
            await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                " (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)"
            )
            current = await db.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
            if current > len(scripts):
                raise StoreError(
                    f"the database {safe_url(self.url)} has schema version {current} but this "
                    f"Troika only knows up to {len(scripts)}; upgrade Troika"
                )
            for version, name, script in scripts[current:]:
                try:
                    await db.execute(script)
                except asyncpg.PostgresError as exc:
                    raise StoreError(f"migration {name} failed: {exc}") from exc
                await db.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)",
                    version, utc_now(),
                )

    async def create_game(self, game: NewGame, events: Sequence[NewEvent] = ()) -> GameRecord:
        check_seats(game.seats)
        options = to_json(game.options)
        actions = [to_json(e.action) for e in events]
        now = utc_now()
        async with self._transaction(f"creating a game of {game.title}") as db:
            if game.channel_id is not None and game.status in ACTIVE_STATUSES:
                await _check_channel_free(db, game.channel_id)
            game_id = await db.fetchval(
                "INSERT INTO games (title, options, seed, guild_id, channel_id, created_by,"
                " status, engine_version, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                " RETURNING id",
                game.title, options, game.seed, game.guild_id, game.channel_id,
                game.created_by, game.status.value, game.engine_version, now,
            )
            await _replace_seats(db, game_id, game.seats)
            await _check_request_keys(db, events)
            await _insert_events(db, game_id, 0, events, actions, now)
        return game.record(game_id, now)

    async def get_game(self, game_id: int) -> GameRecord:
        async with self._connection(f"reading game {game_id}") as db:
            game = await db.fetchrow(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = $1", game_id)
            if game is None:
                raise GameNotFound(game_id)
            seats = await db.fetch(
                f"SELECT {_SEAT_COLUMNS} FROM seats WHERE game_id = $1 ORDER BY seat", game_id
            )
        return decode_game(game, seats, _read_time)

    async def list_games(self, statuses: Collection[GameStatus] | None = None) -> list[GameRecord]:
        wanted = None if statuses is None else [GameStatus(s).value for s in statuses]
        where = "WHERE $1::text[] IS NULL OR status = ANY($1::text[])"
        async with self._connection("listing games") as db:
            games = await db.fetch(f"SELECT {_GAME_COLUMNS} FROM games {where} ORDER BY id", wanted)
            seats = await db.fetch(
                f"SELECT {_SEAT_COLUMNS} FROM seats WHERE game_id IN (SELECT id FROM games {where})"
                " ORDER BY game_id, seat",
                wanted,
            )
        by_game: dict[int, list[asyncpg.Record]] = {}
        for seat in seats:
            by_game.setdefault(seat["game_id"], []).append(seat)
        return [decode_game(game, by_game.get(game["id"], []), _read_time) for game in games]

    async def active_game_in_channel(self, channel_id: str) -> GameRecord | None:
        async with self._connection(f"looking up channel {channel_id}") as db:
            game_id = await db.fetchval(
                "SELECT id FROM games WHERE channel_id = $1 AND status = ANY($2::text[])",
                channel_id, _ACTIVE,
            )
        return None if game_id is None else await self.get_game(game_id)

    async def set_status(self, game_id: int, status: GameStatus) -> None:
        async with self._transaction(f"setting game {game_id} {status}") as db:
            await _set_status(db, game_id, status)

    async def set_engine_version(self, game_id: int, version: int) -> None:
        async with self._transaction(f"recording game {game_id}'s engine version") as db:
            updated = await db.fetchval(
                "UPDATE games SET engine_version = $1 WHERE id = $2 RETURNING id", version, game_id
            )
        if updated is None:
            raise GameNotFound(game_id)

    async def last_seq(self, game_id: int) -> int:
        async with self._connection(f"reading game {game_id}") as db:
            return await _last_seq(db, game_id)

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
            await _check_request_keys(db, events)
            last = await _last_seq(db, game_id, lock=True)
            if last != expected_seq:
                raise AppendConflict(game_id, expected_seq, last)
            stored = await _insert_events(db, game_id, last, events, actions, now)
            if seats is not None:
                await _replace_seats(db, game_id, seats)
            if status is not None:
                await _set_status(db, game_id, status)
            await db.executemany(
                "INSERT INTO outbox (game_id, payload, created_at) VALUES ($1, $2, $3)",
                [(game_id, post, now) for post in posts],
            )
        return stored

    async def events(self, game_id: int, after_seq: int = 0) -> list[Event]:
        async with self._connection(f"reading game {game_id}'s events") as db:
            rows = await db.fetch(
                "SELECT seq, kind, action, actor, created_at, note, state_hash, request_key FROM events"
                " WHERE game_id = $1 AND seq > $2 ORDER BY seq",
                game_id, after_seq,
            )
            if not rows:
                await _last_seq(db, game_id)  # raises GameNotFound
        return [decode_event(game_id, after_seq + i, row, _read_time) for i, row in enumerate(rows, 1)]

    async def outbox_add(self, game_id: int, payload: dict[str, Any]) -> int:
        post = to_json(payload)
        async with self._transaction(f"queueing a post for game {game_id}") as db:
            await _last_seq(db, game_id)  # raises GameNotFound
            message_id: int = await db.fetchval(
                "INSERT INTO outbox (game_id, payload, created_at) VALUES ($1, $2, $3) RETURNING id",
                game_id, post, utc_now(),
            )
        return message_id

    async def outbox_unsent(
        self, limit: int | None = 100, after_id: int = 0, *, game_id: int | None = None
    ) -> list[OutboxMessage]:
        async with self._connection("reading the outbox") as db:
            rows = await db.fetch(
                "SELECT id, game_id, payload, created_at FROM outbox WHERE sent_at IS NULL"
                " AND id > $2 AND ($3::bigint IS NULL OR game_id = $3) ORDER BY id LIMIT $1",
                limit, after_id, game_id,
            )
        return [decode_post(row, _read_time) for row in rows]

    async def outbox_mark_sent(self, message_id: int) -> None:
        async with self._transaction(f"marking post {message_id} sent") as db:
            known = await db.fetchval(
                "UPDATE outbox SET sent_at = COALESCE(sent_at, $1) WHERE id = $2 RETURNING id",
                utc_now(), message_id,
            )
        if known is None:
            raise StoreError(f"there is no outbox message {message_id}")

    async def put_snapshot(self, game_id: int, snapshot: Snapshot) -> None:
        async with self._transaction(f"saving a snapshot of game {game_id}") as db:
            await _last_seq(db, game_id)  # raises GameNotFound
            await db.execute(
                "INSERT INTO snapshots (game_id, engine_version, seq, state_hash, data, created_at)"
                " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (game_id, engine_version) DO UPDATE"
                " SET seq = EXCLUDED.seq, state_hash = EXCLUDED.state_hash, data = EXCLUDED.data,"
                " created_at = EXCLUDED.created_at",
                game_id, snapshot.engine_version, snapshot.seq, snapshot.state_hash, snapshot.data, utc_now(),
            )

    async def get_snapshot(self, game_id: int, engine_version: int) -> Snapshot | None:
        async with self._connection(f"reading game {game_id}'s snapshot") as db:
            row = await db.fetchrow(
                "SELECT seq, state_hash, data FROM snapshots WHERE game_id = $1 AND engine_version = $2",
                game_id, engine_version,
            )
        return None if row is None else Snapshot(row["seq"], engine_version, row["state_hash"], bytes(row["data"]))

    async def claim_game(self, game_id: int, owner: str, lease: timedelta = CLAIM_LEASE) -> bool:
        async with self._transaction(f"claiming game {game_id}") as db:
            await _last_seq(db, game_id)  # raises GameNotFound
            claimed = await db.fetchval(
                "INSERT INTO claims (game_id, owner, expires_at)"
                " VALUES ($1, $2, clock_timestamp() + $3::interval)"
                " ON CONFLICT (game_id) DO UPDATE"
                " SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at"
                " WHERE claims.owner = EXCLUDED.owner OR claims.expires_at < clock_timestamp()"
                " RETURNING game_id",
                game_id, owner, lease,
            )
        return claimed is not None

    async def release_claims(self, owner: str) -> None:
        async with self._transaction(f"releasing the claims of {owner}") as db:
            await db.execute("DELETE FROM claims WHERE owner = $1", owner)

    async def restore_game(
        self, record: GameRecord, events: Sequence[Event], outbox: Sequence[OutboxMessage] = ()
    ) -> None:
        check_seats(record.seats)
        async with self._transaction(f"restoring game {record.id}") as db:
            if await db.fetchval("SELECT 1 FROM games WHERE id = $1", record.id):
                raise StoreError(f"game {record.id} is already in {safe_url(self.url)}")
            await db.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                record.id, record.title, to_json(record.options), record.seed, record.guild_id,
                record.channel_id, record.created_by, record.status.value, record.engine_version,
                record.created_at,
            )
            await _replace_seats(db, record.id, record.seats)
            await _write_events(db, events)
            await db.executemany(
                "INSERT INTO outbox (id, game_id, payload, created_at, sent_at) VALUES ($1, $2, $3, $4, $5)",
                [(m.id, record.id, to_json(m.payload), m.created_at, m.sent_at) for m in outbox],
            )
            for table in ("games", "outbox"):  # new ids continue after the restored ones
                await db.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                    f" GREATEST((SELECT MAX(id) FROM {table}), 1))"
                )

    async def copy_started(self) -> datetime | None:
        async with self._connection("reading the copy marker") as db:
            started: datetime | None = await db.fetchval("SELECT started_at FROM copy_marker")
        return started

    async def mark_copy(self, started: datetime | None) -> None:
        async with self._transaction("marking the copy") as db:
            await db.execute("DELETE FROM copy_marker")
            if started is not None:
                await db.execute("INSERT INTO copy_marker (id, started_at) VALUES (1, $1)", started)

    async def backup(self, path: str | Path) -> None:
        from .copy import copy_store
        from .sqlite import SqliteEventStore

        target = Path(path)
        if target.exists():
            raise StoreError(f"refusing to back up onto {target}: it exists")
        async with SqliteEventStore(target, accept_unfinished_copy=True) as copy, self.snapshot():
            report = await copy_store(self, copy)
            if report.problems:
                raise StoreError(f"the backup {target} lacks games: " + "; ".join(report.problems))
            await copy.mark_copy(None)


async def _last_seq(db: asyncpg.Connection, game_id: int, *, lock: bool = False) -> int:
    """The game's latest sequence number; with ``lock``, the game is held until commit."""
    found = await db.fetchval(
        "SELECT id FROM games WHERE id = $1" + (" FOR UPDATE" if lock else ""), game_id
    )
    if found is None:
        raise GameNotFound(game_id)
    last: int = await db.fetchval(
        "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = $1", game_id
    )
    return last


async def _check_channel_free(
    db: asyncpg.Connection, channel_id: str, except_game: int | None = None
) -> None:
    """Hold the channel until commit, then raise ChannelBusy if another game is active in it."""
    await db.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", _CHANNEL_LOCKS, channel_id)
    busy = await db.fetchval(
        "SELECT id FROM games WHERE channel_id = $1 AND status = ANY($2::text[])"
        " AND id IS DISTINCT FROM $3",
        channel_id, _ACTIVE, except_game,
    )
    if busy is not None:
        raise ChannelBusy(channel_id, busy)


async def _set_status(db: asyncpg.Connection, game_id: int, status: GameStatus) -> None:
    game = await db.fetchrow("SELECT channel_id FROM games WHERE id = $1 FOR UPDATE", game_id)
    if game is None:
        raise GameNotFound(game_id)
    if game["channel_id"] is not None and status in ACTIVE_STATUSES:
        await _check_channel_free(db, game["channel_id"], except_game=game_id)
    await db.execute("UPDATE games SET status = $1 WHERE id = $2", status.value, game_id)


async def _check_request_keys(db: asyncpg.Connection, events: Sequence[NewEvent]) -> None:
    """Raise DuplicateRequest if an event's request key is stored already. A request
    carried out at this moment by another connection is held until it commits."""
    for key in sorted({e.request_key for e in events if e.request_key is not None}):
        await db.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", _REQUEST_LOCKS, key)
        if await db.fetchval("SELECT 1 FROM events WHERE request_key = $1", key):
            raise DuplicateRequest(key)


async def _replace_seats(db: asyncpg.Connection, game_id: int, seats: Iterable[Seat]) -> None:
    await db.execute("DELETE FROM seats WHERE game_id = $1", game_id)
    await db.executemany(
        f"INSERT INTO seats ({_SEAT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)",
        [(game_id, s.seat, s.player_id, s.discord_user_id, s.display_name, s.commissioner)
         for s in seats],
    )


async def _insert_events(
    db: asyncpg.Connection,
    game_id: int,
    last_seq: int,
    events: Sequence[NewEvent],
    actions: Sequence[str],
    now: datetime,
) -> list[Event]:
    stored = [event.at(game_id, last_seq + i, now) for i, event in enumerate(events, 1)]
    await _write_events(db, stored, actions)
    return stored


async def _write_events(
    db: asyncpg.Connection, events: Sequence[Event], actions: Sequence[str] | None = None
) -> None:
    texts = actions if actions is not None else [to_json(e.action) for e in events]
    await db.executemany(
        "INSERT INTO events (game_id, seq, kind, action, actor, created_at, note, state_hash,"
        " request_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        [(e.game_id, e.seq, e.kind.value, text, e.actor, e.created_at, e.note, e.state_hash,
          e.request_key) for e, text in zip(events, texts, strict=True)],
    )


def _read_time(value: Any) -> datetime:
    if not isinstance(value, datetime):
        raise TypeError(f"not a time: {value!r:.40}")
    return value
