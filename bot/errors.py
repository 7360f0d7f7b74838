"""The bot's refusals: each carries a message to show the player as it is."""


class Refusal(ValueError):
    """A command the bot will not carry out; nothing was stored."""


class NoGame(Refusal):
    """The channel has no game for this command."""


class NotAllowed(Refusal):
    """The player may not do this (not seated, not their turn, not the commissioner)."""


class PostWaits(Exception):
    """A post its channel will not take now (a permission missing there): it stays in the
    outbox for a later delivery; the frontend has said why."""


class WorkerStopped(Refusal):
    """The worker carrying out a call stopped (or answered nonsense) before answering."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(
            "Troika's engine stopped while carrying out that command (our fault, logged) and has "
            "started again from the stored game. `status` shows whether the command was recorded; "
            "if it was not, type it again." + (f" ({detail})" if detail else "")
        )
