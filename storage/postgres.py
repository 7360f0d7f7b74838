"""The PostgreSQL dialect of the event store (asyncpg; :mod:`storage.sql` holds its logic),
for several bot processes.

It keeps the promises of :mod:`storage.sqlite` with a pool of connections whose
transactions overlap: an append locks its game's row (``FOR UPDATE``); creating or
reactivating a game in a channel, and writing a request key, hold advisory locks on
them; claims are timed by the server's clock. The schema is the numbered scripts in
``migrations_pg/``, applied under an advisory lock at :meth:`PostgresEventStore.open`.
A backup is a SQLite file holding the whole store as of one moment.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg

from .codec import Row
from .sql import Db, SqlEventStore
from .store import DatabaseAccess, StoreError

MIGRATIONS_DIR = Path(__file__).with_name("migrations_pg")
_POSTGRES_SCHEME = re.compile(r"^postgres(?:ql)?(?:\+\w+)?://", re.IGNORECASE)
"""``postgresql://``, ``postgres://``, in any capitals, with a driver suffix such as ``+asyncpg``."""
_URL_PASSWORD = re.compile(r"^(\w[\w+.-]*://[^:@/]*:).*(@)", re.DOTALL)
"""A URL's password: after the user name's colon, up to the last ``@``, whatever it holds
(people paste passwords with ``/``, ``?``, ``#`` or ``@`` in them unencoded)."""
_QUERY_PASSWORD = re.compile(r"([?&;][\w.-]*pass[\w.-]*=)[^&]*", re.IGNORECASE)
"""A query parameter naming a password or passphrase (``password``, ``sslpassword``)."""
_KEYWORD_PASSWORD = re.compile(r"(\b[\w.-]*pass[\w.-]*\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)", re.IGNORECASE)
"""A password in libpq's ``key=value`` form (``password=secret``, ``password='a b'``)."""
_KEYWORDS = re.compile(r"^\s*(host|hostaddr|port|dbname|user|password|passfile|sslmode|service)\s*=", re.IGNORECASE)

_MIGRATION_LOCK = 18611867  # advisory lock held while the schema is brought up to date
_DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)
_LOGIN_REFUSED = (asyncpg.InvalidAuthorizationSpecificationError, asyncpg.InvalidPasswordError)
_NOT_WRITABLE = (asyncpg.InsufficientPrivilegeError, asyncpg.ReadOnlySQLTransactionError)


def is_postgres_url(location: str | Path) -> bool:
    """Whether ``location`` names a PostgreSQL database rather than a SQLite file."""
    return bool(_POSTGRES_SCHEME.match(str(location)))


def is_url(location: str | Path) -> bool:
    """Whether ``location`` is written as a URL (``scheme://...``), whatever the scheme."""
    return re.match(r"^\w[\w+.-]*://", str(location)) is not None


def is_keyword_string(location: str | Path) -> bool:
    """Whether ``location`` is a libpq ``key=value`` connection string (``host=db
    user=bot password=...``), which Troika does not take: it is no file name."""
    return _KEYWORDS.match(str(location)) is not None


def safe_url(url: str) -> str:
    """The database's location without any password in it (in the address, as a query
    parameter, or as ``password=`` of a ``key=value`` string), fit for messages and logs;
    works on text too malformed to parse, whatever the password holds."""
    if not is_url(url):
        return _KEYWORD_PASSWORD.sub(r"\1***", url)
    return _QUERY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***\2", url))


def _driver_url(url: str) -> str:
    """The URL with the scheme asyncpg knows, and its password percent-encoded (so one
    pasted as it is, with ``/ ? # @ :`` in it, is read whole, not as the URL's parts)."""
    url = _POSTGRES_SCHEME.sub("postgresql://", url)
    found = _URL_PASSWORD.match(url)
    if found is None:
        return url
    password = found.group(0)[len(found.group(1)):-1]
    return found.group(1) + quote(password, safe="%") + url[found.end() - 1:]


@lru_cache(maxsize=256)
def _numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, ...``."""
    count = iter(range(1, sql.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(count)}", sql)


class _Connection:
    """An asyncpg connection as :class:`storage.sql.Db`."""

    def __init__(self, db: asyncpg.Connection) -> None:
        self.db = db

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return list(await self.db.fetch(_numbered(sql), *args))

    async def fetchval(self, sql: str, *args: Any) -> Any:
        return await self.db.fetchval(_numbered(sql), *args)

    async def execute(self, sql: str, *args: Any) -> None:
        await self.db.execute(_numbered(sql), *args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.db.executemany(_numbered(sql), rows)

    async def script(self, sql: str) -> None:
        """Run several statements as written (no placeholders)."""
        await self.db.execute(sql)


class PostgresEventStore(SqlEventStore):
    """An :class:`EventStore` in a PostgreSQL database, given by a ``postgresql://`` URL."""

    refuses_nul = True
    for_update = "FOR UPDATE"

    def __init__(
        self, url: str, *, password: str | None = None, max_connections: int = 8, accept_unfinished_copy: bool = False,
        read_only: bool = False,
    ) -> None:
        super().__init__(accept_unfinished_copy=accept_unfinished_copy, read_only=read_only)
        self.url = url
        self._password = password
        self._max_connections = max_connections
        self._pool: asyncpg.Pool | None = None
        self._pinned: ContextVar[asyncpg.Connection | None] = ContextVar("pinned", default=None)

    @property
    def location(self) -> str:
        return safe_url(self.url)

    async def open(self) -> None:
        if self._pool is not None:
            return
        try:
            self._pool = await asyncpg.create_pool(
                _driver_url(self.url), password=self._password, min_size=1, max_size=self._max_connections,
                command_timeout=60,
            )
        except _LOGIN_REFUSED as exc:
            raise DatabaseAccess(f"the server refuses the login to {self.location}: {self._scrub(exc)}"
                                 " (check the user and TROIKA_DB_PASSWORD_FILE)") from exc
        except (*_DRIVER_ERRORS, ValueError, OverflowError) as exc:  # a port over 65535, say
            raise StoreError(f"cannot open the database {self.location}: {self._scrub(exc)}") from exc
        try:
            await self._prepare(MIGRATIONS_DIR, "TIMESTAMPTZ")
            if not self.read_only:
                await self._check_writable()
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
        return DatabaseAccess(f"the database {self.location} is not writable by this login ({why}); "
                              "grant it INSERT and UPDATE on Troika's tables, on a server that is not read-only")

    def _scrub(self, error: BaseException) -> str:
        """The driver's message with any password in it masked."""
        text = safe_url(str(error))
        secrets = [self._password, *(m.group(0)[len(m.group(1)):] for m in _QUERY_PASSWORD.finditer(self.url)),
                   *(m.group(0)[len(m.group(1)):-1] for m in [_URL_PASSWORD.match(self.url)] if m)]
        secrets += [quote(secret, safe="%") for secret in secrets if secret]
        for secret in sorted(filter(None, secrets), key=len, reverse=True):
            text = text.replace(secret, "***")
        return text

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @asynccontextmanager
    async def _connection(self, doing: str) -> AsyncIterator[_Connection]:
        """A connection of the pool (or the snapshot's), driver errors turned into StoreError."""
        try:
            pinned = self._pinned.get()
            if pinned is not None:
                yield _Connection(pinned)
                return
            if self._pool is None:
                raise StoreError("the store is not open")
            async with self._pool.acquire() as db:
                yield _Connection(db)
        except _DRIVER_ERRORS as exc:
            raise StoreError(f"database error while {doing}: {exc}") from exc

    @asynccontextmanager
    async def _transaction(self, doing: str) -> AsyncIterator[_Connection]:
        """A write transaction: committed if the block succeeds, else rolled back."""
        async with self._connection(doing) as db, db.db.transaction():
            yield db

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        """Within the block, this task's reads all see the store as of one moment."""
        async with (
            self._connection("taking a snapshot") as db,
            db.db.transaction(isolation="repeatable_read", readonly=True),
        ):
            token = self._pinned.set(db.db)
            try:
                yield
            finally:
                self._pinned.reset(token)

    async def _lock_migrations(self, db: Db) -> None:
        await db.execute("SELECT pg_advisory_xact_lock(?)", _MIGRATION_LOCK)

    async def _run_migration(self, db: Db, script: str) -> None:
        assert isinstance(db, _Connection)
        await db.script(script)

    def _time(self, moment: datetime) -> datetime:
        return moment

    def _read_time(self, value: Any) -> datetime:
        if not isinstance(value, datetime):
            raise TypeError(f"not a time: {value!r:.40}")
        return value

    async def _hold(self, db: Db, lock_class: int, key: str) -> None:
        await db.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", lock_class, key)

    async def _now(self, db: Db) -> datetime:
        now: datetime = await db.fetchval("SELECT clock_timestamp()")
        return now

    async def _claim(self, db: Db, game_id: int, owner: str, lease: timedelta) -> bool:
        claimed = await db.fetchval(  # the server's clock: the processes may run on several machines
            "INSERT INTO claims (game_id, owner, expires_at) VALUES (?, ?, clock_timestamp() + ?::interval)"
            " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at"
            " WHERE claims.owner = excluded.owner OR claims.expires_at < clock_timestamp()"
            " RETURNING game_id",
            game_id, owner, lease,
        )
        return claimed is not None

    async def _after_restore(self, db: Db) -> None:
        for table in ("games", "outbox"):  # new ids continue after the restored ones
            await db.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                             f" GREATEST((SELECT MAX(id) FROM {table}), 1))")

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
