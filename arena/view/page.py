"""The HTML document every page of the arena is written in: the replay viewer
(:mod:`arena.view.html`) and the tournament report (:mod:`arena.tournament.html_report`).

One self-contained file: the stylesheet and the script inline, nothing loaded from the network
(the Content-Security-Policy forbids it), so the page opens from disk. Every page's stylesheet and
script are files of this package (:func:`asset`: ``viewer.css`` and ``viewer.js`` for the viewer,
``report.css`` and ``report.js`` for the report), listed in pyproject.toml's package-data.
"""

from __future__ import annotations

import html
from importlib import resources

from arena import PRODUCT

#: The package whose files are the pages' stylesheets and scripts.
_ASSETS = "arena.view"

# The braces of the CSS and the script are inserted by format(), never parsed by it.
_DOCUMENT = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="{product} ({made_by})">
<title>{title}</title>
<style>
{css}
</style>
</head>
<body>
{body}
<script>
{js}
</script>
</body>
</html>
"""


def html_document(*, title: str, made_by: str, css: str, body: str, js: str) -> str:
    """One whole page: ``body`` (HTML, inserted as it is) between the stylesheet ``css`` and
    the script ``js``, both inline.

    ``title`` is plain text (escaped here); ``made_by`` names the command that makes the page,
    for the ``generator`` meta tag (``arena report``).
    """
    return _DOCUMENT.format(
        title=html.escape(title),
        product=html.escape(PRODUCT),
        made_by=html.escape(made_by),
        css=css,
        body=body,
        js=js,
    )


def asset(name: str) -> str:
    """The text of the page asset ``name`` (``viewer.css``, ``report.js``…) as the file has it."""
    return resources.files(_ASSETS).joinpath(name).read_text(encoding="utf-8")
