"""The bot's refusals: each carries a message to show the player as it is."""


class Refusal(ValueError):
    """A command the bot will not carry out; nothing was stored."""


class NoGame(Refusal):
    """The channel has no game for this command."""


class NotAllowed(Refusal):
    """The player may not do this (not seated, not their turn, not the commissioner)."""
