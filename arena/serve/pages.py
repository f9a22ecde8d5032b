"""The live server's HTML pages and the files they load (`arena.serve.app` serves them).

Each page is a frame: its data comes from ``/api/state``, ``/match/ID/data.json`` and the
event stream, read by its script. The scripts and styles are files (package data): the match
pages load the replay viewer's own ``viewer.js`` and ``viewer.css`` (`arena/view/`) and
``live.js``, which feeds the viewer as the match is played; ``/`` loads ``home.js``. The
Content-Security-Policy allows this server only: no inline script, nothing from elsewhere.
"""

from __future__ import annotations

import html
from importlib import resources

from arena import PRODUCT

#: The files under ``/assets/``: their package and content type.
ASSETS = {
    "viewer.js": ("arena.view", "text/javascript; charset=utf-8"),
    "viewer.css": ("arena.view", "text/css; charset=utf-8"),
    "live.js": ("arena.serve", "text/javascript; charset=utf-8"),
    "home.js": ("arena.serve", "text/javascript; charset=utf-8"),
    "live.css": ("arena.serve", "text/css; charset=utf-8"),
}

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".sh": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".png": "image/png",
}

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'">
<meta name="generator" content="{product} (arena serve)">
<title>{title}</title>
{styles}
</head>
<body class="{kind}">
{body}
{scripts}
</body>
</html>
"""


def _page(kind: str, title: str, body: str, styles: list[str], scripts: list[str]) -> str:
    return _PAGE.format(
        product=html.escape(PRODUCT),
        title=html.escape(title),
        kind=kind,
        body=body,
        styles="\n".join(f'<link rel="stylesheet" href="/assets/{name}">' for name in styles),
        scripts="\n".join(f'<script src="/assets/{name}"></script>' for name in scripts),
    )


def home_page(title: str) -> str:
    """``/``: the tournament, kept up to date by ``home.js``."""
    body = (
        '<div id="home" data-page="home"><header class="live-top"><h1 id="home-title">'
        f"{html.escape(title)}</h1>"
        '<span id="connection" class="connection">connecting…</span></header>'
        '<main id="home-main"><p class="muted">Loading…</p></main></div>'
    )
    return _page("live-home", title, body, ["live.css"], ["home.js"])


def match_page(title: str, match: int) -> str:
    """``/match/ID``: the replay viewer, fed by ``live.js`` as the match is played."""
    body = (
        f'<div id="live-bar" class="live-bar" data-match="{match}" data-mode="match">'
        '<a href="/">← tournament</a><span id="live-state" class="live-state">connecting…'
        '</span><span id="clocks" class="clocks"></span></div><div id="app"></div>'
    )
    return _page(
        "live-match",
        f"Match {match} · {title}",
        body,
        ["viewer.css", "live.css"],
        ["viewer.js", "live.js"],
    )


def tv_page(title: str) -> str:
    """``/tv``: the match in progress, large and without controls; the next when it ends."""
    body = (
        '<div id="live-bar" class="live-bar" data-mode="tv"><span id="live-state" '
        'class="live-state">waiting for a match…</span><span id="clocks" class="clocks">'
        '</span></div><div id="app"></div>'
    )
    return _page(
        "live-tv", f"TV · {title}", body, ["viewer.css", "live.css"], ["viewer.js", "live.js"]
    )


def asset_file(name: str) -> tuple[str, str] | None:
    """The text and content type of the asset ``name``, or ``None`` for any other name."""
    found = ASSETS.get(name)
    if found is None:
        return None
    package, kind = found
    return resources.files(package).joinpath(name).read_text(encoding="utf-8"), kind


def content_type(name: str) -> str:
    """The content type of a file of the served folder, by its suffix."""
    dot = name.rfind(".")
    return _TYPES.get(name[dot:].lower() if dot >= 0 else "", "application/octet-stream")
