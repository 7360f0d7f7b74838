"""A throwaway PostgreSQL server for tests and ``troika bench``: ``initdb`` in a temporary
folder, started with ``pg_ctl`` on a Unix socket there (no TCP port), as the ``postgres``
user when run as root. Never for games: it is tuned for speed, not for surviving a crash."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SERVER_SETTINGS = ("-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
"""Tests kill clients, never the server, so it need not survive a power cut: no fsync."""


class Unavailable(Exception):
    """PostgreSQL cannot be run here; the message says why."""


def _binaries() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if versions:
        return Path(versions[-1]).parent
    raise Unavailable("PostgreSQL is not installed (`bash deploy/setup.sh` as root installs it)")


class PostgresServer:
    """A server of our own; :meth:`url` names a database in it. ``durable``: with
    PostgreSQL's default durability (fsync), for timing commits honestly."""

    def __init__(self, *, durable: bool = False) -> None:
        self.durable = durable
        self.bin = _binaries()
        self.root = Path(tempfile.mkdtemp(prefix="troika-pg-"))
        self.data = self.root / "data"
        self._user: str | None = None
        if os.geteuid() == 0:  # initdb refuses to run as root
            try:
                self._user = pwd.getpwnam("postgres").pw_name
            except KeyError:
                raise Unavailable("running as root, and there is no `postgres` user to run the server") from None
            shutil.chown(self.root, self._user)
        self.role = getpass.getuser() if self._user is None else self._user
        self._databases = 0

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", self._user, "--"] if self._user else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise Unavailable(f"{Path(command[0]).name} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.role,
                  "--no-sync", "-E", "UTF8", "--locale", "C")
        settings = ("-c", "max_connections=200") if self.durable else SERVER_SETTINGS
        options = " ".join(("-k", str(self.root), "-c", "listen_addresses=", *settings))
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l",
                  str(self.root / "server.log"), "-w", "-t", "60", "start")

    def stop(self) -> None:
        with contextlib.suppress(Unavailable):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.role}@/{database}?host={self.root}"

    def new_database(self) -> str:
        """A fresh, empty database; its URL. Safe to call inside or outside an event loop."""
        self._databases += 1
        name = f"troika_{os.getpid()}_{self._databases}"
        with ThreadPoolExecutor(1) as thread:  # a loop of its own, whatever the caller runs
            thread.submit(asyncio.run, self._create(name)).result()
        return self.url(name)

    async def _create(self, name: str) -> None:
        import asyncpg

        admin = await asyncpg.connect(self.url())
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            await admin.close()
