"""Who may use the app, and as whom.

With no sign-in configured the app has one learner, `LOCAL`, and serves on loopback only;
served on another address it needs sign-in (Streamlit's OIDC, the `[auth]` section of a
`secrets.toml`) or an explicit COACH_ALLOW_ANONYMOUS=1. A signed-in learner is the pair
(issuer, subject) of their identity token, never their email alone: `Learner.key` is a hash of
the pair, short and safe as a database value and a folder name.
"""

from __future__ import annotations

import hashlib
import ipaddress
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

LOCAL_KEY = "local"


@dataclass(frozen=True)
class Learner:
    key: str
    issuer: str = ""
    subject: str = ""
    email: str | None = None
    name: str | None = None

    @property
    def is_local(self) -> bool:
        return self.key == LOCAL_KEY


LOCAL = Learner(LOCAL_KEY, name="this machine's learner")


def learner_key(issuer: str, subject: str) -> str:
    """The learner's id in the database and on disk: issuer and subject together, hashed."""
    if not issuer or not subject:
        raise ValueError("a signed-in learner needs both the token's issuer and subject")
    return hashlib.sha256(f"{issuer}\n{subject}".encode()).hexdigest()[:32]


def signed_in(issuer: str, subject: str, email: str | None = None, name: str | None = None) -> Learner:
    return Learner(learner_key(issuer, subject), issuer, subject, email or None, name or None)


def is_loopback(address: str | None) -> bool:
    """True for an address only this machine can reach; an empty one means every interface."""
    if not address:
        return False
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


AUTH_KEYS = ("redirect_uri", "cookie_secret")
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")


def auth_section(secrets_files: Iterable[str | Path]) -> dict | None:
    """The `[auth]` section of the secrets files Streamlit reads (later files add to and override
    earlier ones, as Streamlit merges them), or None when none has one."""
    merged: dict | None = None
    for name in secrets_files:
        path = Path(name).expanduser()
        if not path.is_file():
            continue
        try:
            section = tomllib.loads(path.read_text(encoding="utf-8")).get("auth")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # Streamlit reports an unreadable secrets file in its own words
        if isinstance(section, dict) and section:
            merged = {**(merged or {}), **section}
    return merged


def auth_missing(section: dict) -> list[str]:
    """The keys sign-in needs that the section lacks: its own (redirect_uri, cookie_secret) and
    the default provider's (in `[auth]` itself or `[auth.default]`)."""
    missing = [key for key in AUTH_KEYS if not section.get(key)]
    default = section.get("default")
    provider: dict = default if isinstance(default, dict) else section
    missing += [key for key in PROVIDER_KEYS if not provider.get(key)]
    return missing


def auth_problem(secrets_files: Iterable[str | Path]) -> str | None:
    """One line when an `[auth]` section is there but incomplete (sign-in would fail at the first
    click), else None."""
    section = auth_section(secrets_files)
    if section is None or not (missing := auth_missing(section)):
        return None
    return (f"the [auth] section of the secrets file lacks {', '.join(missing)}, so nobody could sign in: "
            "complete it (see the README, 'Sign-in') or remove it")


def auth_configured(secrets_files: Iterable[str | Path]) -> bool:
    """Whether the secrets files Streamlit reads have a complete `[auth]` section: an incomplete
    one is not sign-in (it must not let the app serve beyond this machine)."""
    section = auth_section(secrets_files)
    return section is not None and not auth_missing(section)


def serving_refusal(address: str | None, sign_in: bool, allow_anonymous: bool) -> str | None:
    """The one line that refuses to serve, or None when serving is safe or explicitly allowed."""
    if sign_in or allow_anonymous or is_loopback(address):
        return None
    where = address or "every network interface"
    return (f"Rehearse will not serve on {where} without sign-in, or everyone who reaches it would see everyone's "
            "sessions: configure sign-in (an [auth] section in .streamlit/secrets.toml, or one named with "
            "--secrets.files PATH; see the README, 'Sign-in') or set COACH_ALLOW_ANONYMOUS=1 to allow anonymous use.")
