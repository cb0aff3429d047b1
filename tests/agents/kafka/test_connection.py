from __future__ import annotations

import asyncio
import ssl
from typing import Any

import pytest
from faust.auth import SASLCredentials, SSLCredentials

from agents.kafka.connection import (
    bootstrap_servers,
    client_kwargs,
    faust_credentials,
    wait_for_broker,
)
from monitor.config.errors import BrokerUnavailable, ConfigError
from monitor.config.settings import load_settings


def test_bootstrap_list_accepts_kafka_urls_and_spaces() -> None:
    settings = load_settings(bootstrap_servers="kafka://a:9092, b:9093,,")
    assert bootstrap_servers(settings) == ["a:9092", "b:9093"]
    with pytest.raises(ConfigError):
        bootstrap_servers(load_settings(bootstrap_servers=" , "))


def test_plaintext_has_no_credentials() -> None:
    settings = load_settings(bootstrap_servers="k:9092")
    assert faust_credentials(settings) is None
    assert client_kwargs(settings) == {
        "bootstrap_servers": ["k:9092"],
        "security_protocol": "PLAINTEXT",
    }


def test_sasl_plaintext_maps_to_faust_and_aiokafka() -> None:
    settings = load_settings(
        bootstrap_servers="k:9092",
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="monitor",
        sasl_password="s3cret",
    )
    creds = faust_credentials(settings)
    assert isinstance(creds, SASLCredentials)
    assert creds.username == "monitor" and creds.password == "s3cret"
    assert creds.mechanism.value == "SCRAM-SHA-512"
    assert "s3cret" not in repr(creds)
    assert client_kwargs(settings) == {
        "bootstrap_servers": ["k:9092"],
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "monitor",
        "sasl_plain_password": "s3cret",
    }


def test_sasl_ssl_carries_a_verifying_tls_context() -> None:
    settings = load_settings(
        security_protocol="SASL_SSL", sasl_username="u", sasl_password="p", sasl_mechanism="PLAIN"
    )
    kwargs = client_kwargs(settings)
    assert kwargs["security_protocol"] == "SASL_SSL"
    assert kwargs["sasl_mechanism"] == "PLAIN"
    context = kwargs["ssl_context"]
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_ssl_only_and_bad_files() -> None:
    creds = faust_credentials(load_settings(security_protocol="SSL"))
    assert isinstance(creds, SSLCredentials)
    assert client_kwargs(load_settings(security_protocol="SSL"))["security_protocol"] == "SSL"
    with pytest.raises(ConfigError, match="TLS files"):
        faust_credentials(load_settings(security_protocol="SSL", ssl_cafile="/nonexistent.pem"))


def test_sasl_without_user_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="RAGMON_SASL_USERNAME"):
        faust_credentials(load_settings(security_protocol="SASL_PLAINTEXT"))


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_wait_for_broker_backs_off_then_gives_up_with_one_clear_error() -> None:
    t = FakeTime()
    probes: list[Any] = []

    async def probe(kwargs: dict[str, Any]) -> str | None:
        probes.append(kwargs["bootstrap_servers"])
        return "Connection refused"

    settings = load_settings(bootstrap_servers="127.0.0.1:1")
    with pytest.raises(BrokerUnavailable) as err:
        asyncio.run(
            wait_for_broker(
                settings, max_wait=20, probe=probe, sleep=t.sleep, clock=t.clock, max_delay=8
            )
        )
    assert t.sleeps == [1, 2, 4, 8]  # the next wait (8 s at t=15) would pass 20 s
    assert len(probes) == 5
    assert "127.0.0.1:1" in str(err.value) and "Connection refused" in str(err.value)
    assert err.value.servers == "127.0.0.1:1"


def test_wait_for_broker_returns_when_it_answers() -> None:
    t = FakeTime()
    answers = iter(["refused", "refused", None])

    async def probe(kwargs: dict[str, Any]) -> str | None:
        return next(answers)

    asyncio.run(wait_for_broker(load_settings(), probe=probe, sleep=t.sleep, clock=t.clock))
    assert t.sleeps == [1, 2]
