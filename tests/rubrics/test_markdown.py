from rubrics.templatetags.rubrics_markdown import render_markdown


def test_markdown_is_rendered():
    assert render_markdown("**Gap fill** for *A2*") == (
        "<p><strong>Gap fill</strong> for <em>A2</em></p>\n"
    )


def test_script_tags_do_not_survive():
    html = render_markdown("Hello <script>alert(1)</script> world")
    assert "<script" not in html
    assert "&lt;script&gt;" in html


def test_javascript_links_do_not_survive_in_any_spelling():
    for link in ("[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "<javascript:alert(1)>"):
        html = render_markdown(link)
        assert 'href="javascript' not in html.lower(), html


def test_event_handler_attributes_do_not_survive():
    html = render_markdown('<img src="x" onerror="alert(1)">')
    assert "<img" not in html


def test_ordinary_links_are_kept_with_a_safe_rel():
    html = render_markdown("[guide](https://example.org/guide)")
    assert 'href="https://example.org/guide"' in html
    assert 'rel="noopener noreferrer"' in html
