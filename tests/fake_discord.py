"""A fake Discord on 127.0.0.1 for end-to-end tests of the real ``troika run``.

It serves what the unmodified discord.py client uses: REST under ``/api/v10`` (login,
the application, the command sync, channel messages as JSON or multipart with files,
edits, pins, interaction callbacks and webhook follow-ups) with Discord's rate-limit
headers, and the gateway websocket (HELLO, IDENTIFY → READY and GUILD_CREATE,
heartbeats, RECONNECT → RESUME, member requests). Users act through
:meth:`FakeDiscord.say`, :meth:`FakeDiscord.slash` and :meth:`FakeDiscord.click`,
which dispatch MESSAGE_CREATE and INTERACTION_CREATE as Discord does.

Discord's rules a client depends on, and which the fake keeps: the Content-Type is
exactly ``application/json``; a 429 carries ``Via`` and a JSON body (else discord.py
takes it for a Cloudflare ban); a member object has ``flags``; an interaction is
acknowledged once within 3 s; after a deferral the first follow-up replaces the
"thinking" message and keeps the deferral's visibility; ``enforce_nonce`` returns the
message already created with that nonce; ids carry their creation time (discord.py
reads an interaction's age from its id, and answers one it thinks expired in the
channel instead); an interaction has ``attachment_size_limit`` (without it discord.py's
gateway reader dies).

The server runs in a thread of its own, so a test drives it from ordinary code while
the bot runs as another process. State is touched only in the server's thread:
:meth:`FakeDiscord.call` runs a function there.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

T = TypeVar("T")
EPHEMERAL = 64
ATTACHMENT = 11
"""A slash command option's type for an uploaded file."""
MESSAGE_CONTENT = 1 << 15
BUCKET_LIMIT = 5
"""Messages a channel takes per :data:`BUCKET_SECONDS` by default (Discord's channel limit)."""
BUCKET_SECONDS = 5.0
ACK_DEADLINE = 3.0
NAME = re.compile(r"^[-_\w]{1,32}$")
TIMESTAMP = "2026-12-01T12:00:00.000000+00:00"
_ids = itertools.count(1)


DISCORD_EPOCH_MS = 1_420_070_400_000


def snowflake() -> int:
    """A new id made as Discord makes them: the time in its high bits (discord.py reads
    an interaction's age from its id), a counter in the low ones."""
    return (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22 | (next(_ids) % (1 << 22))


@dataclass
class User:
    id: int
    name: str
    bot: bool = False

    def payload(self) -> dict[str, Any]:
        return {"id": str(self.id), "username": self.name.lower(), "global_name": self.name, "discriminator": "0",
                "avatar": None, "bot": self.bot, "public_flags": 0, "flags": 0}

    def member(self) -> dict[str, Any]:
        return {"roles": [], "joined_at": TIMESTAMP, "deaf": False, "mute": False, "flags": 0, "nick": None,
                "permissions": "2251799813685247"}


@dataclass
class Channel:
    id: int
    name: str
    parent_id: int | None = None
    """For a thread: the channel it hangs from (a thread is not sent in GUILD_CREATE)."""
    refuse_files: bool = False
    """Uploads refused with 403 50013, as without the *Attach Files* permission."""
    refuse_send: bool = False
    """Messages refused with 403 50013, as without the *Send Messages* permission (edits
    and pins are still allowed)."""
    dm_with: int | None = None
    """For a direct-message channel: the user's id."""
    sent: list[float] = field(default_factory=list)
    """When the bot's messages were created, for the rate limit."""

    def payload(self, guild_id: int) -> dict[str, Any]:
        data: dict[str, Any] = {"id": str(self.id), "type": 0, "name": self.name, "guild_id": str(guild_id),
                                "position": 0, "permission_overwrites": [], "parent_id": None, "topic": None,
                                "nsfw": False, "last_message_id": None, "rate_limit_per_user": 0, "flags": 0}
        if self.parent_id is not None:
            data.update(type=11, parent_id=str(self.parent_id), owner_id="1", member_count=1, message_count=0,
                        thread_metadata={"archived": False, "auto_archive_duration": 1440, "locked": False,
                                         "archive_timestamp": TIMESTAMP})
        return data


@dataclass
class Message:
    """A message in a channel: typed by a user, or created by the bot (a post, a reply,
    an interaction's response or follow-up)."""

    id: int
    channel_id: int
    author: User
    content: str
    at: float
    files: list[tuple[str, bytes]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    allowed_mentions: dict[str, Any] | None = None
    nonce: str | None = None
    flags: int = 0
    pinned: bool = False
    edits: int = 0
    interaction_id: int | None = None
    """The interaction this message answers (its response or a follow-up)."""
    cdn: str = "http://x"
    """Where its files are served (the fake's own address for a user's uploads)."""

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for row in self.components for c in row.get("components", []) if "custom_id" in c]

    def payload(self, guild_id: int) -> dict[str, Any]:
        return {
            "id": str(self.id), "channel_id": str(self.channel_id), "guild_id": str(guild_id),
            "author": self.author.payload(), "content": self.content, "timestamp": TIMESTAMP,
            "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
            "attachments": [attachment(self.cdn, self.id * 10 + i, name, data) for i, (name, data) in
                            enumerate(self.files)],
            "embeds": [], "pinned": self.pinned, "type": 0, "flags": self.flags, "components": self.components,
            **({"nonce": self.nonce} if self.nonce is not None else {}),
        }


def attachment(cdn: str, number: int, name: str, data: bytes) -> dict[str, Any]:
    """An uploaded file as Discord describes it, served at ``cdn/attachments/NUMBER/NAME``."""
    url = f"{cdn}/attachments/{number}/{name}"
    return {"id": str(number), "filename": name, "size": len(data), "url": url, "proxy_url": url,
            "content_type": "application/json"}


@dataclass
class Interaction:
    id: int
    token: str
    kind: int
    user: User
    channel_id: int
    at: float
    acknowledged: float | None = None
    """Seconds from dispatch to the callback."""
    callback_type: int | None = None
    deferred_flags: int | None = None
    """The visibility of a deferral, which its first follow-up keeps."""
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)

    @property
    def answers(self) -> list[Message]:
        return ([self.original] if self.original else []) + self.followups


@dataclass
class Failure:
    """A response forced on the next matching request."""

    method: str
    path: re.Pattern[str]
    status: int
    times: int = 1
    after_create: bool = False
    """For a message post: create the message, then answer with the error (a 502 after
    Discord did the work)."""
    retry_after: float = 1.0
    via: bool = True
    """A 429 from Discord's API carries ``Via``; one from Cloudflare's ban has none."""


class FakeDiscord:
    """The fake server; ``start()`` it, then point ``troika run`` at :attr:`url`."""

    def __init__(self, token: str = "fake-token") -> None:
        self.token = token
        self.app_id = snowflake()
        self.bot = User(snowflake(), "Troika", bot=True)
        self.guild_id = snowflake()
        self.users: dict[str, User] = {}
        self.channels: dict[int, Channel] = {}
        self.dms: dict[int, Channel] = {}
        """Direct-message channels the bot opened, by user id."""
        self.messages: dict[int, Message] = {}
        self.interactions: dict[int, Interaction] = {}
        self.uploads: dict[str, bytes] = {}
        """Users' files by ``NUMBER/NAME``, as the CDN serves them."""
        self.commands: list[dict[str, Any]] = []
        self.syncs = 0
        self.requests: list[tuple[float, str, str, int]] = []
        self.failures: list[Failure] = []
        self.bucket_limit = BUCKET_LIMIT
        self.heartbeat_ms = 41250
        """The heartbeat interval HELLO asks for (Discord's is about 41 s)."""
        self.gateway_refusals = 0
        """Gateway handshakes still to refuse with 503 (an outage at connection)."""
        self.message_content_enabled = True
        self.identifies: list[dict[str, Any]] = []
        self.resumes = 0
        self.heartbeats = 0
        self._session: str | None = None
        self._seq = 0
        self._sent: list[dict[str, Any]] = []
        self._ws: web.WebSocketResponse | None = None
        self.ready = False
        self.loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self.url = ""

    # --- running -----------------------------------------------------------------

    def start(self) -> FakeDiscord:
        started = threading.Event()
        threading.Thread(target=self._serve, args=(started,), daemon=True).start()
        if not started.wait(10):
            raise RuntimeError("the fake Discord did not start")
        return self

    def _serve(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/ws", self._gateway)  # named by GET /gateway/bot, as Discord names its own
        app.router.add_get("/resume-gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        app.router.add_get("/attachments/{path:.*}", self._cdn)
        self._runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        started.set()
        self.loop.run_forever()

    def stop(self) -> None:
        async def down() -> None:
            if self._runner is not None:
                await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` run in the server's thread (where all state lives)."""
        async def run() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def wait(self, what: Callable[[], T], timeout: float = 15.0, why: str = "") -> T:
        """The first true value of ``what()`` (run in the server's thread), within ``timeout``."""
        end = time.monotonic() + timeout
        while True:
            found = self.call(what)
            if found:
                return found
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {why or what}")
            time.sleep(0.02)

    # --- the world ---------------------------------------------------------------

    def user(self, name: str) -> User:
        return self.users.setdefault(name, User(snowflake(), name))

    def channel(self, name: str, parent: Channel | None = None) -> Channel:
        """The channel (or thread) called ``name``, created if new (and announced with
        CHANNEL_CREATE if the bot is connected, as Discord does)."""
        found = next((c for c in self.channels.values() if c.name == name), None)
        if found is None:
            found = Channel(snowflake(), name, parent.id if parent else None)
            self.channels[found.id] = found
            if parent is None and self.ready:
                self._dispatch("CHANNEL_CREATE", found.payload(self.guild_id))
        return found

    def delete_channel(self, channel: Channel) -> None:
        """A moderator deletes the channel: CHANNEL_DELETE, and 404 10003 for it after."""
        def delete() -> None:
            self.channels.pop(channel.id, None)
            self._dispatch("CHANNEL_DELETE", channel.payload(self.guild_id))

        self.call(delete)

    def direct_messages(self, user: User) -> list[Message]:
        """The bot's direct messages to ``user`` (read in the server's thread: through
        :meth:`call` or :meth:`wait`)."""
        return [m for m in self.messages.values()
                if m.author is self.bot and self.channels.get(m.channel_id, Channel(0, "")).dm_with == user.id]

    def fail(self, method: str, path: str, status: int, **how: Any) -> None:
        """Answer the next request ``method path`` (a regular expression after /api/v10)
        with ``status``."""
        self.call(lambda: self.failures.append(Failure(method, re.compile(path), status, **how)))

    def posts(self, channel: Channel, after: int = 0) -> list[Message]:
        """The bot's messages in the channel newer than message id ``after`` (follow-ups
        and interaction responses included)."""
        return self.call(lambda: [m for m in self.messages.values()
                                  if m.channel_id == channel.id and m.author is self.bot and m.id > after])

    def last_id(self) -> int:
        return self.call(lambda: max(self.messages, default=0))

    # --- users act ---------------------------------------------------------------

    def say(self, user: User, channel: Channel, content: str, mentions: tuple[User, ...] = (),
            files: tuple[tuple[str, bytes], ...] = ()) -> Message:
        """``user`` types ``content`` in ``channel`` (mentions as ``<@id>`` in the text),
        with ``files`` (name, data) attached."""
        def send() -> Message:
            message = Message(snowflake(), channel.id, user, content, time.monotonic(), list(files), cdn=self.url)
            self.messages[message.id] = message
            for i, (name, data) in enumerate(files):
                self.uploads[f"{message.id * 10 + i}/{name}"] = data
            data = message.payload(self.guild_id)
            data["member"] = user.member()
            data["mentions"] = [{**u.payload(), "member": u.member()} for u in mentions]
            self._dispatch("MESSAGE_CREATE", data)
            return message

        return self.call(send)

    def slash(self, user: User, channel: Channel, name: str, **options: Any) -> Interaction:
        """``user`` runs the slash command ``/name`` with ``options`` (a file option's value
        is its (name, data), uploaded with the command)."""
        def send() -> Interaction:
            command = next(c for c in self.commands if c["name"] == name)
            types = {o["name"]: o["type"] for o in command.get("options", [])}
            values, resolved = dict(options), {}
            for key, value in options.items():
                if types[key] == ATTACHMENT:
                    number = snowflake()
                    values[key] = str(number)
                    resolved[str(number)] = attachment(self.url, number, *value)
                    self.uploads[f"{number}/{value[0]}"] = value[1]
            data = {"id": command["id"], "name": name, "type": 1, "guild_id": str(self.guild_id),
                    "options": [{"name": k, "type": types[k], "value": v} for k, v in values.items()],
                    **({"resolved": {"attachments": resolved}} if resolved else {})}
            return self._interact(2, user, channel, data)

        return self.call(send)

    def click(self, user: User, message: Message, custom_id: str) -> Interaction:
        """``user`` clicks the button ``custom_id`` under ``message``."""
        def send() -> Interaction:
            extra = {"message": message.payload(self.guild_id)}
            return self._interact(3, user, self.channels[message.channel_id],
                                  {"custom_id": custom_id, "component_type": 2}, extra)

        return self.call(send)

    def _interact(self, kind: int, user: User, channel: Channel, data: dict[str, Any],
                  extra: dict[str, Any] | None = None) -> Interaction:
        interaction = Interaction(snowflake(), f"token-{snowflake()}", kind, user, channel.id, time.monotonic())
        self.interactions[interaction.id] = interaction
        self._dispatch("INTERACTION_CREATE", {
            "id": str(interaction.id), "application_id": str(self.app_id), "type": kind, "data": data,
            "guild_id": str(self.guild_id), "channel_id": str(channel.id),
            "channel": channel.payload(self.guild_id), "member": {**user.member(), "user": user.payload()},
            "token": interaction.token, "version": 1, "app_permissions": "2251799813685247",
            "locale": "en-US", "guild_locale": "en-US", "entitlements": [], "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
            "authorizing_integration_owners": {"0": str(self.guild_id)}, **(extra or {}),
        })
        return interaction

    # --- the gateway -------------------------------------------------------------

    def reconnect(self) -> None:
        """Ask the client to reconnect (op 7), as Discord does when it moves a session."""
        def send() -> None:
            if self._ws is not None and not self._ws.closed:
                asyncio.ensure_future(self._ws.send_str(json.dumps({"op": 7, "d": None})))

        self.call(send)

    def _dispatch(self, kind: str, data: dict[str, Any]) -> None:
        self._seq += 1
        frame = {"op": 0, "t": kind, "s": self._seq, "d": data}
        self._sent.append(frame)
        if self._ws is not None and not self._ws.closed:
            asyncio.ensure_future(self._ws.send_str(json.dumps(frame)))

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if self.gateway_refusals > 0:
            self.gateway_refusals -= 1
            return web.Response(status=503, text="upstream connect error")
        ws = web.WebSocketResponse()
        await ws.prepare(request)

        async def send(frame: dict[str, Any]) -> None:  # plain text frames: the client takes them
            if not ws.closed:
                await ws.send_str(json.dumps(frame))

        await send({"op": 10, "d": {"heartbeat_interval": self.heartbeat_ms}})
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            frame = json.loads(msg.data)
            op, data = frame["op"], frame.get("d")
            if op == 1:
                self.heartbeats += 1
                await send({"op": 11})
            elif op == 2:
                await self._identify(ws, send, data)
            elif op == 6:
                await self._resume(ws, send, data)
            elif op == 8:
                await self._members(send, data)
        if self._ws is ws:
            self._ws = None
        return ws

    async def _identify(self, ws: web.WebSocketResponse, send: Callable[..., Any], data: dict[str, Any]) -> None:
        self.identifies.append({"intents": data["intents"], "shard": data.get("shard")})
        if data["token"] != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return
        if data["intents"] & MESSAGE_CONTENT and not self.message_content_enabled:
            await ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        self._ws, self._session, self._seq, self._sent = ws, f"session-{snowflake()}", 0, []
        host = f"ws://{ws._req.host}/resume-gateway"  # type: ignore[union-attr]
        self._dispatch("READY", {
            "v": 10, "user": self.bot.payload(), "guilds": [{"id": str(self.guild_id), "unavailable": True}],
            "session_id": self._session, "resume_gateway_url": host, "application": {"id": str(self.app_id),
                                                                                      "flags": 0},
            "private_channels": [], "relationships": [], "presences": [], "guild_join_requests": [],
            "geo_ordered_rtc_regions": [], "shard": data.get("shard") or [0, 1],
        })
        self._dispatch("GUILD_CREATE", self._guild())
        self.ready = True

    async def _resume(self, ws: web.WebSocketResponse, send: Callable[..., Any], data: dict[str, Any]) -> None:
        if data.get("session_id") != self._session or data.get("token") != self.token:
            await send({"op": 9, "d": False})
            return
        self.resumes += 1
        self._ws = ws
        for frame in self._sent:
            if frame["s"] > int(data.get("seq") or 0):
                await send(frame)
        self._dispatch("RESUMED", {})

    async def _members(self, send: Callable[..., Any], data: dict[str, Any]) -> None:
        wanted = {str(u) for u in data.get("user_ids") or []}
        query = (data.get("query") or "").lower()
        found = [u for u in self.users.values() if str(u.id) in wanted or (query and u.name.lower().startswith(query))]
        self._dispatch("GUILD_MEMBERS_CHUNK", {
            "guild_id": str(self.guild_id), "members": [{**u.member(), "user": u.payload()} for u in found],
            "chunk_index": 0, "chunk_count": 1, "nonce": data.get("nonce"), "not_found": [],
        })

    def _guild(self) -> dict[str, Any]:
        return {
            "id": str(self.guild_id), "name": "Test server", "icon": None, "owner_id": str(self.user("Owner").id),
            "roles": [{"id": str(self.guild_id), "name": "@everyone", "permissions": "2251799813685247",
                       "position": 0, "color": 0, "hoist": False, "managed": False, "mentionable": False,
                       "flags": 0}],
            "emojis": [], "stickers": [], "features": [], "member_count": len(self.users) + 1, "large": False,
            "verification_level": 0, "default_message_notifications": 0, "explicit_content_filter": 0,
            "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0, "preferred_locale": "en-US", "system_channel_id": None,
            "channels": [c.payload(self.guild_id) for c in self.channels.values()
                         if c.parent_id is None and c.dm_with is None],
            "threads": [], "members": [{**self.bot.member(), "user": self.bot.payload()}], "voice_states": [],
            "presences": [], "stage_instances": [], "guild_scheduled_events": [], "joined_at": TIMESTAMP,
            "unavailable": False,
        }

    # --- REST --------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        start = time.monotonic()
        response = await self._route(request, path)
        self.requests.append((start, request.method, path, response.status))
        return response

    async def _route(self, request: web.Request, path: str) -> web.StreamResponse:
        method = request.method
        webhook = path.startswith(("/interactions/", "/webhooks/"))
        if not webhook and request.headers.get("Authorization") != f"Bot {self.token}":
            return _json({"message": "401: Unauthorized", "code": 0}, 401)
        failure = next((f for f in self.failures if f.method == method and f.path.fullmatch(path)), None)
        if failure is not None:
            failure.times -= 1
            if failure.times <= 0:
                self.failures.remove(failure)
            if failure.status == 429:
                limited = self._too_many(failure.retry_after)
                if not failure.via:
                    del limited.headers["Via"]
                return limited
            if not failure.after_create:
                return _json({"message": "Server error", "code": 0}, failure.status)
        routes: list[tuple[str, str, Callable[..., Any]]] = [
            ("GET", r"/users/@me", self._me),
            ("GET", r"/oauth2/applications/@me", self._application),
            ("GET", r"/gateway(/bot)?", self._gateway_info),
            ("PUT", r"/applications/\d+(/guilds/\d+)?/commands", self._sync),
            ("POST", r"/users/@me/channels", self._open_dm),
            ("GET", r"/channels/(\d+)", self._get_channel),
            ("POST", r"/channels/(\d+)/messages", self._create),
            ("PATCH", r"/channels/(\d+)/messages/(\d+)", self._edit),
            ("PUT", r"/channels/(\d+)/(?:messages/)?pins/(\d+)", self._pin),
            ("DELETE", r"/channels/(\d+)/(?:messages/)?pins/(\d+)", self._pin),
            ("POST", r"/interactions/(\d+)/([^/]+)/callback", self._callback),
            ("POST", r"/webhooks/\d+/([^/]+)", self._followup),
            ("PATCH", r"/webhooks/\d+/([^/]+)/messages/(@original|\d+)", self._edit_answer),
            ("DELETE", r"/webhooks/\d+/([^/]+)/messages/(@original|\d+)", self._delete_answer),
        ]
        for want, pattern, handler in routes:
            match = re.fullmatch(pattern, path)
            if want == method and match:
                response = await handler(request, *match.groups())
                if failure is not None:  # the work is done, the answer lost
                    return _json({"message": "Bad Gateway", "code": 0}, failure.status)
                return response
        return _json({"message": "404: Not Found", "code": 0}, 404)

    async def _cdn(self, request: web.Request) -> web.Response:
        data = self.uploads.get(request.match_info["path"])
        return web.Response(body=data) if data is not None else web.Response(status=404)

    async def _me(self, request: web.Request) -> web.Response:
        return _json(self.bot.payload())

    async def _application(self, request: web.Request) -> web.Response:
        return _json({"id": str(self.app_id), "name": "Troika", "description": "", "icon": None,
                      "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64,
                      "owner": self.user("Owner").payload(), "flags": 0, "summary": "",
                      "bot": self.bot.payload()})

    async def _gateway_info(self, request: web.Request, _bot: str | None = None) -> web.Response:
        return _json({"url": self.url.replace("http", "ws") + "/ws", "shards": 1,
                      "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0,
                                              "max_concurrency": 1}})

    async def _sync(self, request: web.Request, _guild: str | None = None) -> web.Response:
        """Replace the commands, checked as Discord checks them (names, descriptions,
        option order, choices, the 100-command limit)."""
        body = await request.json()
        problems = [problem for command in body for problem in _command_problems(command)]
        if len(body) > 100 or problems:
            return _json({"message": "Invalid Form Body", "code": 50035, "errors": problems[:5]}, 400)
        self.syncs += 1
        self.commands = [{**c, "id": str(snowflake()), "application_id": str(self.app_id), "version": "1",
                          "type": c.get("type", 1), "default_member_permissions": None, "nsfw": False}
                         for c in body]
        return _json(self.commands)

    async def _open_dm(self, request: web.Request) -> web.Response:
        """A direct-message channel with a user (``dms`` by user id); its messages are kept as any channel's."""
        body = await request.json()
        user = next((u for u in self.users.values() if str(u.id) == str(body.get("recipient_id"))), None)
        if user is None:
            return _json({"message": "Unknown User", "code": 10013}, 404)
        channel = self.dms.setdefault(user.id, Channel(snowflake(), f"dm-{user.name}", dm_with=user.id))
        self.channels[channel.id] = channel
        return _json({"id": str(channel.id), "type": 1, "last_message_id": None, "flags": 0,
                      "recipients": [user.payload()]})

    async def _get_channel(self, request: web.Request, channel_id: str) -> web.Response:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        return _json(channel.payload(self.guild_id))

    async def _create(self, request: web.Request, channel_id: str) -> web.Response:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            return _json({"message": "Unknown Channel", "code": 10003}, 404)
        now = time.monotonic()
        channel.sent = [t for t in channel.sent if now - t < BUCKET_SECONDS]
        if len(channel.sent) >= self.bucket_limit:
            return self._too_many(BUCKET_SECONDS - (now - channel.sent[0]), channel)
        body, files = await _body(request)
        if (files and channel.refuse_files) or channel.refuse_send:
            return _json({"message": "Missing Permissions", "code": 50013}, 403)
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            same = next((m for m in self.messages.values() if m.channel_id == channel.id and m.author is self.bot
                         and m.nonce == str(nonce)), None)
            if same is not None:
                return self._limited(_json(same.payload(self.guild_id)), channel)
        message = self._bot_message(channel.id, body, files)
        message.nonce = None if nonce is None else str(nonce)
        channel.sent.append(now)
        return self._limited(_json(message.payload(self.guild_id)), channel)

    def _bot_message(self, channel_id: int, body: dict[str, Any], files: list[tuple[str, bytes]],
                     interaction: Interaction | None = None, flags: int | None = None) -> Message:
        content = body.get("content") or ""
        if len(content) > 2000:
            raise web.HTTPBadRequest(text=json.dumps({"message": "Invalid Form Body", "code": 50035}),
                                     content_type="application/json")
        message = Message(snowflake(), channel_id, self.bot, content, time.monotonic(), files,
                          body.get("components") or [], body.get("allowed_mentions"),
                          flags=body.get("flags", 0) if flags is None else flags,
                          interaction_id=interaction.id if interaction else None)
        self.messages[message.id] = message
        return message

    def _limited(self, response: web.Response, channel: Channel) -> web.Response:
        """The response with the channel's rate-limit headers."""
        now = time.monotonic()
        used = len([t for t in channel.sent if now - t < BUCKET_SECONDS])
        reset_after = BUCKET_SECONDS - (now - channel.sent[0]) if channel.sent else BUCKET_SECONDS
        response.headers.update({
            "X-RateLimit-Limit": str(self.bucket_limit),
            "X-RateLimit-Remaining": str(max(self.bucket_limit - used, 0)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}", "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": f"messages-{channel.id}",
        })
        return response

    def _too_many(self, retry_after: float, channel: Channel | None = None) -> web.Response:
        response = _json({"message": "You are being rate limited.", "retry_after": round(retry_after, 3),
                          "global": False}, 429)
        response.headers.update({
            "Via": "1.1 google", "Retry-After": str(max(1, round(retry_after))), "X-RateLimit-Scope": "user",
            "X-RateLimit-Limit": str(self.bucket_limit), "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}", "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            **({"X-RateLimit-Bucket": f"messages-{channel.id}"} if channel else {}),
        })
        return response

    async def _edit(self, request: web.Request, channel_id: str, message_id: str) -> web.Response:
        message = self.messages.get(int(message_id))
        if message is None or message.channel_id != int(channel_id):
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        body, files = await _body(request)
        channel = self.channels.get(int(channel_id))
        if files and channel is not None and channel.refuse_files:
            return _json({"message": "Missing Permissions", "code": 50013}, 403)
        if "content" in body:
            message.content = body["content"] or ""
        message.files.extend(files)  # new uploads join the attachments kept
        message.edits += 1
        return _json(message.payload(self.guild_id))

    async def _pin(self, request: web.Request, channel_id: str, message_id: str) -> web.Response:
        """PUT pins the message, DELETE unpins it."""
        message = self.messages.get(int(message_id))
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        message.pinned = request.method == "PUT"
        return web.Response(status=204)

    async def _callback(self, request: web.Request, interaction_id: str, token: str) -> web.Response:
        interaction = self.interactions.get(int(interaction_id))
        if interaction is None or interaction.token != token:
            return _json({"message": "Unknown interaction", "code": 10062}, 404)
        if interaction.callback_type is not None:
            return _json({"message": "Interaction has already been acknowledged.", "code": 40060}, 400)
        waited = time.monotonic() - interaction.at
        if waited > ACK_DEADLINE:
            return _json({"message": "Unknown interaction", "code": 10062}, 404)
        body, files = await _body(request)
        kind, data = body["type"], body.get("data") or {}
        interaction.callback_type, interaction.acknowledged = kind, waited
        flags = data.get("flags", 0)
        if kind == 5:
            interaction.deferred_flags = flags
        elif kind == 4:
            interaction.original = self._bot_message(interaction.channel_id, data, files, interaction)
        response: dict[str, Any] = {"interaction": {
            "id": str(interaction.id), "type": interaction.kind, "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(flags & EPHEMERAL)}, "resource": {"type": kind}}
        if interaction.original is not None:
            response["interaction"]["response_message_id"] = str(interaction.original.id)
            response["resource"]["message"] = interaction.original.payload(self.guild_id)
        return _json(response)

    def _by_token(self, token: str) -> Interaction | None:
        return next((i for i in self.interactions.values() if i.token == token), None)

    async def _followup(self, request: web.Request, token: str) -> web.Response:
        interaction = self._by_token(token)
        if interaction is None or interaction.callback_type is None:
            return _json({"message": "Unknown Webhook", "code": 10015}, 404)
        body, files = await _body(request)
        if interaction.callback_type == 5 and interaction.original is None:
            # the first follow-up after a deferral replaces the "thinking" message, as deferred
            interaction.original = self._bot_message(interaction.channel_id, body, files, interaction,
                                                     flags=interaction.deferred_flags or 0)
            return _json(interaction.original.payload(self.guild_id))
        message = self._bot_message(interaction.channel_id, body, files, interaction)
        interaction.followups.append(message)
        return _json(message.payload(self.guild_id))

    async def _edit_answer(self, request: web.Request, token: str, which: str) -> web.Response:
        interaction = self._by_token(token)
        if interaction is None:
            return _json({"message": "Unknown Webhook", "code": 10015}, 404)
        body, files = await _body(request)
        if which == "@original" and interaction.original is None:
            interaction.original = self._bot_message(interaction.channel_id, body, files, interaction,
                                                     flags=interaction.deferred_flags or 0)
        message = interaction.original if which == "@original" else self.messages[int(which)]
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        message.content = body.get("content", message.content) or ""
        message.edits += 1
        return _json(message.payload(self.guild_id))

    async def _delete_answer(self, request: web.Request, token: str, which: str) -> web.Response:
        interaction = self._by_token(token)
        message = interaction.original if interaction and which == "@original" else self.messages.get(
            int(which) if which.isdigit() else 0)
        if message is None:
            return _json({"message": "Unknown Message", "code": 10008}, 404)
        self.messages.pop(message.id, None)
        if interaction is not None and interaction.original is message:
            interaction.original = None
            interaction.deferred_flags = 0
        return web.Response(status=204)


def _json(data: Any, status: int = 200) -> web.Response:
    # exactly "application/json": discord.py compares the header with ==
    return web.Response(status=status, body=json.dumps(data).encode(), headers={"Content-Type": "application/json"})


async def _body(request: web.Request) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    """A request's JSON and its files (multipart: ``payload_json`` and ``files[n]``)."""
    if not request.body_exists:
        return {}, []
    if not request.content_type.startswith("multipart/"):
        return await request.json(), []
    body: dict[str, Any] = {}
    files: list[tuple[str, bytes]] = []
    reader = await request.multipart()
    while (part := await reader.next()) is not None:
        data = await part.read()  # type: ignore[union-attr]
        if part.name == "payload_json":  # type: ignore[union-attr]
            body = json.loads(data)
        elif (part.name or "").startswith("files["):  # type: ignore[union-attr]
            files.append((part.filename or "", bytes(data)))  # type: ignore[union-attr]
    return body, files


def _command_problems(command: dict[str, Any]) -> list[str]:
    """What Discord would refuse in one slash command's definition."""
    problems = []
    name = command.get("name", "")
    if not NAME.match(name) or name != name.lower():
        problems.append(f"{name}: bad name")
    if not 1 <= len(command.get("description", "")) <= 100:
        problems.append(f"{name}: description must be 1 to 100 characters")
    options = command.get("options", [])
    if len(options) > 25:
        problems.append(f"{name}: more than 25 options")
    required = [bool(o.get("required")) for o in options]
    if required != sorted(required, reverse=True):
        problems.append(f"{name}: required options must come first")
    for option in options:
        if not NAME.match(option.get("name", "")) or not 1 <= len(option.get("description", "")) <= 100:
            problems.append(f"{name}: option {option.get('name')} is malformed")
        if len(option.get("choices", [])) > 25 or (option.get("choices") and option.get("autocomplete")):
            problems.append(f"{name}: option {option.get('name')} has bad choices")
    if len(json.dumps(command)) > 8000:
        problems.append(f"{name}: too long")
    return problems
