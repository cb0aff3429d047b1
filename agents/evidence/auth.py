"""Who may read the evidence page: a bearer token, or a login cookie derived from it.

The page and its JSON show questions, answers and cited passages, on the port Prometheus
scrapes. /metrics stays open; everything that shows answer text asks for a credential:

- `Authorization: Bearer <token>` (scripts, `curl -H`), compared in constant time;
- the cookie `ragmon_login`, set by POSTing the token to /evidence/login (a browser following an
  alert's link): `v1.<expires>.<HMAC-SHA256(token, "ragmon-login|v1|<expires>")>`. It holds no
  token, only a MAC of its expiry, so every worker behind a load balancer accepts it and
  changing the token logs everyone out.

Tokens: RAGMON_EVIDENCE_TOKEN reads; RAGMON_REVIEW_TOKEN reads and reviews (the human-labels
form posts with it). Either may be set alone; when both are set either one logs in, each with its
own roles; the same value in both is one token with both roles.

No token set: open on a loopback bind (the demo), and a worker that would serve the page on any
other address refuses to start (`startup_problem`) unless RAGMON_EVIDENCE=off.

CSRF: a form that POSTs embeds `csrf_token(login)`, an HMAC bound to the login's cookie (so a
token from another login does not pass), and checks it with `verify_csrf`. A bearer request needs
none: browsers never attach that header on their own.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import ipaddress
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from monitor.config.settings import Settings

COOKIE = "ragmon_login"
LOGIN_PATH = "/evidence/login"
#: how long a login lasts; re-entering the token starts a new one
LOGIN_SECONDS = 12 * 3600
READ, REVIEW = "read", "review"
REALM = 'Bearer realm="ragmon evidence"'

Via = Literal["open", "bearer", "cookie"]


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine. A name other than
    `localhost` may resolve anywhere, so it counts as not loopback; so do 0.0.0.0 and ::."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def tokens(settings: Settings) -> dict[str, frozenset[str]]:
    """Each configured token with the roles it grants."""
    granted: dict[str, set[str]] = {}
    if settings.evidence_token is not None:
        granted.setdefault(settings.evidence_token.get_secret_value(), set()).add(READ)
    if settings.review_token is not None:
        granted.setdefault(settings.review_token.get_secret_value(), set()).update({READ, REVIEW})
    return {token: frozenset(roles) for token, roles in granted.items()}


def startup_problem(settings: Settings) -> str | None:
    """One line when a worker would serve answers to anyone who reaches its port, else None."""
    if not settings.evidence or tokens(settings) or is_loopback(settings.metrics_host):
        return None
    return (
        f"RAGMON_EVIDENCE_TOKEN is not set and RAGMON_METRICS_HOST={settings.metrics_host} is not "
        "a loopback address: the evidence page would show answers to anyone who reaches the port; "
        "set RAGMON_EVIDENCE_TOKEN (docs/evidence-access.md) or RAGMON_EVIDENCE=off"
    )


def _mac(key: str, message: str) -> str:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def _same(a: str, b: str) -> bool:
    # digests first: compare_digest is constant-time only for equal lengths
    return hmac.compare_digest(
        hashlib.sha256(a.encode()).digest(), hashlib.sha256(b.encode()).digest()
    )


@dataclass(frozen=True, slots=True)
class Login:
    """A request's credential: how it came and what it may do."""

    roles: frozenset[str]
    via: Via
    #: what a CSRF token is bound to: the cookie's value ("" for open and bearer logins)
    binding: str = ""
    key: str = field(default="", repr=False)  # the token that matched (never shown)

    def may(self, role: str) -> bool:
        return role in self.roles


@dataclass
class Access:
    """The configured tokens and the checks every protected route runs."""

    granted: dict[str, frozenset[str]]
    secure_cookie: bool = False
    clock: Callable[[], float] = time.time
    #: keys CSRF tokens of open (no token) logins: random per process, never sent
    _open_key: str = field(default_factory=lambda: secrets.token_hex(32), repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> Access:
        return cls(tokens(settings), secure_cookie=settings.public_url.startswith("https://"))

    @property
    def open(self) -> bool:
        return not self.granted

    def _match(self, candidate: str) -> tuple[str, frozenset[str]] | None:
        found = None
        for token, roles in self.granted.items():  # no early exit: same time for every token
            if _same(candidate, token):
                found = (token, roles)
        return found

    def authenticate(self, headers: Mapping[str, str], cookies: Mapping[str, str]) -> Login | None:
        """The request's login, or None when it must show a token first."""
        if self.open:
            return Login(frozenset({READ}), "open", key=self._open_key)
        scheme, _, credential = (headers.get("Authorization") or "").partition(" ")
        if scheme.lower() == "bearer" and credential.strip():
            match = self._match(credential.strip())
            if match is not None:
                return Login(match[1], "bearer", key=match[0])
        return self.from_cookie(cookies.get(COOKIE) or "")

    def from_cookie(self, value: str) -> Login | None:
        version, _, rest = value.partition(".")
        expires, _, mac = rest.partition(".")
        if version != "v1" or not expires.isdigit():
            return None
        now = self.clock()
        if not now < int(expires) <= now + LOGIN_SECONDS + 60:
            return None
        found = None
        for token, roles in self.granted.items():
            if _same(mac, _mac(token, f"ragmon-login|v1|{expires}")):
                found = Login(roles, "cookie", binding=value, key=token)
        return found

    def login_cookie(self, candidate: str) -> str | None:
        """The cookie value for a correct token, else None."""
        match = self._match(candidate.strip())
        if match is None:
            return None
        expires = str(int(self.clock()) + LOGIN_SECONDS)
        return f"v1.{expires}.{_mac(match[0], f'ragmon-login|v1|{expires}')}"

    def set_cookie(self, value: str) -> str:
        """A Set-Cookie header. SameSite=Lax: the cookie goes along when an alert's link is
        followed from chat or mail, never with another site's POST."""
        secure = "; Secure" if self.secure_cookie else ""
        return f"{COOKIE}={value}; Path=/; Max-Age={LOGIN_SECONDS}; HttpOnly; SameSite=Lax{secure}"

    def csrf_token(self, login: Login) -> str:
        return _mac(login.key, f"ragmon-csrf|{login.via}|{login.binding}")

    def verify_csrf(self, login: Login, submitted: str | None) -> bool:
        if login.via == "bearer":
            return True
        return bool(submitted) and _same(submitted or "", self.csrf_token(login))


def same_origin(headers: Mapping[str, str]) -> bool:
    """A POST's Origin, when the browser sent one, names this server (defence behind CSRF)."""
    origin = headers.get("Origin")
    if not origin or origin == "null":
        return origin is None
    host = headers.get("Host") or ""
    return origin.split("://", 1)[-1].rstrip("/") == host


def safe_next(target: str | None) -> str:
    """Where to go after login: a path on this server only (no open redirect)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/evidence"


def login_page(target: str, problem: str = "") -> str:
    """The form a browser gets instead of the page (401) or at /evidence/login."""
    note = f'<p class="problem">{html.escape(problem)}</p>' if problem else ""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>ragmon evidence: "
        "log in</title></head><body><h1>ragmon evidence</h1>"
        "<p>The evidence page shows answers and their sources: give the evidence token "
        "(RAGMON_EVIDENCE_TOKEN, or RAGMON_REVIEW_TOKEN to review).</p>"
        f'{note}<form method="post" action="{LOGIN_PATH}">'
        f'<input type="hidden" name="next" value="{html.escape(safe_next(target))}">'
        '<label>token <input type="password" name="token" autocomplete="current-password" '
        'required></label> <button type="submit">log in</button></form></body></html>'
    )
