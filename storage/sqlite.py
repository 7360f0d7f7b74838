"""The SQLite dialect of the event store (:mod:`storage.sql` holds its logic).

One connection per store, in WAL mode with ``synchronous=FULL`` so an append is on
disk once acknowledged. Writes are ``BEGIN IMMEDIATE`` transactions, so several
processes may share the file and no row locks are needed. Times are ISO-8601 UTC text.
The schema is the numbered scripts in ``migrations/``, applied in order at
:meth:`SqliteEventStore.open` and recorded in ``schema_version``. A large file is read
for damage in the background (see :data:`FULL_CHECK_BYTES`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager, closing, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import aiosqlite

from .codec import Row
from .sql import Db, SqlEventStore
from .store import DatabaseAccess, DatabaseDamaged, StoreError, utc_now

MIGRATIONS_DIR = Path(__file__).with_name("migrations")

FULL_CHECK_BYTES = 64 * 2**20
"""A database up to this size is read in full for damage (``PRAGMA quick_check``, about
4 s a GB) before use; a larger one is checked for being cut short at open and read in
full in the background, so Troika starts in seconds whatever the number of games."""

log = logging.getLogger("troika.storage")


class _Connection:
    """An aiosqlite connection as :class:`storage.sql.Db`."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        """The rows, each read by column name (sqlite3.Row)."""
        return cast(list[Row], list(await self.db.execute_fetchall(sql, args)))

    async def fetchval(self, sql: str, *args: Any) -> Any:
        """The first column of the first row, or None."""
        async with self.db.execute(sql, args) as cursor:
            row = await cursor.fetchone()
        return row[0] if row else None

    async def execute(self, sql: str, *args: Any) -> None:
        await self.db.execute_fetchall(sql, args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.db.executemany(sql, rows)


class SqliteEventStore(SqlEventStore):
    """An :class:`EventStore` in one SQLite file (``":memory:"`` for a throwaway one)."""

    reads_older_schemas = True

    def __init__(
        self, path: str | Path, *, busy_timeout_ms: int = 10_000, accept_unfinished_copy: bool = False,
        read_only: bool = False,
    ) -> None:
        super().__init__(accept_unfinished_copy=accept_unfinished_copy, read_only=read_only)
        self.path = str(path)
        self._busy_timeout_ms = busy_timeout_ms
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()  # one statement or transaction at a time on the connection
        self._full_check: asyncio.Task[None] | None = None

    @property
    def location(self) -> str:
        return self.path

    async def open(self) -> None:
        if self._db is not None:
            return
        if self.read_only and self.path != ":memory:":
            if not Path(self.path).exists():
                raise StoreError(f"there is no database at {self.path}")
            uri = await asyncio.to_thread(_read_only_uri, self.path)
            size = _check_file(self.path, uri)
            connecting = aiosqlite.connect(uri, isolation_level=None, uri=True)
        else:
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
                if self.read_only:
                    await db.execute("PRAGMA query_only = ON")
                else:
                    journal = await db.fetchval("PRAGMA journal_mode = WAL")
                    if journal != "wal" and self.path != ":memory:":
                        raise StoreError(f"{self.path}: cannot switch to WAL (journal mode {journal})")
                    await db.execute("PRAGMA synchronous = FULL")
                    await db.execute("PRAGMA foreign_keys = ON")
                await _check_schema(db, self.path, full=size <= FULL_CHECK_BYTES)
            await self._prepare(MIGRATIONS_DIR, "TEXT")
            if not self.read_only:
                await self._check_writable()
        except StoreError as exc:
            await self.close()
            if type(exc.__cause__) is sqlite3.DatabaseError:  # corrupt, not merely busy
                raise DatabaseDamaged(f"the database {self.path} is damaged: {exc.__cause__}") from exc
            access = _access_problem(self.path, exc.__cause__) if isinstance(exc.__cause__, sqlite3.Error) else None
            if access is not None:
                raise access from exc
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
    async def _connection(self, doing: str) -> AsyncIterator[Db]:
        """The connection, exclusively, with driver errors turned into StoreError."""
        async with self._lock:
            if self._db is None:
                raise StoreError("the store is not open")
            try:
                yield _Connection(self._db)
            except sqlite3.Error as exc:
                raise StoreError(f"database error while {doing}: {exc}") from exc

    @asynccontextmanager
    async def _transaction(self, doing: str) -> AsyncIterator[Db]:
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

    async def _run_migration(self, db: Db, script: str) -> None:
        for statement in _statements(script):
            await db.execute(statement)

    async def _check_writable(self) -> None:
        """Write and roll back, so a database this user may only read is refused at
        start rather than failing every move later (SQLite opens it read-only quietly)."""
        async with self._connection(f"opening {self.path}") as db:
            await db.execute("BEGIN IMMEDIATE")
            try:
                await db.execute("INSERT INTO schema_version (version, applied_at) VALUES (0, 'write check')")
            finally:
                await db.execute("ROLLBACK")

    def _time(self, moment: datetime) -> str:
        return _time(moment)

    def _read_time(self, value: Any) -> datetime:
        return _parse_time(value)

    async def _claim(self, db: Db, game_id: int, owner: str, lease: timedelta) -> bool:
        now = utc_now()  # the processes sharing a SQLite file share this machine's clock
        claimed = await db.fetchval(
            "INSERT INTO claims (game_id, owner, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at"
            " WHERE claims.owner = excluded.owner OR claims.expires_at < ?"
            " RETURNING game_id",
            game_id, owner, _time(now + lease), _time(now),
        )
        return claimed is not None

    async def backup(self, path: str | Path) -> None:
        target = Path(path)
        if self.path != ":memory:" and target.resolve() == Path(self.path).resolve():
            raise StoreError("refusing to back up the database onto itself")
        async with self._lock:
            if self._db is None:
                raise StoreError("the store is not open")
            try:
                copy = await aiosqlite.connect(target, check_same_thread=False)
                try:
                    await self._db.backup(copy)
                finally:
                    await copy.close()
            except sqlite3.Error as exc:
                raise StoreError(f"database error while backing up to {target}: {exc}") from exc


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


def _read_only_uri(path: str) -> str:
    """The URI that opens ``path`` only to read: ``mode=ro``, or ``immutable=1`` where
    SQLite cannot make the ``-shm`` file a WAL database needs (a read-only disk) and no
    ``-wal`` file holds changes that immutable reading would not see."""
    base = Path(path).resolve().as_uri()
    try:
        with closing(sqlite3.connect(f"{base}?mode=ro", uri=True)) as db:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()
        return f"{base}?mode=ro"
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF not in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY):
            return f"{base}?mode=ro"  # the open that follows names what is wrong
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise DatabaseAccess(
            f"the database {path} cannot be read here: its latest changes are in {wal.name}, which SQLite reads "
            f"only with {Path(path).name}-shm beside it, and it cannot make that file (a read-only disk?); copy "
            f"{Path(path).name} and {wal.name} to a writable folder and read the copy"
        )
    return f"{base}?immutable=1"


def _check_file(path: str, uri: str | None = None) -> int:
    """Refuse a file that exists but cannot be a Troika database, before SQLite would
    quietly treat it as a new one, or that is shorter than its header says (read, if
    need be, through ``uri``); its size."""
    if path == ":memory:" or path.startswith("file:"):
        return 0
    file = Path(path)
    if not file.exists():
        return 0
    size = file.stat().st_size
    if size == 0:
        raise StoreError(f"the database {path} is empty (0 bytes): it is damaged or not Troika's")
    try:
        with file.open("rb") as handle:
            header = handle.read(100)
    except PermissionError as exc:
        raise DatabaseAccess(f"the database {path} is not readable by this user ({exc.strerror}): the bot needs to "
                             "read and write the file and to create files beside it") from exc
    if header[:16] != b"SQLite format 3\x00":
        raise StoreError(f"{path} is not a database (file is not a database)")
    page_size = int.from_bytes(header[16:18], "big")
    length = (65536 if page_size == 1 else page_size) * int.from_bytes(header[28:32], "big")
    if header[92:96] == header[24:28] and size < length:  # the header's page count is current
        # A checkpoint writes page 1 (the new size) before the pages that extend the file: a
        # crash or a full disk there leaves the file short while its -wal holds every page.
        problems = _quick_check(path, uri)
        if problems != ["ok"]:
            raise DatabaseDamaged(f"the database {path} is damaged: it is cut short ({size} of {length} bytes)"
                                  f" and SQLite finds {problems[0]}")
    return size


async def _check_schema(db: Db, path: str, *, full: bool) -> None:
    """Refuse a damaged database (with ``full``, after reading all of it) or another
    program's one; a new, empty one is fine."""
    try:
        problems = [row["quick_check"] for row in await db.fetch("PRAGMA quick_check")] if full else ["ok"]
    except sqlite3.DatabaseError as exc:
        raise DatabaseDamaged(f"the database {path} is damaged: {exc}") from exc
    if problems != ["ok"]:
        raise DatabaseDamaged(f"the database {path} is damaged: {problems[0]}")
    tables = {row["name"] for row in await db.fetch(
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


def _quick_check(path: str, uri: str | None = None) -> list[str]:
    try:
        with closing(sqlite3.connect(uri or Path(path).resolve().as_uri() + "?mode=ro", uri=True)) as db:
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


def _time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _parse_time(text: Any) -> datetime:
    if not isinstance(text, str):
        raise TypeError(f"not a time: {text!r:.40}")
    return datetime.fromisoformat(text)
