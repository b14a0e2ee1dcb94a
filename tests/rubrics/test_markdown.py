from django.utils.safestring import SafeString

from rubrics.markdown import markdown_excerpt, render_markdown


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


# ----- excerpts: the start of a text as plain text -------------------------------------------
def test_an_excerpt_keeps_the_words_and_drops_the_markup():
    text = "## Feedback\n\nYou **should** use *the past*:\n\n- `went`\n- [gone](https://x.org)\n"
    assert markdown_excerpt(text, 200) == "Feedback You should use the past: went gone"


def test_an_excerpt_is_one_line_of_the_blocks_words_kept_apart():
    text = (
        "> A quote\n\n```\nprint(1)\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nline one\nline two"
    )
    assert markdown_excerpt(text, 200) == "A quote print(1) a b 1 2 line one line two"


def test_an_excerpt_is_text_never_html():
    excerpt = markdown_excerpt("<script>alert(1)</script> & ![a picture](x.png)", 200)
    assert excerpt == "<script>alert(1)</script> & a picture"  # shown escaped, as any text
    assert not isinstance(excerpt, SafeString)


def test_a_long_text_is_cut_to_the_length_asked_with_an_ellipsis():
    excerpt = markdown_excerpt("**word** " * 100, 30)
    assert len(excerpt) == 30 and excerpt.endswith("…") and "*" not in excerpt
    assert markdown_excerpt("", 30) == ""
