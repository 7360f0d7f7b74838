"""Troika's rules engine for 1861 and 1867: pure, deterministic, no I/O.

This module is the engine's face: the bot, the pictures and storage import what they
use from here, never from the modules behind it (``tests/test_engine_face.py``).
"""

# A game, its state and the moves on it.
from .actions import (
    Action,
    BuyPrivate,
    BuyTrain,
    Choose,
    DiscardTrain,
    Dividend,
    EndGame,
    LayTile,
    Merge,
    Pass,
    PlaceToken,
    RemoveToken,
    RunRoutes,
    StandingOrder,
    action_from_dict,
)
from .errors import EngineError, IllegalAction
from .game import Game
from .legal import consent_needed, legal_actions, legal_lays
from .state import Company, Context, GameState, PlacedTile, Train
from .words import counted
from .view import AuctionView, TrackView, TurnView, pass_note, round_title, turn_view

# The notation: one parser and one writer of command words.
from .notation import (
    Unreadable,
    addressed,
    as_listed,
    command,
    distinct_rotations,
    hinted_actions,
    parse_order,
    parse_priced,
    shown,
)
from .orders import describe_order

# Titles, options and the board.
from .board import (
    COLORS,
    Board,
    CorporationDef,
    MarketCell,
    Node,
    TileDef,
    hex_distance,
    is_edge,
    load_board,
    node_index,
    parse_hex,
)
from .game_setup import Setup, check_options, describe_options, is_setup_word, parse_setup, rulebook_players
from .options import OptionDef
from .rules import MARKETS, Rules
from .titles import DEFAULT_TITLE, TITLES, title_named

# Questions a front end asks about a position.
from .loans import borrowing_power
from .market import in_price_order
from .market import price as share_price
from .scoring import final_values
from .shares import cert_count, cert_limit
from .stock_round import available_minors
from .tokens import NEUTRAL, token_cost
from .track import city_mapping, lay_cost
from .trains import LOCKS_OPEN_IN_PHASE, cheapest_bank_price, find_train, train_limit

# Routes: checking a run, the proven-best run, and their words.
from .route_notation import routes_detail
from .route_search import best_routes
from .routes import RouteResult, check_routes
from .routes_check import check_logged_routes

# A game's history: undo, replay, 18xx.games logs in and out.
from .exporter import Export, entries_from_events, export_game
from .history import effective_entries, redo_stack
from .importer import actions_of, import_log, read_log
from .replay import ReplayReport, replay

# Players that are programs: self-play and the computer player.
from .computer import AGENTS, Agent, Answer, Decision, agent_named, answer_deal, decide, decide_counted
from .selfplay import (
    MAX_ACTIONS,
    SELFPLAY_SETUPS,
    Before,
    InvariantError,
    SelfPlayResult,
    check_invariants,
    play_many,
)

ENGINE_VERSION = 7
"""Bumped when a rules change would replay an old game differently (2: the rules
fixed for every 1861 game, 1867, effects written to the log; 3: steps with nothing
to decide passed over, standing orders, and the rulebook mode's merger round,
upgrades, homes, RSR and game end of issue 21; 4: the rounds behind one protocol, the
starting bundles' round in 1861's folder, so a snapshot taken in it is rebuilt by replay;
5: a laid tile is a named tuple and a merge's undo point is saved as bytes, so
snapshots pickled before are rebuilt by replay; 6: a lay takes a copy left in the tile
supply, so laid tiles get other ids; the state's classes are dataclasses, new 8.6 and
§15 rules, so snapshots pickled before are rebuilt by replay; 7: under the site's
rules no trade-in below a price of 1, and a city whose track loops back into it is
no major's home; a standing order is over once its player's companies change, and
keeps the companies it was set among)."""

__all__ = [
    "AGENTS", "COLORS", "DEFAULT_TITLE", "ENGINE_VERSION", "LOCKS_OPEN_IN_PHASE", "MARKETS", "MAX_ACTIONS",
    "NEUTRAL", "SELFPLAY_SETUPS", "TITLES",
    "Action", "Agent", "Answer", "AuctionView", "Before", "Board", "BuyPrivate", "BuyTrain", "Choose", "Company",
    "Context", "CorporationDef", "Decision", "DiscardTrain", "Dividend", "EndGame", "EngineError", "Export", "Game",
    "GameState", "IllegalAction",
    "InvariantError", "LayTile", "MarketCell", "Merge", "Node", "OptionDef", "Pass", "PlaceToken", "PlacedTile",
    "RemoveToken", "ReplayReport", "RouteResult", "Rules", "RunRoutes", "SelfPlayResult", "Setup", "StandingOrder",
    "TileDef",
    "TrackView", "Train", "TurnView", "Unreadable",
    "action_from_dict", "actions_of", "addressed", "agent_named", "answer_deal", "as_listed", "available_minors",
    "best_routes",
    "borrowing_power", "cert_count", "cert_limit", "check_invariants", "check_logged_routes", "check_options",
    "check_routes", "cheapest_bank_price", "city_mapping", "command", "consent_needed", "counted", "decide",
    "decide_counted",
    "describe_options",
    "describe_order", "distinct_rotations", "effective_entries", "entries_from_events", "export_game",
    "final_values", "find_train", "hex_distance", "hinted_actions", "import_log", "in_price_order", "is_edge",
    "is_setup_word", "lay_cost", "legal_actions", "legal_lays", "load_board", "node_index", "parse_hex",
    "parse_order", "parse_priced", "parse_setup", "pass_note", "play_many", "read_log", "redo_stack", "replay",
    "round_title", "routes_detail", "rulebook_players", "share_price", "shown", "title_named", "token_cost",
    "train_limit", "turn_view",
]
