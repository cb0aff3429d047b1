"""Kafka SASL/SSL settings reach the clients Faust and ragmon build, and secrets stay out of
error messages.

The objects checked are the real ones: the AIOKafkaConsumer of the Faust worker
(`ConsumerThread._create_worker_consumer`), the AIOKafkaProducer Faust sends with, and the
aiokafka clients ragmon builds itself from `client_kwargs` (admin for topic creation, producer
of `ragmon produce`, the broker probe). TLS material is a throw-away CA and client certificate
made with the `openssl` command.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.kafka.connection import client_kwargs
from agents.stream.app import create_app
from monitor.config.errors import ConfigError
from monitor.config.settings import Settings, load_settings
from tests.security.test_secrets import SECRETS

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = SECRETS["RAGMON_SASL_PASSWORD"]


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl command not available")
    d = tmp_path_factory.mktemp("tls")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=ragmon-test-ca")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out",
            "client.csr", "-subj", "/CN=ragmon-client")  # fmt: skip
    openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "client.pem", "-days", "2")  # fmt: skip
    return {
        "ssl_cafile": str(d / "ca.pem"),
        "ssl_certfile": str(d / "client.pem"),
        "ssl_keyfile": str(d / "client.key"),
    }


def _sasl_ssl(tls: dict[str, str]) -> Settings:
    return load_settings(
        bootstrap_servers="kafka://k1.example:9094,k2.example:9094",
        security_protocol="SASL_SSL",
        sasl_mechanism="SCRAM-SHA-512",
        sasl_username="ragmon",
        sasl_password=PASSWORD,
        metrics_port=0,
        **tls,
    )


def _client_auth(client: Any) -> dict[str, Any]:
    """What an AIOKafkaClient will use when it connects."""
    return {
        "servers": list(client._bootstrap_servers),
        "protocol": client._security_protocol,
        "mechanism": client._sasl_mechanism,
        "username": client._sasl_plain_username,
        "password": client._sasl_plain_password,
        "ssl": client._ssl_context,
    }


def _check_context(context: Any) -> None:
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    cas: list[Any] = context.get_ca_certs()
    subjects = [dict(x[0] for x in ca["subject"]) for ca in cas]
    assert {"commonName": "ragmon-test-ca"} in subjects


def test_sasl_ssl_reaches_every_kafka_client(tls_files: dict[str, str]) -> None:
    from aiokafka import AIOKafkaClient, AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient

    settings = _sasl_ssl(tls_files)
    expected = {
        "servers": ["k1.example:9094", "k2.example:9094"],
        "protocol": "SASL_SSL",
        "mechanism": "SCRAM-SHA-512",
        "username": "ragmon",
        "password": PASSWORD,
    }

    async def main() -> list[dict[str, Any]]:
        rapp = create_app(settings)
        app: Any = rapp.faust  # the driver's private factories build the real clients
        worker_consumer = app.consumer._thread._create_worker_consumer(app.transport)
        faust_producer = app.producer._new_producer()
        kwargs = client_kwargs(settings)
        admin = AIOKafkaAdminClient(**kwargs)
        producer = AIOKafkaProducer(**kwargs)
        probe = AIOKafkaClient(**kwargs)
        found = [
            _client_auth(worker_consumer._client),
            _client_auth(faust_producer.client),
            _client_auth(admin._client),
            _client_auth(producer.client),
            _client_auth(probe),
        ]
        assert worker_consumer._group_id == settings.app_id
        for client in (admin._client, probe):
            await client.close()
        return found

    for auth in asyncio.run(main()):
        context = auth.pop("ssl")
        assert auth == expected
        _check_context(context)


def test_ssl_only_carries_the_client_certificate(tls_files: dict[str, str]) -> None:
    settings = load_settings(security_protocol="SSL", **tls_files)
    kwargs = client_kwargs(settings)
    assert kwargs["security_protocol"] == "SSL"
    assert "sasl_plain_password" not in kwargs
    _check_context(kwargs["ssl_context"])
    # A key that does not match the certificate is refused when the settings are used.
    wrong = {**tls_files, "ssl_keyfile": tls_files["ssl_cafile"].replace("ca.pem", "ca.key")}
    with pytest.raises(ConfigError, match="TLS files"):
        client_kwargs(load_settings(security_protocol="SSL", **wrong))


def test_settings_errors_and_reprs_do_not_show_secrets() -> None:
    settings = load_settings(
        sasl_password=PASSWORD,
        openai_api_key=SECRETS["OPENAI_API_KEY"],
        grafana_token=SECRETS["RAGMON_GRAFANA_TOKEN"],
    )
    shown = repr(settings) + str(settings) + settings.model_dump_json()
    for value in SECRETS.values():
        assert value not in shown
    with pytest.raises(ConfigError) as err:
        load_settings(
            sasl_password=PASSWORD, openai_api_key=SECRETS["OPENAI_API_KEY"], partitions=0
        )
    assert "partitions" in str(err.value)
    with pytest.raises(ConfigError) as err:
        load_settings(grafana_token={"token": SECRETS["RAGMON_GRAFANA_TOKEN"]})
    for value in SECRETS.values():
        assert value not in str(err.value)


def _ragmon(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=ROOT,
        env={**os.environ, **SECRETS, "RAGMON_LOG_FORMAT": "json", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_failures_do_not_print_secrets(broker: Any, tmp_path: Path) -> None:
    """Failing worker start (SASL against a broker without it), failing Grafana sync (token
    refused), invalid configuration: the messages name the problem, never the secret."""
    from tests.contract.grafana_contract_server import SPEC_PATH, ContractServer

    runs = [
        _ragmon(
            "worker",
            "--max-wait",
            "2",
            env={
                "RAGMON_BOOTSTRAP_SERVERS": broker.bootstrap,
                "RAGMON_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
                "RAGMON_SASL_USERNAME": "ragmon",
                "RAGMON_METRICS_PORT": "0",
                "RAGMON_DATA_DIR": str(tmp_path / "data"),
            },
        ),
        _ragmon("worker", env={"RAGMON_PARTITIONS": "zero", "RAGMON_METRICS_PORT": "0"}),
    ]
    if SPEC_PATH.is_file():
        grafana = ContractServer(token="not-the-configured-one")
        try:
            runs.append(_ragmon("grafana", "sync", env={"RAGMON_GRAFANA_URL": grafana.url}))
        finally:
            grafana.close()
    for run in runs:
        assert run.returncode != 0
        assert "error" in run.stderr, run.stderr
        for value in SECRETS.values():
            assert value not in run.stdout + run.stderr, run.args
