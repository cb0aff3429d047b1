"""The one exception hierarchy of ragmon. Skipping an event is control flow, not an error."""

from __future__ import annotations


class RagmonError(Exception):
    """Root of every error ragmon raises on purpose."""


class ConfigError(RagmonError):
    """Invalid configuration (settings, rules file, CLI arguments)."""


class InputError(RagmonError):
    """An input file or stream could not be read."""


class NotFoundError(InputError):
    """What was asked for (an event id, an app, a dead letter) is not where it was looked for;
    `known` names what is there, for the message and for scripts."""

    def __init__(self, message: str, *, what: str, known: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.what = what
        self.known = known


class BrokerUnavailable(RagmonError):
    """The Kafka bootstrap servers did not answer."""

    def __init__(self, message: str, *, servers: str) -> None:
        super().__init__(message)
        self.servers = servers


class JudgeError(RagmonError):
    """A judge call failed; `reason` is the outcome label it is counted under."""

    def __init__(self, message: str, *, reason: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.retry_after = retry_after


class GrafanaError(RagmonError):
    """A Grafana HTTP API call failed."""

    def __init__(self, message: str, *, status: int | None = None, reason: str = "error") -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason


class DependencyVersionError(RagmonError):
    """An installed library is at a version ragmon's patches of it were not written for."""

    def __init__(self, message: str, *, package: str, found: str, supported: str) -> None:
        super().__init__(message)
        self.package = package
        self.found = found
        self.supported = supported


class ModelFileError(RagmonError):
    """A local model file is missing or is not the pinned one (version or sha256)."""
