"""The exceptions of polygo.client, under one root.

Every error a player or a bot author can meet carries a short code (stable, for programs) and a
sentence (for people), the same pair the server uses for refused messages::

    ClientError
    ├── UsageError            bad command-line flags or arguments            code "bad-usage"
    ├── EngineError           a GTP engine failed
    │   ├── EngineTerminated  the engine process exited                     code "engine-died"
    │   ├── EngineTimeout     the engine did not answer in time              code "engine-timeout"
    │   ├── EngineProtocolError  the engine's answer is not GTP             code "engine-protocol"
    │   └── EngineCommandFailed  the engine answered "? ..."                code "engine-refused"
    ├── ConnectionFailed      no server to talk to                           code "no-server"
    └── ServerRefused         the server refused a request (its own code)
"""

from __future__ import annotations


class ClientError(Exception):
    """Root of polygo.client's exceptions: a code for programs and a sentence for people."""

    code = "client-error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]"


class UsageError(ClientError):
    """A command-line flag or argument that cannot be used."""

    code = "bad-usage"


class EngineError(ClientError):
    """A GTP engine process failed; the engine named in the message is unusable or refused."""

    code = "engine-error"


class EngineTerminated(EngineError):
    """The engine process exited (or could not be started)."""

    code = "engine-died"


class EngineTimeout(EngineError):
    """The engine did not answer a command in time; it has been stopped."""

    code = "engine-timeout"


class EngineProtocolError(EngineError):
    """The engine wrote something that is not a GTP response."""

    code = "engine-protocol"


class EngineCommandFailed(EngineError):
    """The engine answered a command with a GTP failure ("? ...")."""

    code = "engine-refused"

    def __init__(self, command: str, reply: str) -> None:
        super().__init__(f"the engine refused {command!r}: {reply or 'no reason given'}")
        self.command = command
        self.reply = reply


class ConnectionFailed(ClientError):
    """No server answered at the address, or the connection was lost for good."""

    code = "no-server"


class ServerRefused(ClientError):
    """The server refused a request: `code` is the server's error code, `message` its sentence,
    `reason` the engine's reason code for a refused move (``"cycle"``, ``"occupied"``, ...)."""

    code = "refused"

    def __init__(self, message: str, *, code: str, reason: str | None = None, url: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message, code=code)
        self.reason = reason
        self.url = url                    # "moved": the path of the node that serves the room
        self.retry_after = retry_after    # "unavailable": seconds to wait before asking again

    def __str__(self) -> str:
        detail = f"{self.code}: {self.reason}" if self.reason else self.code
        return f"{self.message} [{detail}]"
