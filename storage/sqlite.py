"""The SQLite backend of the event store. All of Troika's SQL lives in this module.

One connection per store, in WAL mode with ``synchronous=FULL`` so an append is on
disk once acknowledged. Writes are ``BEGIN IMMEDIATE`` transactions, so several
processes may share the file. The schema is the numbered scripts in ``migrations/``,
applied in order at :meth:`SqliteEventStore.open` and recorded in ``schema_version``.
A large file is read for damage in the background (see :data:`FULL_CHECK_BYTES`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Collection, Iterator, Sequence
from contextlib import asynccontextmanager, closing, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiosqlite

from .codec import decode_event, decode_game, decode_post, migration_scripts, to_json
from .store import (
    ACTIVE_STATUSES,
    CLAIM_LEASE,
    AppendConflict,
    ChannelBusy,
    DatabaseAccess,
    DatabaseDamaged,
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

MIGRATIONS_DIR = Path(__file__).with_name("migrations")

FULL_CHECK_BYTES = 64 * 2**20
"""A database up to this size is read in full for damage (``PRAGMA quick_check``, about
4 s a GB) before use; a larger one is checked for being cut short at open and read in
full in the background, so Troika starts in seconds whatever the number of games."""

log = logging.getLogger("troika.storage")

_GAME_COLUMNS = (
    "id, title, options, seed, guild_id, channel_id, created_by, status, engine_version, created_at"
)
_SEAT_COLUMNS = "game_id, seat, player_id, discord_user_id, display_name, commissioner"
_ACTIVE = tuple(sorted(ACTIVE_STATUSES))
_ACTIVE_SQL = f"status IN ({', '.join('?' for _ in _ACTIVE)})"


class SqliteEventStore(EventStore):
    """An :class:`EventStore` in one SQLite file (``":memory:"`` for a throwaway one)."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 10_000, accept_unfinished_copy: bool = False) -> None:
        self.path = str(path)
        self._accept_unfinished_copy = accept_unfinished_copy
        self._busy_timeout_ms = busy_timeout_ms
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()  # one statement or transaction at a time on the connection
        self._full_check: asyncio.Task[None] | None = None

    async def open(self) -> None:
        if self._db is not None:
            return
        size = _check_file(self.path)
        connecting = aiosqlite.connect(self.path, isolation_level=None)
        try:
            self._db = await connecting
        except sqlite3.Error as exc:
            # aiosqlite stops its worker thread without waiting: wait, or it outlives the event loop
            await asyncio.to_thread(connecting._thread.join, 5)
            raise _access_problem(self.path, exc) or StoreError(f"cannot open the database {self.path}: {exc}") from exc
        self._db.row_factory = sqlite3.Row
        try:
            async with self._connection(f"opening {self.path}") as db:
                await db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
                journal = await _scalar(db, "PRAGMA journal_mode = WAL")
                if journal != "wal" and self.path != ":memory:":
                    raise StoreError(f"{self.path}: cannot switch to WAL (journal mode {journal})")
                await db.execute("PRAGMA synchronous = FULL")
                await db.execute("PRAGMA foreign_keys = ON")
                await _check_schema(db, self.path, full=size <= FULL_CHECK_BYTES)
            await self._migrate()
            await self._check_writable()
            started = await self.copy_started()
            if started is not None and not self._accept_unfinished_copy:
                raise UnfinishedCopy(self.path, started)
        except StoreError as exc:
            await self.close()
            if type(exc.__cause__) is sqlite3.DatabaseError:  # corrupt, not merely busy
                raise DatabaseDamaged(f"the database {self.path} is damaged: {exc.__cause__}") from exc
            if isinstance(exc.__cause__, sqlite3.Error):
                raise _access_problem(self.path, exc.__cause__) or exc
            raise
        except BaseException:
            await self.close()
            raise
        if size > FULL_CHECK_BYTES:
            self._full_check = asyncio.create_task(_check_in_background(self.path))

    async def close(self) -> None:
        if self._full_check is not None:
            self._full_check.cancel()
        async with self._lock:
            db, self._db = self._db, None
            if db is not None:
                await db.close()

    @asynccontextmanager
    async def _connection(self, doing: str) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, exclusively, with driver errors turned into StoreError."""
        async with self._lock:
            if self._db is None:
                raise StoreError("the store is not open")
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise StoreError(f"database error while {doing}: {exc}") from exc

    @asynccontextmanager
    async def _transaction(self, doing: str) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction: committed if the block succeeds, else rolled back.

        The rollback is queued behind whatever statement a cancellation interrupted, and
        fails harmlessly if that statement was the commit."""
        async with self._connection(doing) as db:
            try:
                await db.execute("BEGIN IMMEDIATE")
                yield db
                await db.execute("COMMIT")
            except BaseException:
                with suppress(sqlite3.OperationalError):  # "no transaction is active"
                    await db.execute("ROLLBACK")
                raise

    async def _migrate(self) -> None:
        scripts = migration_scripts(MIGRATIONS_DIR)
        async with self._transaction("upgrading the database schema") as db:
            await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version"
                " (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            current = await _scalar(db, "SELECT COALESCE(MAX(version), 0) FROM schema_version")
            if current > len(scripts):
                raise StoreError(
                    f"the database {self.path} has schema version {current} but this Troika "
                    f"only knows up to {len(scripts)}; upgrade Troika"
                )
            for version, name, script in scripts[current:]:
                try:
                    for statement in _statements(script):
                        await db.execute(statement)
                except sqlite3.Error as exc:
                    raise StoreError(f"migration {name} failed: {exc}") from exc
                await db.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                    (version, _time(utc_now())),
                )

    async def _check_writable(self) -> None:
        """Write and roll back, so a database this user may only read is refused at
        start rather than failing every move later (SQLite opens it read-only quietly)."""
        async with self._connection(f"opening {self.path}") as db:
            await db.execute("BEGIN IMMEDIATE")
            try:
                await db.execute("INSERT INTO schema_version (version, applied_at) VALUES (0, 'write check')")
            finally:
                await db.execute("ROLLBACK")

    async def create_game(self, game: NewGame, events: Sequence[NewEvent] = ()) -> GameRecord:
        check_seats(game.seats)
        options = to_json(game.options)
        actions = [to_json(e.action) for e in events]
        now = utc_now()
        async with self._transaction(f"creating a game of {game.title}") as db:
            if game.channel_id is not None and game.status in ACTIVE_STATUSES:
                await _check_channel_free(db, game.channel_id)
            row = await db.execute_insert(
                "INSERT INTO games (title, options, seed, guild_id, channel_id, created_by,"
                " status, engine_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game.title, options, game.seed, game.guild_id, game.channel_id,
                 game.created_by, game.status.value, game.engine_version, _time(now)),
            )
            assert row is not None
            game_id = int(row[0])
            await _replace_seats(db, game_id, game.seats)
            await _check_request_keys(db, events)
            await _insert_events(db, game_id, 0, events, actions, now)
        return game.record(game_id, now)

    async def get_game(self, game_id: int) -> GameRecord:
        async with self._connection(f"reading game {game_id}") as db:
            games = await db.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            )
            if not games:
                raise GameNotFound(game_id)
            seats = await db.execute_fetchall(
                f"SELECT {_SEAT_COLUMNS} FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
            )
        return decode_game(next(iter(games)), seats, _parse_time)

    async def list_games(self, statuses: Collection[GameStatus] | None = None) -> list[GameRecord]:
        where = ""
        params: tuple[str, ...] = ()
        if statuses is not None:
            params = tuple(GameStatus(s).value for s in statuses)
            if not params:
                return []
            where = f"WHERE status IN ({', '.join('?' for _ in params)})"
        async with self._connection("listing games") as db:
            games = await db.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games {where} ORDER BY id", params
            )
            seats = await db.execute_fetchall(
                f"SELECT {_SEAT_COLUMNS} FROM seats WHERE game_id IN (SELECT id FROM games {where})"
                " ORDER BY game_id, seat",
                params,
            )
        by_game: dict[int, list[sqlite3.Row]] = {}
        for seat in seats:
            by_game.setdefault(seat["game_id"], []).append(seat)
        return [decode_game(game, by_game.get(game["id"], []), _parse_time) for game in games]

    async def active_game_in_channel(self, channel_id: str) -> GameRecord | None:
        async with self._connection(f"looking up channel {channel_id}") as db:
            game_id = await _scalar(
                db, f"SELECT id FROM games WHERE channel_id = ? AND {_ACTIVE_SQL}",
                (channel_id, *_ACTIVE),
            )
        return None if game_id is None else await self.get_game(game_id)

    async def set_status(self, game_id: int, status: GameStatus) -> None:
        async with self._transaction(f"setting game {game_id} {status}") as db:
            await _set_status(db, game_id, status)

    async def set_engine_version(self, game_id: int, version: int) -> None:
        async with (
            self._transaction(f"recording game {game_id}'s engine version") as db,
            db.execute(
                "UPDATE games SET engine_version = ? WHERE id = ?", (version, game_id)
            ) as cursor,
        ):
            if cursor.rowcount == 0:
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
            last = await _last_seq(db, game_id)
            if last != expected_seq:
                raise AppendConflict(game_id, expected_seq, last)
            stored = await _insert_events(db, game_id, last, events, actions, now)
            if seats is not None:
                await _replace_seats(db, game_id, seats)
            if status is not None:
                await _set_status(db, game_id, status)
            await db.executemany(
                "INSERT INTO outbox (game_id, payload, created_at) VALUES (?, ?, ?)",
                [(game_id, post, _time(now)) for post in posts],
            )
        return stored

    async def events(self, game_id: int, after_seq: int = 0) -> list[Event]:
        async with self._connection(f"reading game {game_id}'s events") as db:
            rows = await db.execute_fetchall(
                "SELECT seq, kind, action, actor, created_at, note, state_hash, request_key"
                " FROM events"
                " WHERE game_id = ? AND seq > ? ORDER BY seq",
                (game_id, after_seq),
            )
            if not rows:
                await _last_seq(db, game_id)  # raises GameNotFound
        return [decode_event(game_id, after_seq + i, row, _parse_time) for i, row in enumerate(rows, 1)]

    async def outbox_add(self, game_id: int, payload: dict[str, Any]) -> int:
        post = to_json(payload)
        async with self._transaction(f"queueing a post for game {game_id}") as db:
            await _last_seq(db, game_id)  # raises GameNotFound
            row = await db.execute_insert(
                "INSERT INTO outbox (game_id, payload, created_at) VALUES (?, ?, ?)",
                (game_id, post, _time(utc_now())),
            )
        assert row is not None
        return int(row[0])

    async def outbox_unsent(
        self, limit: int | None = 100, after_id: int = 0, *, game_id: int | None = None
    ) -> list[OutboxMessage]:
        async with self._connection("reading the outbox") as db:
            rows = await db.execute_fetchall(
                "SELECT id, game_id, payload, created_at FROM outbox"
                " WHERE sent_at IS NULL AND id > ? AND (? IS NULL OR game_id = ?) ORDER BY id LIMIT ?",
                (after_id, game_id, game_id, -1 if limit is None else limit),
            )
        return [decode_post(row, _parse_time) for row in rows]

    async def outbox_mark_sent(self, message_id: int) -> None:
        async with self._transaction(f"marking post {message_id} sent") as db:
            async with db.execute(
                "UPDATE outbox SET sent_at = ? WHERE id = ? AND sent_at IS NULL",
                (_time(utc_now()), message_id),
            ) as cursor:
                updated = cursor.rowcount
            if not updated and await _scalar(
                db, "SELECT COUNT(*) FROM outbox WHERE id = ?", (message_id,)
            ) == 0:
                raise StoreError(f"there is no outbox message {message_id}")

    async def put_snapshot(self, game_id: int, snapshot: Snapshot) -> None:
        async with self._transaction(f"saving a snapshot of game {game_id}") as db:
            await _last_seq(db, game_id)  # raises GameNotFound
            await db.execute(
                "INSERT OR REPLACE INTO snapshots (game_id, engine_version, seq, state_hash, data,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, snapshot.engine_version, snapshot.seq, snapshot.state_hash,
                 snapshot.data, _time(utc_now())),
            )

    async def get_snapshot(self, game_id: int, engine_version: int) -> Snapshot | None:
        async with self._connection(f"reading game {game_id}'s snapshot") as db:
            rows = list(await db.execute_fetchall(
                "SELECT seq, state_hash, data FROM snapshots WHERE game_id = ? AND engine_version = ?",
                (game_id, engine_version),
            ))
        if not rows:
            return None
        seq, digest, data = rows[0]
        if not (isinstance(seq, int) and isinstance(digest, str) and isinstance(data, bytes)):
            log.warning("game %s: its snapshot row is unreadable; not used", game_id)
            return None  # a cache: a row of the wrong types costs a full replay
        return Snapshot(seq, engine_version, digest, data)

    async def claim_game(self, game_id: int, owner: str, lease: timedelta = CLAIM_LEASE) -> bool:
        now = utc_now()
        async with self._transaction(f"claiming game {game_id}") as db:
            await _last_seq(db, game_id)  # raises GameNotFound
            claimed = await _scalar(
                db,
                "INSERT INTO claims (game_id, owner, expires_at) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE"
                " SET owner = excluded.owner, expires_at = excluded.expires_at"
                " WHERE claims.owner = excluded.owner OR claims.expires_at < ?"
                " RETURNING game_id",
                (game_id, owner, _time(now + lease), _time(now)),
            )
        return claimed is not None

    async def release_claims(self, owner: str) -> None:
        async with self._transaction(f"releasing the claims of {owner}") as db:
            await db.execute("DELETE FROM claims WHERE owner = ?", (owner,))

    async def restore_game(
        self, record: GameRecord, events: Sequence[Event], outbox: Sequence[OutboxMessage] = ()
    ) -> None:
        check_seats(record.seats)
        async with self._transaction(f"restoring game {record.id}") as db:
            if await _scalar(db, "SELECT 1 FROM games WHERE id = ?", (record.id,)):
                raise StoreError(f"game {record.id} is already in {self.path}")
            await db.execute(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record.id, record.title, to_json(record.options), record.seed, record.guild_id,
                 record.channel_id, record.created_by, record.status.value,
                 record.engine_version, _time(record.created_at)),
            )
            await _replace_seats(db, record.id, record.seats)
            await db.executemany(
                "INSERT INTO events (game_id, seq, kind, action, actor, created_at, note, state_hash,"
                " request_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(record.id, e.seq, e.kind.value, to_json(e.action), e.actor, _time(e.created_at),
                  e.note, e.state_hash, e.request_key) for e in events],
            )
            await db.executemany(
                "INSERT INTO outbox (id, game_id, payload, created_at, sent_at) VALUES (?, ?, ?, ?, ?)",
                [(m.id, record.id, to_json(m.payload), _time(m.created_at),
                  None if m.sent_at is None else _time(m.sent_at)) for m in outbox],
            )

    async def copy_started(self) -> datetime | None:
        async with self._connection("reading the copy marker") as db:
            started = await _scalar(db, "SELECT started_at FROM copy_marker")
        return None if started is None else _parse_time(started)

    async def mark_copy(self, started: datetime | None) -> None:
        async with self._transaction("marking the copy") as db:
            await db.execute("DELETE FROM copy_marker")
            if started is not None:
                await db.execute("INSERT INTO copy_marker (id, started_at) VALUES (1, ?)", (_time(started),))

    async def backup(self, path: str | Path) -> None:
        target = Path(path)
        if self.path != ":memory:" and target.resolve() == Path(self.path).resolve():
            raise StoreError("refusing to back up the database onto itself")
        async with self._connection(f"backing up to {target}") as db:
            copy = await aiosqlite.connect(target, check_same_thread=False)
            try:
                await db.backup(copy)
            finally:
                await copy.close()


_ACCESS_CODES = {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH}


def _access_problem(path: str, exc: sqlite3.Error) -> StoreError | None:
    """A driver error that says this user may not open or write the database, named as such."""
    if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in _ACCESS_CODES:
        return None
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        return StoreError(f"cannot open the database {path}: there is no folder {folder}/")
    return DatabaseAccess(
        f"the database {path} is not writable by this user ({exc}): the bot needs to read and write the file "
        f"and to create files beside it in {folder}/"
    )


def _check_file(path: str) -> int:
    """Refuse a file that exists but cannot be a Troika database, before SQLite would
    quietly treat it as a new one, or that is shorter than its header says; its size."""
    if path == ":memory:" or path.startswith("file:"):
        return 0
    file = Path(path)
    if not file.exists():
        return 0
    size = file.stat().st_size
    if size == 0:
        raise StoreError(f"the database {path} is empty (0 bytes): it is damaged or not Troika's")
    with file.open("rb") as handle:
        header = handle.read(100)
    if header[:16] != b"SQLite format 3\x00":
        raise StoreError(f"{path} is not a database (file is not a database)")
    page_size = int.from_bytes(header[16:18], "big")
    length = (65536 if page_size == 1 else page_size) * int.from_bytes(header[28:32], "big")
    if header[92:96] == header[24:28] and size < length:  # the header's page count is current
        # A checkpoint writes page 1 (the new size) before the pages that extend the file: a
        # crash or a full disk there leaves the file short while its -wal holds every page.
        problems = _quick_check(path)
        if problems != ["ok"]:
            raise DatabaseDamaged(f"the database {path} is damaged: it is cut short ({size} of {length} bytes)"
                                  f" and SQLite finds {problems[0]}")
    return size


async def _check_schema(db: aiosqlite.Connection, path: str, *, full: bool) -> None:
    """Refuse a damaged database (with ``full``, after reading all of it) or another
    program's one; a new, empty one is fine."""
    try:
        problems = [row[0] for row in await db.execute_fetchall("PRAGMA quick_check")] if full else ["ok"]
    except sqlite3.DatabaseError as exc:
        raise DatabaseDamaged(f"the database {path} is damaged: {exc}") from exc
    if problems != ["ok"]:
        raise DatabaseDamaged(f"the database {path} is damaged: {problems[0]}")
    tables = {row[0] for row in await db.execute_fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )}
    if tables and "schema_version" not in tables:
        raise StoreError(f"the database {path} is not Troika's (it has tables "
                         f"{', '.join(sorted(tables)[:5])} but no schema_version)")


async def _check_in_background(path: str) -> None:
    """Read all of a large database, on a connection of its own, and log any damage."""
    problems = await asyncio.to_thread(_quick_check, path)
    if problems != ["ok"]:
        log.error("the database %s is damaged: %s; stop Troika and copy a backup made with "
                  "`troika backup` over it", path, problems[0])


def _quick_check(path: str) -> list[str]:
    try:
        with closing(sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)) as db:
            return [row[0] for row in db.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]


def _statements(script: str) -> Iterator[str]:
    """Split an SQL script into complete statements (triggers included)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
    if pending.strip():
        yield pending


async def _scalar(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
    rows = list(await db.execute_fetchall(sql, params))
    return rows[0][0] if rows else None


async def _last_seq(db: aiosqlite.Connection, game_id: int) -> int:
    rows = list(await db.execute_fetchall(
        "SELECT (SELECT MAX(seq) FROM events WHERE game_id = ?),"
        " EXISTS (SELECT 1 FROM games WHERE id = ?)",
        (game_id, game_id),
    ))
    last, exists = rows[0]
    if not exists:
        raise GameNotFound(game_id)
    return int(last or 0)


async def _check_channel_free(
    db: aiosqlite.Connection, channel_id: str, except_game: int | None = None
) -> None:
    busy = await _scalar(
        db, f"SELECT id FROM games WHERE channel_id = ? AND {_ACTIVE_SQL} AND id IS NOT ?",
        (channel_id, *_ACTIVE, except_game),
    )
    if busy is not None:
        raise ChannelBusy(channel_id, busy)


async def _set_status(db: aiosqlite.Connection, game_id: int, status: GameStatus) -> None:
    games = list(await db.execute_fetchall("SELECT channel_id FROM games WHERE id = ?", (game_id,)))
    if not games:
        raise GameNotFound(game_id)
    channel_id = games[0]["channel_id"]
    if channel_id is not None and status in ACTIVE_STATUSES:
        await _check_channel_free(db, channel_id, except_game=game_id)
    await db.execute("UPDATE games SET status = ? WHERE id = ?", (status.value, game_id))


async def _check_request_keys(db: aiosqlite.Connection, events: Sequence[NewEvent]) -> None:
    for key in {e.request_key for e in events if e.request_key is not None}:
        if await _scalar(db, "SELECT 1 FROM events WHERE request_key = ?", (key,)):
            raise DuplicateRequest(key)


async def _replace_seats(db: aiosqlite.Connection, game_id: int, seats: Sequence[Seat]) -> None:
    await db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
    await db.executemany(
        f"INSERT INTO seats ({_SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
        [(game_id, s.seat, s.player_id, s.discord_user_id, s.display_name, int(s.commissioner))
         for s in seats],
    )


async def _insert_events(
    db: aiosqlite.Connection,
    game_id: int,
    last_seq: int,
    events: Sequence[NewEvent],
    actions: Sequence[str],
    now: datetime,
) -> list[Event]:
    stored = [event.at(game_id, last_seq + i, now) for i, event in enumerate(events, 1)]
    await db.executemany(
        "INSERT INTO events (game_id, seq, kind, action, actor, created_at, note, state_hash,"
        " request_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(e.game_id, e.seq, e.kind.value, action, e.actor, _time(e.created_at), e.note,
          e.state_hash, e.request_key) for e, action in zip(stored, actions, strict=True)],
    )
    return stored


def _time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _parse_time(text: Any) -> datetime:
    if not isinstance(text, str):
        raise TypeError(f"not a time: {text!r:.40}")
    return datetime.fromisoformat(text)
