"""Reaching Kafka: bootstrap list, SASL/SSL credentials, and waiting for the broker.

One mapping from settings to credentials serves Faust (the worker) and aiokafka (admin client,
producer, probes), so `ragmon produce` and `ragmon worker` authenticate the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiokafka import AIOKafkaClient
from faust.auth import SASLCredentials, SSLCredentials
from faust.transport.drivers.aiokafka import credentials_to_aiokafka_auth
from faust.types.auth import CredentialsT

from monitor.config.errors import BrokerUnavailable, ConfigError
from monitor.config.settings import Settings

log = structlog.get_logger("ragmon.broker")


def bootstrap_servers(settings: Settings) -> list[str]:
    servers = []
    for part in settings.bootstrap_servers.split(","):
        server = part.strip()
        if server.startswith("kafka://"):
            server = server[len("kafka://") :]
        if server:
            servers.append(server)
    if not servers:
        raise ConfigError("bootstrap_servers is empty (RAGMON_BOOTSTRAP_SERVERS)")
    return servers


def ssl_context(settings: Settings) -> ssl.SSLContext | None:
    """A verifying TLS context for SSL and SASL_SSL (system CAs unless `ssl_cafile`)."""
    if settings.security_protocol not in ("SSL", "SASL_SSL"):
        return None
    try:
        context = ssl.create_default_context(cafile=settings.ssl_cafile)
        if settings.ssl_certfile:
            context.load_cert_chain(settings.ssl_certfile, settings.ssl_keyfile)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot load TLS files: {exc}") from None
    return context


def faust_credentials(settings: Settings) -> CredentialsT | None:
    protocol = settings.security_protocol
    if protocol == "PLAINTEXT":
        return None
    context = ssl_context(settings)
    if protocol == "SSL":
        return SSLCredentials(context)
    if not settings.sasl_username or settings.sasl_password is None:
        raise ConfigError(f"{protocol} needs RAGMON_SASL_USERNAME and RAGMON_SASL_PASSWORD")
    return SASLCredentials(
        username=settings.sasl_username,
        password=settings.sasl_password.get_secret_value(),
        ssl_context=context,
        mechanism=settings.sasl_mechanism,
    )


def client_kwargs(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for any aiokafka client (producer, consumer, admin)."""
    auth = dict(credentials_to_aiokafka_auth(faust_credentials(settings)))
    if auth.get("ssl_context") is None:
        auth.pop("ssl_context", None)
    return {"bootstrap_servers": bootstrap_servers(settings), **auth}


async def broker_reachable(kwargs: dict[str, Any], timeout: float = 5.0) -> str | None:
    """None when the cluster answers a metadata request, else a one-line reason."""
    client = AIOKafkaClient(**{k: v for k, v in kwargs.items() if k != "client_id"})
    try:
        await asyncio.wait_for(client.bootstrap(), timeout)
        return None
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except Exception as exc:  # any client error means "not usable now"; the reason is logged
        return str(exc) or type(exc).__name__
    finally:
        # Closing a half-open client must not mask the answer.
        with contextlib.suppress(Exception):
            await client.close()


async def wait_for_broker(
    settings: Settings,
    *,
    max_wait: float | None = None,
    first_delay: float = 1.0,
    max_delay: float = 30.0,
    probe: Callable[[dict[str, Any]], Awaitable[str | None]] = broker_reachable,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Return once the broker answers; retry with exponential backoff, one log line per try.

    Raises BrokerUnavailable after `max_wait` seconds (None: keep trying until interrupted).
    """
    kwargs = client_kwargs(settings)
    servers = ",".join(kwargs["bootstrap_servers"])
    started = clock()
    delay = first_delay
    attempt = 0
    while True:
        attempt += 1
        reason = await probe(kwargs)
        if reason is None:
            if attempt > 1:
                log.info("broker reachable", servers=servers, attempts=attempt)
            return
        waited = clock() - started
        if max_wait is not None and waited + delay > max_wait:
            raise BrokerUnavailable(
                f"Kafka broker at {servers} unreachable after {attempt} attempt(s) "
                f"over {waited:.0f} s: {reason}",
                servers=servers,
            )
        log.warning(
            "broker unreachable, retrying",
            servers=servers,
            attempt=attempt,
            retry_in_s=round(delay, 1),
            reason=reason,
        )
        await sleep(delay)
        delay = min(max_delay, delay * 2)
