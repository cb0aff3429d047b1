from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.evidence.auth import (
    COOKIE,
    LOGIN_SECONDS,
    READ,
    REVIEW,
    Access,
    is_loopback,
    safe_next,
    same_origin,
    startup_problem,
    tokens,
)
from monitor.config.errors import ConfigError
from monitor.config.settings import load_settings

READER = "r" * 32
REVIEWER = "v" * 32
NOW = 1_800_000_000.0


def access(**tokens_: str) -> Access:
    return Access(tokens(load_settings(**tokens_)), clock=lambda: NOW)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.3.2.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.5", False),
        ("ragmon.internal", False),
        ("", False),
    ],
)
def test_which_binds_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_a_non_loopback_bind_without_a_token_is_refused_in_one_line_naming_the_variable() -> None:
    problem = startup_problem(load_settings(metrics_host="0.0.0.0"))
    assert problem is not None and "\n" not in problem
    assert problem.startswith("RAGMON_EVIDENCE_TOKEN is not set")
    assert "RAGMON_EVIDENCE=off" in problem
    assert startup_problem(load_settings(metrics_host="0.0.0.0", evidence_token=READER)) is None
    assert startup_problem(load_settings(metrics_host="0.0.0.0", review_token=REVIEWER)) is None
    assert startup_problem(load_settings(metrics_host="0.0.0.0", evidence=False)) is None
    assert startup_problem(load_settings()) is None  # loopback: the demo


def test_evidence_off_parses_from_the_environment_word(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGMON_EVIDENCE", "off")
    assert load_settings().evidence is False


def test_short_tokens_are_refused_and_empty_ones_are_unset() -> None:
    with pytest.raises(ConfigError, match="RAGMON_EVIDENCE_TOKEN"):
        load_settings(evidence_token="short")
    assert load_settings(evidence_token="  ").evidence_token is None
    assert READER not in repr(load_settings(evidence_token=READER))


def test_roles_of_each_token_and_of_one_value_in_both() -> None:
    both = tokens(load_settings(evidence_token=READER, review_token=REVIEWER))
    assert both == {READER: frozenset({READ}), REVIEWER: frozenset({READ, REVIEW})}
    same = tokens(load_settings(evidence_token=READER, review_token=READER))
    assert same == {READER: frozenset({READ, REVIEW})}
    assert tokens(load_settings()) == {}


def test_no_token_is_open_with_read_only() -> None:
    login = access().authenticate({}, {})
    assert login is not None and login.via == "open"
    assert login.may(READ) and not login.may(REVIEW)


def test_bearer_tokens_log_in_with_their_roles() -> None:
    a = access(evidence_token=READER, review_token=REVIEWER)
    reader = a.authenticate({"Authorization": f"Bearer {READER}"}, {})
    reviewer = a.authenticate({"Authorization": f"bearer {REVIEWER}"}, {})
    assert reader is not None and reader.roles == {READ}
    assert reviewer is not None and reviewer.roles == {READ, REVIEW}
    for header in ("", f"Basic {READER}", f"Bearer {READER}x", "Bearer ", READER):
        assert a.authenticate({"Authorization": header}, {}) is None, header
    assert READER not in repr(reader)


def test_the_cookie_is_an_hmac_of_its_expiry_never_the_token() -> None:
    a = access(evidence_token=READER)
    cookie = a.login_cookie(READER)
    assert cookie is not None and READER not in cookie
    expires = int(NOW) + LOGIN_SECONDS
    mac = hmac.new(READER.encode(), f"ragmon-login|v1|{expires}".encode(), hashlib.sha256)
    assert cookie == f"v1.{expires}.{mac.hexdigest()}"  # computed by hand from the format
    login = a.authenticate({}, {COOKIE: cookie})
    assert login is not None and login.via == "cookie" and login.roles == {READ}
    assert a.login_cookie("wrong" * 4) is None


def test_a_cookie_stops_working_when_it_expires_or_the_token_changes() -> None:
    a = access(evidence_token=READER)
    cookie = a.login_cookie(READER)
    assert cookie is not None
    later = Access(a.granted, clock=lambda: NOW + LOGIN_SECONDS + 1)
    assert later.authenticate({}, {COOKIE: cookie}) is None
    rotated = access(evidence_token="n" * 32)
    assert rotated.authenticate({}, {COOKIE: cookie}) is None
    # a forged expiry far ahead is refused even with a matching MAC form
    forged = cookie.replace(cookie.split(".")[1], str(int(NOW) + 10 * LOGIN_SECONDS))
    assert a.authenticate({}, {COOKIE: forged}) is None


@given(st.text(max_size=120))
def test_arbitrary_cookies_never_log_in(value: str) -> None:
    assert access(evidence_token=READER).authenticate({}, {COOKIE: value}) is None


def test_csrf_tokens_are_bound_to_the_login() -> None:
    a = access(review_token=REVIEWER)
    one = a.login_cookie(REVIEWER)
    b = Access(a.granted, clock=lambda: NOW + 5)
    two = b.login_cookie(REVIEWER)
    assert one and two and one != two
    first, second = a.from_cookie(one), b.from_cookie(two)
    assert first is not None and second is not None
    token = a.csrf_token(first)
    assert a.verify_csrf(first, token)
    assert not b.verify_csrf(second, token)  # another login's token
    assert not a.verify_csrf(first, "") and not a.verify_csrf(first, None)
    bearer = a.authenticate({"Authorization": f"Bearer {REVIEWER}"}, {})
    assert bearer is not None and a.verify_csrf(bearer, None)  # browsers never send it alone


def test_open_logins_get_a_csrf_token_keyed_per_process() -> None:
    a, b = access(), access()
    login_a, login_b = a.authenticate({}, {}), b.authenticate({}, {})
    assert login_a is not None and login_b is not None
    assert a.verify_csrf(login_a, a.csrf_token(login_a))
    assert not b.verify_csrf(login_b, a.csrf_token(login_a))


def test_the_login_cookie_header() -> None:
    a = Access({READER: frozenset({READ})}, secure_cookie=True)
    header = a.set_cookie("v1.1.ab")
    assert header.startswith(f"{COOKIE}=v1.1.ab; Path=/; Max-Age={LOGIN_SECONDS}")
    assert "HttpOnly" in header and "SameSite=Lax" in header and header.endswith("; Secure")
    assert Access.from_settings(load_settings(public_url="https://ragmon.example")).secure_cookie


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/evidence?app=a&rule=b", "/evidence?app=a&rule=b"),
        ("//evil.example/x", "/evidence"),
        ("https://evil.example/", "/evidence"),
        ("/\\evil.example", "/evidence"),
        ("", "/evidence"),
        (None, "/evidence"),
    ],
)
def test_after_login_only_local_paths(target: str | None, expected: str) -> None:
    assert safe_next(target) == expected


def test_same_origin() -> None:
    assert same_origin({"Host": "127.0.0.1:6066"})
    assert same_origin({"Host": "127.0.0.1:6066", "Origin": "http://127.0.0.1:6066"})
    assert not same_origin({"Host": "127.0.0.1:6066", "Origin": "https://evil.example"})
    assert not same_origin({"Host": "127.0.0.1:6066", "Origin": "null"})
