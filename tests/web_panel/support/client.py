"""The panel through the Flask test client: a table page's CSRF token, a referee's login."""

from __future__ import annotations

from flask.testing import FlaskClient


def csrf_of(client: FlaskClient, table: str) -> str:
    """Open the table page (which makes the session) and read its CSRF token."""
    page = client.get(f"/t/{table}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    start = text.index('data-csrf="') + len('data-csrf="')
    return text[start:text.index('"', start)]


def login(client: FlaskClient, table: str, token: str) -> str:
    csrf = csrf_of(client, table)
    r = client.post(f"/t/{table}/login", data={"token": token, "csrf": csrf})
    assert r.status_code == 303, r.get_data(as_text=True)
    return csrf
