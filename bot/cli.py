"""The ``troika`` command: play, replay real games, render pictures, benchmark."""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import sys
from typing import Any

from engine import DEFAULT_TITLE, TITLES, EngineError, counted


def _read_json(path: str) -> Any:
    from bot.gamefiles import GameFileError, read_log

    try:
        return read_log(path)
    except GameFileError as exc:
        raise SystemExit(f"troika: {exc}") from None


def _read_trace(path: str) -> list[dict[str, Any]]:
    from bot.gamefiles import GameFileError, read_trace

    try:
        return read_trace(path)
    except GameFileError as exc:
        raise SystemExit(f"troika: {exc}") from None


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay an 18xx.games log, comparing with its trace after every action."""
    if not args.corpus:
        # One game, then the process ends: reference counting frees what the replay
        # drops, and the few cycles it leaves go with the process, so no collection
        # need run (not even over what the engine's import allocates).
        gc.disable()
    from bot.gamefiles import exact
    from engine import replay

    if args.corpus:
        gc.freeze()  # what is imported lives to the end: the corpus's collections need not walk it
        return _replay_corpus(args)
    if not args.game:
        raise SystemExit("troika: replay needs a game log or --corpus FOLDER")
    log = _read_json(args.game)
    trace = _read_trace(args.trace) if args.trace else None
    try:
        report = replay(log, trace).report
    except EngineError as exc:
        print(f"troika: cannot replay {args.game}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(f"{report.title}: {report.applied}/{report.actions} actions applied, "
              f"{report.matched}/{report.compared} states match the trace")
        if report.first_divergence:
            d = report.first_divergence
            print(f"first divergence at action {d['id']}: {d['field']}: expected {d['expected']!r}, got {d['got']!r}")
        names = {str(p["id"]): str(p["name"]) for p in log.get("players", [])}
        print(f"result {_named(report.result, names)} (logged {_named(report.expected_result, names)})")
    gc.freeze()  # the process ends now: its last collection need not walk what the replay left
    return 0 if exact(report, trace) else 1


def _replay_corpus(args: argparse.Namespace) -> int:
    """Replay every game of a folder against the trace beside it; one summary."""
    from pathlib import Path

    from bot.gamefiles import GameFileError, replay_corpus

    try:
        summary = replay_corpus(Path(args.corpus), args.title)
    except GameFileError as exc:
        print(f"troika: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['exact']}/{summary['games']} games exact, "
              f"{summary['matched']}/{summary['actions']} actions match the trace")
        for d in summary["first_divergences"]:
            where = d.get("error") or (
                f"action {d.get('id')}: {d['field']}: expected {d['expected']!r}, got {d['got']!r}"
            )
            print(f"  {d['game']}: {where}")
    return 0 if summary["exact"] == summary["games"] else 1


def _named(result: dict[str, int] | None, names: dict[str, str]) -> str:
    """``Anna 812, Boris 640`` from a result keyed by player id."""
    if not result:
        return "none"
    return ", ".join(f"{names.get(pid, pid)} {value}" for pid, value in result.items())


def cmd_routes(args: argparse.Namespace) -> int:
    """The best routes of every company now (end of the log, or ``--at``); with
    ``--check-logged``, compare ours with every run the players logged."""
    if not args.check_logged:
        return _routes_now(args)
    from engine import check_logged_routes

    summary = check_logged_routes(_read_json(args.game))
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['checked']} runs: {summary['better']} where our routes earn more, "
            f"{summary['equal']} equal, {summary['worse']} worse; slowest {summary['max_ms']} ms, "
            f"p95 {summary['p95_ms']} ms"
        )
    return 0 if summary["worse"] == 0 else 1


def _replayed(args: argparse.Namespace, before: Any = None) -> Any:
    """The game file replayed to ``--at N`` (after Troika's move N: the ``#N`` of the
    bot's ``log`` and the web page's ``?at=N``) or ``--id ID`` (after the site's action ID)."""
    from engine import replay

    run = replay(_read_json(args.game), None, until=args.id, moves=args.at, before=before)
    if args.at is not None and run.moves < args.at:
        raise SystemExit(f"troika: the game has {run.moves} moves in effect, not {args.at}")
    run.game.ctx.rules = run.game.ctx.rules.live()  # shown as the game imported is: what its page allows
    return run


def _routes_now(args: argparse.Namespace) -> int:
    from engine import best_routes, routes_detail

    game = _replayed(args).game
    best = {}
    for sym, company in game.state.companies.items():
        for train in company.trains:
            train.operated = False  # as if each company ran now
        if company.trains and not company.closed:
            results = best_routes(game.ctx, game.state, company)
            best[sym] = {
                "revenue": sum(r.revenue for r in results),
                "routes": routes_detail(game.ctx, game.state, company, results),
            }
    if args.json:
        print(json.dumps(best))
    for sym, found in best.items() if not args.json else ():
        print(f"{sym} {found['revenue']}: {found['routes'] or 'no route'}")
    if not best and not args.json:
        print("No company has a train yet.")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    """Write map.png, market.png and table.png for a point of a real game (with
    --routes, routes.png of the last run; with --svg, the SVGs too)."""
    from pathlib import Path

    from bot.web.history import picture_settings
    from engine import RunRoutes, check_routes
    from render import write_pictures

    last_run: list[Any] = []

    def before(game: Any, action: Any) -> None:
        if args.routes and isinstance(action, RunRoutes):
            company = game.state.companies[action.entity]
            results = check_routes(game.ctx, game.state, company, action.routes)
            last_run[:] = [(action.entity, results)]

    run = _replayed(args, before)
    if args.routes and not last_run:
        print("troika: no company ran its trains in the replayed actions", file=sys.stderr)
        return 2
    game = run.game
    paths = write_pictures(
        game.ctx,
        game.state,
        Path(args.out),
        **picture_settings(game),  # as the web page draws the game after a move
        routes=last_run[0] if last_run else None,
        svg=args.svg,
    )
    for path in paths.values():
        print(path)
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    """Play random games to the end, checking invariants after every action (with
    --export, each written as an 18xx.games log, TITLE-selfplay-SEED.json)."""
    from pathlib import Path

    from engine import SelfPlayResult, check_options, play_many

    try:
        options = check_options(args.title, (o.lower() for o in args.options))
    except EngineError as exc:
        print(f"troika: {exc}", file=sys.stderr)
        return 2
    folder = Path(args.export) if args.export else None
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SystemExit(f"troika: cannot make {folder}: {exc.strerror}") from None

    def write(result: SelfPlayResult) -> None:
        if folder is not None:
            path = folder / f"{result.title}-selfplay-{result.seed}.json"
            path.write_text(json.dumps(result.site_log()), encoding="utf-8")

    try:
        summary = play_many(args.games, args.seed, args.title, options, args.rules == "site", write, args.players)
    except EngineError as exc:
        print(f"troika: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary))
    else:
        print(_selfplay_text(summary))
    return 0 if not summary["failures"] else 1


def _selfplay_text(summary: dict[str, Any]) -> str:
    """The self-play summary for a reader: the games, what they went through, the failures."""
    seen = summary["exercised"]
    label = ", ".join([summary["title"], *summary.get("options", [])])
    counts = ", ".join(f"{k}: {v}" for k, v in seen["last_phase"].items())
    ends = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in seen["ends"].items())
    lines = [
        f"{label}: {summary['games']} games, {summary['actions']} actions, {len(summary['failures'])} failures",
        f"last phase reached ({counts}); {seen['reached_phase_6']} reached phase 6",
        f"ends ({ends}); {seen['exports']} exports, {seen['merges']} merges, {seen['conversions']} conversions",
    ]
    return "\n".join(lines + summary["failures"])


def cmd_arena(args: argparse.Namespace) -> int:
    """Play whole games between computer players (computer, greedy, random), checking
    self-play's invariants after every action; wins, ranks, decision times, a rating."""
    from bot.arena import arena
    from engine import AGENTS, check_options, rulebook_players

    names = [n.strip().lower() for n in args.seats.split(",") if n.strip()]
    unknown = sorted(set(names) - set(AGENTS))
    try:
        options = check_options(args.title, (o.lower() for o in args.options))
        if unknown:
            raise EngineError(f"no computer player called {', '.join(unknown)}: {', '.join(AGENTS)}")
        if len(names) not in rulebook_players(args.title, options):
            raise EngineError(f"{args.title} seats {', '.join(map(str, rulebook_players(args.title, options)))} "
                              f"players, not {len(names)}")
    except EngineError as exc:
        print(f"troika: {exc}", file=sys.stderr)
        return 2
    summary = arena(args.title, names, args.games, args.seed, options, args.rules == "site", max(1, args.jobs))
    if args.json:
        print(json.dumps(summary))
    else:
        for name, entry in summary["agents"].items():
            ms = entry["decision_ms"]
            print(f"{name}: {entry['wins']} wins in {entry['seats']} seats, mean rank {entry['mean_rank']}, "
                  f"decisions p50 {ms['p50']} ms, p95 {ms['p95']} ms, max {ms['max']} ms, rating {entry['rating']}")
        for failure in summary["failures"]:
            print(f"failure: {failure}")
    return 0 if not summary["failures"] else 1


def cmd_export(args: argparse.Namespace) -> int:
    """Write a stored game as an 18xx.games log, to open on the site."""
    import asyncio
    from pathlib import Path

    from bot.site_games import site_export
    from storage import StoreError, store_at

    async def export() -> Any:
        async with store_at(args.db, read_only=True) as store:
            record = await store.get_game(args.game)
            return site_export(record, await store.events(args.game))

    problem = _database(args.db)
    if not problem and Path(args.out).exists() and not args.force:
        problem = f"{args.out} exists; give --force to overwrite it"
    if problem:
        print(f"troika: {problem}", file=sys.stderr)
        return 2
    try:
        done = asyncio.run(export())
    except (StoreError, EngineError) as exc:
        print(f"troika: {exc}", file=sys.stderr)
        return 1
    try:
        Path(args.out).write_text(json.dumps(done.log, ensure_ascii=False), encoding="utf-8")
    except OSError as exc:
        print(f"troika: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return 2
    if done.warning:
        print(f"troika: warning: {done.warning}", file=sys.stderr)
    print(f"{args.out}: game {args.game}, {counted(done.actions, 'action')}")
    return 0


def _database(location: str) -> str | None:
    """Why ``location`` cannot be used as an existing database, if it cannot."""
    from pathlib import Path

    from storage.copy import unknown_location
    from storage.postgres import is_postgres_url, safe_url

    problem = unknown_location(location)
    if problem is not None or is_postgres_url(location):
        return problem
    if Path(location.removeprefix("sqlite:")).exists():
        return None
    return f"no database at {safe_url(location)}"


def _database_folder(location: str) -> str | None:
    """Why a SQLite database cannot be made at ``location``, if its folder is missing."""
    from pathlib import Path

    from storage.copy import unknown_location
    from storage.postgres import is_url, safe_url

    problem = unknown_location(location)
    if problem is not None or is_url(location):  # a server's database, or one Troika does not know
        return problem
    folder = Path(location.removeprefix("sqlite:")).parent
    if folder.is_dir():
        return None
    return (f"the folder {safe_url(str(folder))} of the database {safe_url(location)} does not exist; create it, "
            "or give another --db")


RESTORE_HINT = "to restore, stop Troika and copy a backup made with `troika backup` over it"
WEB_DEFAULT = "127.0.0.1:8861"
"""Where the console serves the games' web pages unless told otherwise."""


def _store_problem(exc: Exception) -> str:
    """The one line an operator reads for a store that cannot be used: the hint to
    restore a backup only for damage SQLite's own check confirms."""
    from storage import DatabaseDamaged

    return f"troika: {exc}" + (f"; {RESTORE_HINT}" if isinstance(exc, DatabaseDamaged) else "")


def cmd_run(args: argparse.Namespace) -> int:
    """The Discord bot (or one shard of it) if a token is configured, else the local console."""
    import asyncio
    from pathlib import Path

    from bot.archive import read_archive_after
    from bot.discord_bot import TokenError, load_token
    from storage import Shard, StoreError

    try:
        token = load_token()
    except OSError as exc:
        print(f"troika: cannot read DISCORD_TOKEN_FILE: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print("troika: the token file (DISCORD_TOKEN_FILE) is not UTF-8 text; put the bot's token in it",
              file=sys.stderr)
        return 2
    except TokenError as exc:
        print(f"troika: {exc}; put the bot's token in it, or unset DISCORD_TOKEN_FILE "
              "to play at the console", file=sys.stderr)
        return 2
    shard = None
    if args.shards is not None or args.shard_id is not None:
        if args.shards is None or args.shard_id is None or not token:
            print("troika: --shards N and --shard-id I go together, for the Discord bot "
                  "(set DISCORD_TOKEN)", file=sys.stderr)
            return 2
        try:
            shard = Shard(args.shard_id, args.shards)
        except ValueError as exc:
            print(f"troika: {exc}", file=sys.stderr)
            return 2
    if args.workers is not None and args.workers < 0:
        print("troika: --workers is a number of processes: 0 or more", file=sys.stderr)
        return 2
    try:
        archive_after = read_archive_after(args.archive_after or os.environ.get("TROIKA_ARCHIVE_AFTER") or "60d")
    except ValueError as exc:
        print(f"troika: --archive-after: {exc}", file=sys.stderr)
        return 2
    problem = _database_folder(args.db)
    if problem:
        print(f"troika: {problem}", file=sys.stderr)
        return 2
    web = _start_web(args, bool(token))
    if isinstance(web, int):
        return web
    try:
        if token:
            from bot.discord_bot import run_discord, startup_problem

            # Ctrl-C or `kill -INT` stops the bot cleanly even when a non-interactive shell
            # started it in the background, whose jobs inherit SIGINT ignored (POSIX).
            signal.signal(signal.SIGINT, signal.default_int_handler)
            try:
                asyncio.run(run_discord(token, args.db, args.guild, shard, workers=args.workers,
                                        archive_after=archive_after))
            except Exception as exc:
                found = startup_problem(exc)
                if found is None:
                    raise
                print(f"troika: {found[1]}", file=sys.stderr)
                return found[0]
        else:
            from bot.console import run_console

            asyncio.run(run_console(args.db, Path(args.pictures), workers=args.workers, archive_after=archive_after))
    except KeyboardInterrupt:
        pass
    except StoreError as exc:
        print(_store_problem(exc), file=sys.stderr)
        return 2
    finally:
        if web is not None:
            web.stop()
    return 0


def _start_web(args: argparse.Namespace, discord: bool) -> Any:
    """The web companion for ``troika run`` (None when off), or the exit status if the
    address asked for cannot be served. The console serves on :data:`WEB_DEFAULT`
    unless told ``--web off`` (or ``TROIKA_WEB``, the default of ``--web``); Discord only
    where ``--web`` says."""
    from bot.web.__main__ import link_to, start_web
    from bot.web.links import base_url

    listen = args.web or os.environ.get("TROIKA_WEB") or (None if discord else WEB_DEFAULT)
    if listen is None or listen == "off":
        if args.web_url:  # another process (one shard) serves the pages: this one only writes links
            link_to(args.db, args.web_url)
        return None

    try:
        web = start_web(args.db, listen, args.web_url)
    except (ValueError, OSError) as exc:
        if args.web:
            print(f"troika: the web page cannot be served on {listen}: {exc}", file=sys.stderr)
            return 2
        print(f"troika: the web page is off ({exc}); `--web HOST:PORT` serves it elsewhere", file=sys.stderr)
        return None
    print(f"Web page: {base_url()} (`web` prints a game's link)", flush=True)
    return web


def cmd_admin_accept(args: argparse.Namespace) -> int:
    """Show where a game's replay under this Troika first differs from its record, and
    on confirmation accept the new replay so the game loads again."""
    import asyncio

    from storage import (
        GameRepository,
        ReplayMismatch,
        StoreError,
        TroikaEngine,
        store_at,
    )

    async def accept() -> int:
        async with store_at(args.db) as store:
            repo = GameRepository(store, TroikaEngine())
            try:
                await repo.load(args.game)
                print(f"game {args.game} replays to the state recorded; nothing to accept")
                return 0
            except ReplayMismatch as exc:
                print(exc)
            event = await repo.first_difference(args.game)
            if event is not None:
                print(f"first difference: after event {event.seq} ({event.kind}, by {event.actor or 'the bot'}, "
                      f"{event.created_at:%Y-%m-%d %H:%M} UTC): {json.dumps(event.action)}")
            if not (args.yes or _confirm(f"accept this Troika's replay of game {args.game}? [y/N] ")):
                print("not accepted (`--yes` accepts without asking)")
                return 1
            live = await repo.accept_replay(args.game, None, args.note)
            print(f"game {args.game} accepted at event {live.seq}; it loads again")
            return 0

    problem = _database(args.db)
    if problem:
        print(f"troika: {problem}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(accept())
    except StoreError as exc:  # a game that does not replay at all, or no such game
        print(_store_problem(exc), file=sys.stderr)
        return 1


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    return input(question).strip().lower() in ("y", "yes")


def cmd_backup(args: argparse.Namespace) -> int:
    """Copy the whole database, consistently, while the bot may be using it (a PostgreSQL
    database is copied into a SQLite file)."""
    import asyncio

    from storage import StoreError, store_at

    async def backup() -> None:
        async with store_at(args.db, read_only=True) as store:
            await store.backup(args.path)

    problem = _database(args.db)
    if problem:
        print(f"troika: {problem}", file=sys.stderr)
        return 2
    try:
        asyncio.run(backup())
    except StoreError as exc:
        print(_store_problem(exc), file=sys.stderr)
        return 1
    print(args.path)
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    """Copy every game, event and pending post into an empty database, then replay each
    game on both sides to prove the copy; until proved, the target is marked unfinished
    and refused by every other command. Run again, it finishes an unfinished copy."""
    import asyncio

    from storage import StoreError, TroikaEngine, store_at
    from storage.copy import CopyReport, copy_store, verify_copy
    from storage.postgres import safe_url

    async def migrate() -> tuple[CopyReport, CopyReport | None]:
        async with store_at(args.source) as source, store_at(args.target, accept_unfinished_copy=True) as target:
            copied = await copy_store(source, target)
            if copied.problems:
                return copied, None
            checked = await verify_copy(source, target, TroikaEngine())
            if not checked.problems:
                await target.mark_copy(None)
            return copied, checked

    problem = _database(args.source)
    if problem:
        print(f"troika: {problem}", file=sys.stderr)
        return 2
    try:
        copied, checked = asyncio.run(migrate())
    except StoreError as exc:
        print(_store_problem(exc), file=sys.stderr)
        return 1
    kept = f" ({copied.kept} more were there from an unfinished copy)" if copied.kept else ""
    print(f"copied {copied.games} games, {copied.events} events and {copied.posts} pending posts "
          f"to {safe_url(args.target)}{kept}")
    for line in (checked.problems if checked else copied.problems):
        print(f"troika: {line}", file=sys.stderr)
    if checked is None:
        print(f"troika: {len(copied.problems)} rows cannot be copied as they are, so their games were not; mend "
              "or remove them in the source and run the same `troika migrate` again (the games copied stay); "
              "until then the target is marked unfinished and Troika refuses it", file=sys.stderr)
        return 1
    if checked.problems:
        print("troika: the copy differs from the source; it stays marked unfinished", file=sys.stderr)
        return 1
    print(f"{checked.replayed} of {checked.games} games replay to the same state on both sides, the others are "
          "refused alike (not started or not loadable); the copy is complete")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Time replays, the store, pictures, routes and command answers on the shared games."""
    import os
    from pathlib import Path

    from bot.bench import run_bench

    root = Path(__file__).resolve().parent.parent
    shared = Path(os.environ.get("TROIKA_SHARED") or root.parent / "shared")
    try:
        figures = run_bench(shared)
    except FileNotFoundError as exc:
        print(f"troika: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))
    return 0


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help at the terminal's width, found without ``shutil`` (argparse
    imports it to ask, 6.6 M instructions at every start, for help rarely shown)."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ.get("COLUMNS") or os.get_terminal_size().columns)
        except (OSError, ValueError):  # not a terminal, or COLUMNS is no number
            columns = 80
        super().__init__(prog, width=columns - 2)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose help (its subcommands' too) is laid out by :class:`_HelpFormatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


COMMANDS = ("replay", "routes", "render", "selfplay", "arena", "run", "export", "backup", "migrate", "admin", "bench")
"""The subcommands of ``troika``."""


def _games_played(p: argparse.ArgumentParser, games: int) -> None:
    """The arguments of a command that plays whole games (``selfplay``, ``arena``)."""
    p.add_argument("--games", type=int, default=games)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--title", default=DEFAULT_TITLE, choices=list(TITLES), help="the game to play (default 1861)")
    p.add_argument("--options", nargs="*", default=[], metavar="OPTION",
                   help="the rulebook's optional rules to play, e.g. long-game (the `options` command lists them)")
    p.add_argument("--rules", default="rulebook", choices=["rulebook", "site"],
                   help="the rulebook's, or the rules as 18xx.games applies them")


def _game_and_action(p: argparse.ArgumentParser) -> None:
    """The arguments of a command that reads a real game up to an action."""
    p.add_argument("game", help="the game log (JSON exported from 18xx.games)")
    at = p.add_mutually_exclusive_group()
    at.add_argument("--at", type=int, default=None, metavar="N",
                    help="stop after move N: the #N of the bot's `log`, the web page's ?at=N")
    at.add_argument("--id", type=int, default=None, metavar="ID", help="stop after the site's action ID")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``troika`` command line. Given the command typed, only that command's arguments
    are declared (argparse spends about a million instructions on each command's); an
    unknown or absent one gets them all, for the help or the error."""
    every = command not in COMMANDS
    parser = _Parser(prog="troika", description=__doc__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    if every or command == "replay":
        p = sub.add_parser("replay", help="replay an 18xx.games game log, or every game of a folder",
                           description=cmd_replay.__doc__)
        p.add_argument("game", nargs="?", help="the game log (JSON exported from 18xx.games, may be gzipped)")
        p.add_argument("--trace", help="the state after every action (.trace.jsonl[.gz]) to compare with")
        p.add_argument("--corpus", metavar="FOLDER", help="replay every game of FOLDER against the trace beside it")
        p.add_argument("--title", help="with --corpus: only games of this title, e.g. 1861")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(func=cmd_replay)

    if every or command == "routes":
        p = sub.add_parser("routes", help="the best routes now, or checked against a real game's runs",
                           description=cmd_routes.__doc__)
        _game_and_action(p)
        p.add_argument("--check-logged", action="store_true", help="compare with every logged run instead")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(func=cmd_routes)

    if every or command == "render":
        p = sub.add_parser("render", help="draw the map, market and table of a real game",
                           description=cmd_render.__doc__)
        _game_and_action(p)
        p.add_argument("--out", required=True, help="folder for map.png, market.png, table.png")
        p.add_argument("--routes", action="store_true", help="also routes.png: the last run's routes")
        p.add_argument("--svg", action="store_true", help="also write each picture's SVG")
        p.set_defaults(func=cmd_render)

    if every or command == "selfplay":
        p = sub.add_parser("selfplay", help="play random games, checking the rules' invariants",
                           description=cmd_selfplay.__doc__)
        _games_played(p, 20)
        p.add_argument("--players", type=int, help="only games of this many players (default: every count "
                       "the rulebook seats, in turn)")
        p.add_argument("--export", metavar="DIR", help="write each game as an 18xx.games log into DIR")
        p.add_argument("--json", action="store_true", help="the summary as JSON")
        p.set_defaults(func=cmd_selfplay)

    if every or command == "arena":
        p = sub.add_parser("arena", help="computer players against each other over whole games",
                           description=cmd_arena.__doc__)
        p.add_argument("--seats", default="computer,random,random,random",
                       help="the agents in seat order, comma-separated: computer, greedy, random")
        _games_played(p, 10)
        p.add_argument("--jobs", type=int, default=1,
                       help="play the games in this many processes (the same figures, sooner)")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(func=cmd_arena)

    database = os.environ.get("TROIKA_DB") or "troika.db"
    where = "a SQLite file or a postgresql:// URL (default: $TROIKA_DB, else ./troika.db)"
    if every or command == "run":
        p = sub.add_parser(
            "run", help="the Discord bot (DISCORD_TOKEN set), else the local console",
            description="The Discord bot if a token is set: DISCORD_TOKEN, or DISCORD_TOKEN_FILE naming a file "
                        "that holds it. Without one, the local console (hot-seat play at a prompt).",
        )
        p.add_argument("--db", default=database, help=f"the database: {where}")
        p.add_argument("--pictures", default="pictures", help="console: folder for the pictures")
        p.add_argument("--guild", type=int, default=None, help="Discord: sync slash commands to this server now")
        p.add_argument("--shards", type=int, default=None, help="Discord: the bot runs as this many processes")
        p.add_argument("--shard-id", type=int, default=None, help="Discord: which of them this is (0, 1, ...)")
        p.add_argument("--web", metavar="HOST:PORT", default=None,
                       help=f"serve the games' web pages there (console default {WEB_DEFAULT}, or TROIKA_WEB; "
                            "`off`: none)")
        p.add_argument("--web-url", metavar="URL", default=None,
                       help="the pages' public address, behind a reverse proxy (see deploy/WEB.md)")
        p.add_argument("--workers", type=int, default=None,
                       help="worker processes for the games' engine work, the bot's or the console's (default: "
                            "one per core, at least 2; 0: all in the one process)")
        p.add_argument("--archive-after", metavar="SPAN", default=None,
                       help="archive a game with no move for this long: 60d (the default, or TROIKA_ARCHIVE_AFTER), "
                            "12h, 90m, or off")
        p.set_defaults(func=cmd_run)

    if every or command == "export":
        p = sub.add_parser("export", help="write a stored game as an 18xx.games log", description=cmd_export.__doc__)
        p.add_argument("--db", default=database, help=f"the database: {where}")
        p.add_argument("--game", type=int, required=True, help="the game's number")
        p.add_argument("--out", required=True, help="the file to write (JSON)")
        p.add_argument("--force", action="store_true", help="overwrite the file if it exists")
        p.set_defaults(func=cmd_export)

    if every or command == "backup":
        p = sub.add_parser("backup", help="copy the database while it is in use", description=cmd_backup.__doc__)
        p.add_argument("path", help="where to write the copy (a SQLite file)")
        p.add_argument("--db", default=database, help=f"the database: {where}")
        p.set_defaults(func=cmd_backup)

    if every or command == "migrate":
        p = sub.add_parser("migrate", help="copy every game into an empty database and prove the copy")
        p.add_argument("--from", dest="source", required=True, help="the database to copy: sqlite:PATH or a URL")
        p.add_argument("--to", dest="target", required=True, help="the empty database: postgresql://... or sqlite:PATH")
        p.set_defaults(func=cmd_migrate)

    if every or command == "admin":
        p = sub.add_parser("admin", help="operator commands on the database")
        admin = p.add_subparsers(dest="admin", required=True)
        p = admin.add_parser("accept", help="accept a new Troika's replay of a game that no longer loads")
        p.add_argument("game", type=int, help="the game's number")
        p.add_argument("--db", default=database, help=f"the database: {where}")
        p.add_argument("--yes", action="store_true", help="accept without asking")
        p.add_argument("--note", default="accepted by the operator after a rules change", help="logged with it")
        p.set_defaults(func=cmd_admin_accept)

    if every or command == "bench":
        p = sub.add_parser("bench", help="time replays, store, pictures, routes and command answers",
                           description=cmd_bench.__doc__)
        p.add_argument("--json", action="store_true", help="print one JSON object on one line")
        p.set_defaults(func=cmd_bench)
    return parser


GC_THRESHOLD = 10_000
"""Objects allocated between garbage collections (Python's default is 700): the engine
allocates much and keeps most of it, so collecting often only walks the same objects."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``troika`` console script."""
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    # The route packing's sums are small: OpenBLAS's extra threads only spin, taking
    # the other core from the bot (a national solve used half again as much CPU).
    # Read once, when numpy first loads, which no command has done yet.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    if args.command is None:
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
