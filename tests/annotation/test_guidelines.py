"""Guidelines load no image from another site (a tracking pixel would tell a third party who reads them, and when):
only images on this site or in ``data:`` URIs keep their ``src``."""
from __future__ import annotations

import pytest

from annotation.services.guidelines import render_guidelines

PIXEL = "data:image/gif;base64,R0lGODlhAQABAAAAACw="


@pytest.mark.parametrize("src", [
    "https://tracker.example/p.gif?judge=1", "http://tracker.example/p.gif", "//tracker.example/p.gif",
    "/\\tracker.example/p.gif", "/&#9;/tracker.example/p.gif", " https://tracker.example/p.gif",
    "HTTPS://tracker.example/p.gif", "data:image/svg+xml;base64,PHN2Zz4=", "data:text/html;base64,PGI+",
    "ftp://tracker.example/p.gif",
])
def test_images_from_elsewhere_lose_their_source_and_keep_their_alt_text(src):
    for text in (f"![logo]({src})", f'<img alt="logo" src="{src}">'):
        html = str(render_guidelines(text))
        assert "src=" not in html and "tracker" not in html and 'alt="logo"' in html


@pytest.mark.parametrize("src", [PIXEL, "/static/guidelines/example.png", "/media/ranks.webp"])
def test_images_of_this_site_and_data_uris_are_kept(src):
    assert f'src="{src}"' in str(render_guidelines(f"![example]({src})"))


def test_links_keep_working_but_not_as_data_uris():
    html = str(render_guidelines("[the paper](https://aclanthology.org/D15-1052/) and [x](data:text/html,<b>hi</b>)"
                                 ' <a href="da&#9;ta:text/html,hi">y</a>'))
    assert 'href="https://aclanthology.org/D15-1052/"' in html
    assert "data:" not in html and html.count("href=") == 1
