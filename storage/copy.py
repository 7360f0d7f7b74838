"""Copying a whole store into another (``troika migrate``, PostgreSQL backups), and
proving a copy: the same records, events and pending posts, and every game replaying
to the same state on both sides."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .repository import EngineAdapter, GameRepository, state_hash
from .store import CorruptEvent, Event, EventStore, GameRecord, OutboxMessage, StoreError, utc_now


@dataclass
class CopyReport:
    """What a copy moved, and (after :func:`verify_copy`) how many games replayed."""

    games: int = 0
    events: int = 0
    posts: int = 0
    replayed: int = 0
    kept: int = 0
    """Games already in the target from an unfinished copy, left as they are."""
    problems: list[str] = field(default_factory=list)


def store_at(location: str | Path, *, accept_unfinished_copy: bool = False, read_only: bool = False) -> EventStore:
    """The store a location names: a ``postgresql://`` URL, else a SQLite file given as
    a path or ``sqlite:PATH``; ``read_only``, opened only to read (on a read-only disk or
    login). A PostgreSQL password may come from the file named by
    ``TROIKA_DB_PASSWORD_FILE`` rather than the URL."""
    from .postgres import PostgresEventStore, is_postgres_url
    from .sqlite import SqliteEventStore

    text = str(location)
    problem = unknown_location(text)
    if problem is not None:
        raise StoreError(problem)
    if is_postgres_url(text):
        secret = os.environ.get("TROIKA_DB_PASSWORD_FILE", "").strip()
        try:
            password = Path(secret).read_text(encoding="utf-8").strip() if secret else None
        except (OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"cannot read TROIKA_DB_PASSWORD_FILE {secret}: "
                             f"{getattr(exc, 'strerror', None) or exc}") from exc
        return PostgresEventStore(text, password=password, accept_unfinished_copy=accept_unfinished_copy,
                                  read_only=read_only)
    return SqliteEventStore(text.removeprefix("sqlite:") or "troika.db", accept_unfinished_copy=accept_unfinished_copy,
                            read_only=read_only)


def unknown_location(location: str | Path) -> str | None:
    """Why ``location`` names no database Troika knows, if it does not (any password in
    it masked): a URL of another scheme, or a libpq ``key=value`` string, which would
    otherwise be taken for a file's name."""
    from .postgres import is_keyword_string, is_postgres_url, is_url, safe_url

    text = str(location)
    if is_keyword_string(text):
        return (f"{safe_url(text)} is a key=value connection string, which Troika does not read: give a "
                "postgresql://USER@HOST:PORT/DATABASE URL, the password in the file TROIKA_DB_PASSWORD_FILE names")
    if is_url(text) and not is_postgres_url(text):
        return f"{safe_url(text)} is not a database Troika knows: give a SQLite file or a postgresql:// URL"
    return None


async def copy_store(source: EventStore, target: EventStore) -> CopyReport:
    """Copy every game (record, seats, events) and every pending post of ``source`` into
    ``target``, ids and times kept, one game per transaction. ``target`` must hold no
    games, or be the target of an unfinished copy (whose games are kept, the rest
    follow). It is marked as a copy under way until :meth:`EventStore.mark_copy` with
    None, which the caller does once the copy is proved; opened otherwise, it refuses.

    A game with a row that cannot be copied as it is (unreadable, or a NUL character
    where the target cannot hold one) is not copied: the report names each such row."""
    started = await target.copy_started()
    if started is None and await target.list_games():
        raise StoreError("the target already holds games; copy into an empty database")
    await target.mark_copy(started or utc_now())
    kept = {record.id for record in await target.list_games()}
    pending: dict[int, list[OutboxMessage]] = {}
    for message in await source.outbox_unsent(limit=None):
        pending.setdefault(message.game_id, []).append(message)
    report = CopyReport()
    for record in await source.list_games():
        if record.id in kept:
            report.kept += 1
            continue
        posts = pending.get(record.id, [])
        try:
            events = await source.events(record.id)
        except CorruptEvent as exc:
            report.problems.append(f"game {record.id}, event {exc.seq}: {exc.reason}")
            continue
        unfit = list(_unfit_rows(record, events, posts, nul=target.refuses_nul))
        if unfit:
            report.problems += unfit
            continue
        await target.restore_game(record, events, posts)
        report.games += 1
        report.events += len(events)
        report.posts += len(posts)
    return report


def _unfit_rows(
    record: GameRecord, events: Sequence[Event], posts: Sequence[OutboxMessage], *, nul: bool
) -> Iterator[str]:
    """The rows of a game that cannot be copied as they are, each named."""
    if record.problem is not None:
        yield f"game {record.id}: {record.problem}"
    for post in posts:
        if post.problem is not None:
            yield f"game {record.id}, post {post.id}: {post.problem}"
    if not nul:
        return
    # JSON columns write a NUL as the escape \u0000; plain text columns hold it as it is
    where = [("its record", [record.title, record.created_by, record.guild_id, record.channel_id])]
    where += [(f"seat {s.seat}", [s.player_id, s.display_name, s.discord_user_id]) for s in record.seats]
    where += [(f"event {e.seq}", [e.actor, e.note, e.request_key, e.state_hash]) for e in events]
    for row, texts in where:
        if any("\0" in text for text in texts if text):
            yield f"game {record.id}, {row}: it holds a NUL character, which the target cannot store"


async def verify_copy(source: EventStore, target: EventStore, engine: EngineAdapter) -> CopyReport:
    """Compare ``target`` with ``source`` game by game, replaying each on both sides;
    the report lists every difference found (none for a faithful copy)."""
    report = CopyReport()
    targets = {record.id: record for record in await target.list_games()}
    for record in await source.list_games():
        report.games += 1
        copied = targets.pop(record.id, None)
        if copied != record:
            report.problems.append(f"game {record.id}: its record differs or is missing")
            continue
        events = await source.events(record.id)
        report.events += len(events)
        if await target.events(record.id) != events:
            report.problems.append(f"game {record.id}: its events differ")
            continue
        before, after = await _replayed(source, record.id, engine), await _replayed(target, record.id, engine)
        if before != after:
            report.problems.append(f"game {record.id}: replays to {after} on the copy, {before} on the original")
        elif not before.startswith("refused"):
            report.replayed += 1
    report.problems += [f"game {game_id}: only in the copy" for game_id in targets]
    posts = [(m.id, m.game_id, m.payload) for m in await source.outbox_unsent(limit=None)]
    report.posts = len(posts)
    if [(m.id, m.game_id, m.payload) for m in await target.outbox_unsent(limit=None)] != posts:
        report.problems.append("the pending posts differ")
    return report


async def _replayed(store: EventStore, game_id: int, engine: EngineAdapter) -> str:
    """The state a fresh replay of the game reaches (its hash), or why it is refused."""
    try:
        live = await GameRepository(store, engine, cache_size=1).load(game_id)
    except CorruptEvent as exc:
        return f"refused: {exc}"
    return f"state {state_hash(engine.dump(live.game))[:12]}"
