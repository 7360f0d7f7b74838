"""Troika at a local prompt: hot-seat play on the same store and commands as Discord.

``new Anna Boris Clara`` starts a game (``new 4 Anna Boris Clara Dmitri column
long-game``: an optional player count, title, market and the rulebook's options). A
command acts for the player who must decide now, or for the player named by an
``as NAME`` prefix (``as Anna bid TSR 20``).
Pictures are written to a folder (``map.png``, ``market.png``, ``table.png``, replaced
as the game goes on) and their paths printed. The engine work runs in worker processes,
as the Discord bot's does (:mod:`bot.workers`; ``--workers 0``: in this process).
While the computer is to act (a table of computer seats, or a player's seat handed to
it) the console plays on, printing each of its moves with its reason, until a person is
to act or the game ends; Ctrl-C stops it after the move it is making, and the next line
accepted (Enter will do) lets it go on, as any command lets the computer move after it; a
refused line leaves it stopped (a mistyped `I'm back` must not give the game away).
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from engine import counted, is_setup_word
from storage.postgres import safe_url

from .archive import ARCHIVE_AFTER
from .commands import split
from .errors import NoGame, NotAllowed, Refusal
from .face import ServiceFace
from .posts import GAME_OVER, Picture
from .service import (
    MAX_PLAYERS,
    Account,
    Post,
    Reply,
    game_choice,
)
from .setting_up import timeout_chosen
from .web import links
from .workers import open_service

log = logging.getLogger("troika.console")

CHANNEL = links.KEYBOARD
NOBODY = Account(links.KEYBOARD, "console")
NEW = "`new Anna Boris Clara` starts a game"
NEW_USAGE = ("`new [1861|1867] [COUNT] NAME NAME ... [grid|column] [on-timeout wait|computer|pass]`: a game of "
             "1861 (or 1867) for the named players, on the title's own market unless one is named; e.g. "
             "`new 1867 Anna Boris Clara`.")
ITALICS = re.compile(r"(?<![\w`])_(\S(?:[^_\n]*\S)?)_(?![\w`])")
"""Markdown italics (``_(agreed by Anna)_``), which the console prints plain."""


class Console:
    """Reads command lines, prints replies and posts, writes pictures."""

    def __init__(self, service: ServiceFace, pictures_dir: Path,
                 write: Callable[[str], None] = print) -> None:
        self.service = service
        self.pictures_dir = pictures_dir
        self.files_dir = pictures_dir.parent  # exported games go beside the pictures' folder
        self._write = write
        self.stopping = False
        """Ctrl-C was pressed while the computer played on: it stops after its move."""
        self.held = False
        """Ctrl-C stopped the computer: it waits for Enter or a line that is accepted."""

    def write(self, text: str) -> None:
        """Print plain text: the posts' Markdown (bold, italics) taken out."""
        self._write(ITALICS.sub(r"\1", text.replace("**", "")))

    async def line(self, text: str) -> None:
        """Carry out one line, then the reminders and time-outs due (the console's periodic
        pass), and deliver the posts they caused."""
        text = text.strip()
        if not text:  # Enter: the computer goes on if it is to act
            await self.play_on()
        if not text or text.startswith("#"):
            return
        refused = True
        try:
            words = text.split()
            if [w.lower() for w in words] == ["help", "new"]:
                self.write(NEW_USAGE)
            elif words[0].lower() == "new":
                self._show(await self._new(words[1:]))
            elif words[0].lower() == "import" and len(words) > 1:
                self._show(await self._import(text.split(None, 1)[1]))
            else:
                account, command = await self._identity(words)
                self._show(await self.service.handle(CHANNEL, account, command))
            refused = False
        except NotAllowed as exc:
            nested = len(words) > 2 and words[0].lower() == "as" and "as" in (w.lower() for w in words[2:4])
            hint = " On the console, `as NAME COMMAND` types for that player directly." if nested else ""
            self.write(f"✗ {exc}{hint}")
        except NoGame as exc:
            self.write(f"✗ {str(exc).replace('in this channel', 'yet').replace('`new` sets one up', NEW)}")
        except Refusal as exc:
            self.write(f"✗ {exc}")
        except Exception:  # a bug behind one command ends no session (Discord's error handler does the same)
            log.exception("command %r failed", text)
            self.write("✗ Something went wrong on my side; it is logged. `status` shows where the game is.")
        if refused and self.held:  # stopped by Ctrl-C: the periodic pass would move the computer too
            await self.service.flush(self._deliver)
            return
        await self.service.send_reminders()  # the console's periodic pass: reminders and time-outs fallen due
        await self.service.flush(self._deliver)
        await self.play_on()

    async def play_on(self) -> None:
        """The computer's moves, one at a time, each printed as it is made, while it is to
        act (on Discord the bot's periodic pass goes on with them); until Ctrl-C
        (:meth:`interrupt`), which stops it after the move it is making."""
        self.held = False
        try:
            while await self.service.computer_moves(CHANNEL, 1):
                await self.service.flush(self._deliver)
                if self.stopping:
                    self.write("⏸ Stopped (Ctrl-C). The next line accepted lets the computer play on (Enter will "
                               "do; `as NAME I'm back` takes back a seat you handed it; a refused line leaves it "
                               "stopped); `quit` leaves, the game saved.")
                    self.held = True
                    break
        except Exception:  # its trouble ends no session: the moves made are stored
            log.exception("the computer's play on stopped")
            self.write("✗ The computer stopped on my side; it is logged. Enter lets it try again.")
        finally:
            self.stopping = False

    def interrupt(self) -> None:
        """Ctrl-C while a line is carried out: the computer stops after its move."""
        self.stopping = True

    async def _new(self, words: list[str]) -> Reply:
        words, policy = timeout_chosen(words)  # read as Discord's `new` reads it
        chosen = [w for w in words if is_setup_word(w)]
        words = [w for w in words if w not in chosen]
        setup = game_choice(chosen)
        if words and words[0].isdigit():
            count = int(words.pop(0))
            if count != len(words):
                raise Refusal(f"You said {counted(count, 'player')} but named {len(words)}.")
        misplaced = [w for w in words if w.isdigit()]
        if misplaced:
            raise Refusal(f"`{misplaced[0]}` is not a player's name: {NEW} (a player count comes first).")
        if not 2 <= len(words) <= MAX_PLAYERS:
            raise Refusal(f"Name 2 to {MAX_PLAYERS} players: {NEW}.")
        if len({n.lower() for n in words if n.lower() != "computer"}) != len([n for n in words
                                                                              if n.lower() != "computer"]):
            raise Refusal("Give each player a different name.")
        return await self.service.start_local_game(CHANNEL, [(n, n) for n in words],
                                                   rules=setup.rules(), title=setup.title, on_timeout=policy)

    async def _identity(self, words: list[str]) -> tuple[Account, str]:
        """Who the line is typed by, and the command itself."""
        verb = words[0].lower()
        if verb == "as":
            if len(words) < 2:
                raise Refusal("Write it as `as NAME COMMAND`, e.g. `as Boris pass`: the command is typed "
                              "for that player.")
            account, used = await self.service.seat_account(CHANNEL, words[1:])
            command = words[1 + used:]
            if not command:
                raise Refusal(f"Write the command for {account.name}: `as {account.name} pass`.")
            return account, await self._addressed(" ".join(command))
        if verb in ("replace", "seat"):
            raise Refusal("On the console everyone shares the keyboard: `as NAME ...` types for a player.")
        typed = " ".join(words)
        verb, _ = split(typed)  # the table's verb, its other names read
        return await self.service.typing_account(CHANNEL, verb) or NOBODY, await self._addressed(typed)

    async def _addressed(self, command: str) -> str:
        """A bare `pass` as `pass COMPANY` for the company called now. At a shared keyboard
        every reply is read before the next line is typed, so the pass is for the company
        the last prompt named, never one meant for a turn that has just ended (which
        Discord questions once: :mod:`bot.stray`)."""
        if command.strip().lower() != "pass":
            return command
        company = await self.service.called_company(CHANNEL)
        return f"pass {company}" if company else command

    async def _import(self, path: str) -> Reply:
        """``import PATH``: an 18xx.games log from a file, every seat at this keyboard."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise Refusal(f"Cannot read {path} ({exc.strerror}).") from None
        return await self.service.import_site_game(CHANNEL, NOBODY, data, name=Path(path).name, hot_seat=True)

    def _show(self, reply: Reply) -> None:
        for text in (reply.text, reply.direct):  # at the console the one who asked is at the keyboard
            if text:
                self.write(text)
        self._save(reply.pictures)
        for attachment in reply.files:
            path = self.files_dir / attachment.name
            try:
                self.files_dir.mkdir(parents=True, exist_ok=True)
                path = _unused(path)
                with path.open("xb") as file:  # never over another file
                    file.write(attachment.data)
            except OSError as exc:
                self.write(f"✗ Cannot write {path} ({exc.strerror}).")
                continue
            kept = "" if path.name == attachment.name else f" ({attachment.name} is there already: kept)"
            self.write(f"  file: {path}{kept}")

    async def _deliver(self, post: Post) -> None:
        text = post.content(
            lambda seat: "▶" if post.next.startswith(seat.display_name) else f"▶ {seat.display_name}:",
            recap=False)  # hot seat: everyone saw the moves between
        if post.mention is None and post.next and not post.next.startswith(GAME_OVER):
            text = text.removesuffix(post.next) + "▶ " + post.next  # the same player again: on Discord, no ping
        self.write(text)
        self._save(post.pictures)

    def _save(self, pictures: list[Picture]) -> None:
        if not pictures:
            return
        try:
            self.pictures_dir.mkdir(parents=True, exist_ok=True)
            for picture in pictures:
                path = self.pictures_dir / f"{picture.name}.png"
                path.write_bytes(picture.png)
                self.write(f"  picture: {path}")
        except OSError as exc:
            self.write(f"✗ Cannot write the pictures to {self.pictures_dir}/ ({exc.strerror}); "
                       "the game goes on without them.")


def _unused(path: Path) -> Path:
    """``path``, or ``NAME-2.json``, ``NAME-3.json``... beside it if it is taken."""
    number = 1
    found = path
    while found.exists():
        number += 1
        found = path.with_name(f"{path.stem}-{number}{path.suffix}")
    return found


def banner(running: bool) -> str:
    """What the console says on starting: how to begin a game, or how to go on with
    the one under way."""
    how = ("`help` lists the commands. A command acts for whoever must decide; `as NAME ...` for someone "
           "else. `quit` leaves; the game is saved as you go.")
    if running:
        return f"The game above goes on: type the next move. {how}"
    return (f"{NEW} of 1861; `new 1867 Anna Boris Clara` one of 1867 (add `grid` or `column` for the other "
            f"market). {how}")


async def run_console(location: str | Path, pictures_dir: Path, workers: int | None = None,
                      archive_after: timedelta | None = ARCHIVE_AFTER) -> None:
    """The interactive prompt, until end of input or ``quit``, on the store at
    ``location`` (a SQLite file or a PostgreSQL URL), the engine in ``workers`` worker
    processes (by default as many as the bot's; 0: in this process)."""
    if "://" not in str(location) and not Path(location).parent.is_dir():
        raise SystemExit(f"troika: no folder {Path(location).parent}/ for the database {location}")
    async with open_service(location, workers=workers, archive_after=archive_after) as service:
        console = Console(service, pictures_dir)
        print(f"Troika console · database {safe_url(str(location))} · pictures in {pictures_dir}/")
        # asyncio.run's own Ctrl-C handler waits for the loop, which input() blocks: with
        # text on the line the key only cleared it. Python's default raises at once.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        running = await service.store.active_game_in_channel(CHANNEL)
        if running is not None:
            await _carry_out(console, "status")
        print(banner(running is not None))
        while True:
            try:
                text = input("troika> ")  # blocking on purpose: Ctrl-C then stops at once
            except (EOFError, KeyboardInterrupt):
                print()
                break
            if text.strip().lower() in ("quit", "exit"):
                break
            await _carry_out(console, text)


async def _carry_out(console: Console, text: str) -> None:
    """One line, Ctrl-C meanwhile stopping the computer's play on (not the console)."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, console.interrupt)
    try:
        await console.line(text)
    finally:
        loop.remove_signal_handler(signal.SIGINT)  # back to Python's: Ctrl-C at the prompt leaves
