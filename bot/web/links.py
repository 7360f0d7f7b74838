"""The web page's unguessable links: a game's page and a player's list of games.

A link carries a keyed hash (HMAC-SHA256) of what it opens, made with the
installation's secret, so no one can write a link to a game they were not given, and
a wrong link cannot be told from a missing game. The secret is a file
(``TROIKA_WEB_SECRET_FILE``), made on first use; the page's public address is
``TROIKA_WEB_URL``. ``troika run --web`` sets both for itself and its worker
processes; with no address set the web page is off and no link is written.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
from functools import cache
from pathlib import Path

URL_VARIABLE = "TROIKA_WEB_URL"
SECRET_VARIABLE = "TROIKA_WEB_SECRET_FILE"
MAC_CHARS = 22
"""Characters of a link's hash (132 bits)."""
KEYBOARD = "console"
"""The console's channel, and the account its keyboard types as when no seat is named:
its ``web me`` link lists every game played at the console, all its seats (everyone at
the keyboard types for every seat; ``as NAME web me`` gives one player's link)."""
GAME_KEY = re.compile(r"(\d{1,12})-([A-Za-z0-9_-]{22})")
PLAYER_KEY = re.compile(r"([A-Za-z0-9_-]{1,200})-([A-Za-z0-9_-]{22})")


def secret_path(database: str) -> Path:
    """Where the secret is kept by default: beside a SQLite database (``troika.db.web-secret``);
    for a database server, in the user's state folder (``$XDG_STATE_HOME/troika/web-secret``,
    else ``~/.local/state/troika/web-secret``), never in the working folder, where a
    command that fails would leave it."""
    if "://" in database:
        state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "troika"
        state.mkdir(parents=True, exist_ok=True, mode=0o700)
        return state / "web-secret"
    return Path(database.removeprefix("sqlite:") + ".web-secret")


@cache
def read_secret(path: str) -> bytes:
    """The secret in ``path``, made (readable by its owner only) if the file does not exist."""
    file = Path(path)
    try:
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        data = file.read_bytes().strip()
        if len(data) < 32:
            raise ValueError(f"the web secret {path} is too short: delete it to make a new one") from None
        return data
    with os.fdopen(fd, "wb") as out:
        data = secrets.token_hex(32).encode()
        out.write(data)
    return data


def base_url() -> str | None:
    """The web page's public address, or None when it is off."""
    url = os.environ.get(URL_VARIABLE, "").strip()
    return url.rstrip("/") if url else None


def _secret() -> bytes:
    return read_secret(os.environ.get(SECRET_VARIABLE) or str(Path("troika.db.web-secret")))


def _mac(what: bytes, secret: bytes | None = None) -> str:
    digest = hmac.new(secret or _secret(), what, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:MAC_CHARS]


def game_key(game_id: int) -> str:
    """The last part of a game's link: ``12-<hash>``."""
    return f"{game_id}-{_mac(b'game:%d' % game_id)}"


def player_key(account_id: str) -> str:
    """The last part of a player's link: the account id (base64) and its hash."""
    encoded = base64.urlsafe_b64encode(account_id.encode()).decode().rstrip("=")
    return f"{encoded}-{_mac(b'player:' + account_id.encode())}"


def game_link(game_id: int, at: int | None = None) -> str | None:
    """A game's page (after move ``at``), or None when the web page is off."""
    url = base_url()
    if url is None:
        return None
    return f"{url}/g/{game_key(game_id)}" + (f"?at={at}" if at is not None else "")


def player_link(account_id: str) -> str | None:
    """A player's list of games, or None when the web page is off."""
    url = base_url()
    return None if url is None else f"{url}/p/{player_key(account_id)}"


def read_game_key(text: str, secret: bytes | None = None) -> int | None:
    """The game a link's key opens, or None for a key this installation did not write."""
    found = GAME_KEY.fullmatch(text)
    if found is None:
        return None
    game_id = int(found[1])
    return game_id if hmac.compare_digest(found[2], _mac(b"game:%d" % game_id, secret)) else None


def read_player_key(text: str, secret: bytes | None = None) -> str | None:
    """The account a player's key lists the games of, or None for a key this installation did not write."""
    found = PLAYER_KEY.fullmatch(text)
    if found is None:
        return None
    try:
        account_id = base64.urlsafe_b64decode(found[1] + "=" * (-len(found[1]) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    expected = _mac(b"player:" + account_id.encode(), secret)
    return account_id if hmac.compare_digest(found[2], expected) else None
