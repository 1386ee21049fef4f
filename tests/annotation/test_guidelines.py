"""Guidelines load no image from another site (a tracking pixel would tell a third party who reads them, and when):
only images on this site or in ``data:`` URIs are kept; any other is shown as its alt text, not as an image without
a source (a broken-image icon)."""
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
def test_images_from_elsewhere_are_shown_as_their_alt_text(src):
    for text in (f"See the ![logo]({src}) here.", f'See the <img alt="logo" src="{src}"> here.'):
        html = str(render_guidelines(text))
        assert html == "<p>See the logo here.</p>", html


def test_an_image_from_elsewhere_without_alt_text_is_left_out_and_alt_text_stays_text():
    assert str(render_guidelines("Before ![](https://tracker.example/p.gif) after")) == "<p>Before  after</p>"
    assert str(render_guidelines('<img src="https://tracker.example/p.gif">')) == "<p></p>"
    html = str(render_guidelines('<img alt="<b>bold</b> &amp; &quot;q&quot;" src="http://tracker.example/p.gif">'))
    assert html == "<p>&lt;b&gt;bold&lt;/b&gt; &amp; &quot;q&quot;</p>", html
    html = str(render_guidelines("[![the paper](https://tracker.example/p.gif)](https://aclanthology.org/D15-1052/)"))
    assert "<img" not in html and ">the paper</a>" in html


@pytest.mark.parametrize("src", [PIXEL, "/static/guidelines/example.png", "/media/ranks.webp"])
def test_images_of_this_site_and_data_uris_are_kept(src):
    assert str(render_guidelines(f"![example]({src})")) == f'<p><img alt="example" src="{src}"></p>'


def test_links_keep_working_but_not_as_data_uris():
    html = str(render_guidelines("[the paper](https://aclanthology.org/D15-1052/) and [x](data:text/html,<b>hi</b>)"
                                 ' <a href="da&#9;ta:text/html,hi">y</a>'))
    assert 'href="https://aclanthology.org/D15-1052/"' in html
    assert "data:" not in html and html.count("href=") == 1
