"""Idle games (issue 38): a running game with no move for a long while (60 days unless
`troika run --archive-after` says otherwise) is archived. It leaves `games` and the
reminders (the computer and timeouts leave it alone too) but stays readable: `status`,
`log`, the pictures and its web page. Moves wait until a seated player types
`unarchive`, which brings it back.

Idle means no move since: the time the decision now open fell due (a move, an undo
or redo, the start, a resume), read from the game's ledger, which is folded from its
event log.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from storage import GameRecord, Seat

from .clock import seconds_in, shown_duration
from .core import Core, Feature, Reply, handles, proxy_note
from .errors import Refusal
from .ledger import Ledger
from .posts import next_line

ARCHIVE_AFTER = timedelta(days=60)
"""How long a game may go without a move before it is archived, unless set."""

def read_archive_after(text: str) -> timedelta | None:
    """``60d``, ``12h``, ``90m`` (``off``: never archive), as `troika run
    --archive-after` takes it; anything else raises ValueError with the reason."""
    if text.strip().lower() in ("off", "never"):
        return None
    seconds = seconds_in(text)
    if not seconds:
        raise ValueError(f"write it as days, hours or minutes, more than 0 (60d, 12h, 90m) or off, not {text!r}")
    return timedelta(seconds=seconds)


def idle_since(record: GameRecord, ledger: Ledger) -> datetime:
    """When the game last moved (its start, a move, an undo or redo, a resume) or was
    brought back from the archive."""
    return max(ledger.turn_began or record.created_at, ledger.unarchived or record.created_at)


def archived_note(record: GameRecord) -> str:
    """What a move in an archived game is told (one line)."""
    when = f"{record.archived_at:%d %b %Y}" if record.archived_at else "earlier"
    return f"Game {record.id} was archived on {when} for want of moves: `unarchive` brings it back."


async def archive_if_idle(core: Core, record: GameRecord, ledger: Ledger, now: datetime) -> bool:
    """Archive the running game if it has not moved for the set time (the archiving
    logged and posted); whether it is archived, now or before."""
    if record.archived_at is not None:
        return True
    idle = now - idle_since(record, ledger)
    if core.archive_after is None or idle < core.archive_after:
        return False
    text = (f"📦 Game {record.id} has had no move for {shown_duration(idle.total_seconds())} and is archived: it "
            "leaves `games` and reminders; `status`, `log` and its web page still show it. "
            "`unarchive` brings it back.")
    await core.repo.record_admin(record.id, ledger.seq, {"type": "archive"}, None,
                                 outbox=[{"kind": "note", "seq": ledger.seq + 1, "text": text, "next": ""}])
    await core.store.set_archived(record.id, now)
    return True


class Archive(Feature):
    """`unarchive`: any seated player brings an archived game back."""

    @handles("unarchive")
    async def unarchive(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`unarchive`: the game is back in `games` and reminders; idle from now."""
        if record.archived_at is None:
            raise Refusal(f"Game {record.id} is not archived.")
        live = await self.repo.load(record.id)
        text = f"📦 **{seat.display_name}** brings game {record.id} back from the archive."
        back = {"type": "unarchive", "at": self.core.clock().isoformat()}  # the service's clock, as idling is judged
        await self.repo.record_admin(record.id, live.seq, back, seat.player_id,
                                     note=proxy_note(proxy), outbox=[{"kind": "note", "seq": live.seq + 1,
                                                                      "text": text, "next": next_line(live.game)}])
        await self.store.set_archived(record.id, None)
        return Reply()
