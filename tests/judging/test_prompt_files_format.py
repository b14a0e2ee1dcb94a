"""Prompt files (core.formats.prompt_files): written and read back exactly; every problem named
by file, line and field. Pure: no database."""

from hypothesis import example, given
from hypothesis import strategies as st

from core.formats.prompt_files import PromptFile, read_prompt_file, write_prompt_file

TEXT = "Task: {{task}}\nResponse: {{response}}\n\nCriterion: {{criterion}}"


def problems_of(content: str) -> list[str]:
    prompt, problems = read_prompt_file("p.md", content.encode())
    assert prompt is None
    return [str(problem) for problem in problems]


def test_a_written_file_reads_as_front_matter_then_the_text():
    prompt = PromptFile(name="house", text=TEXT, version=3, description="Ours.", note="Why.")
    content = write_prompt_file(prompt)
    assert content == (
        "---\nname: house\nversion: 3\nstyle: binary\ndescription: Ours.\nnote: Why.\n---\n"
        f"{TEXT}\n"
    )
    read, problems = read_prompt_file("house.md", content.encode())
    assert problems == [] and read == PromptFile(
        name="house", text=TEXT, version=3, description="Ours.", note="Why.",
        file="house.md", text_line=8,
    )  # fmt: skip


texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=80)


@given(text=texts, note=texts, description=texts, critique=st.booleans())
@example(text="x", note="a\x85b", description="c\u2028d\re\u2029", critique=False)
def test_any_text_and_metadata_come_back_exactly(text, note, description, critique):
    text = text + "{{response}}{{criterion}}"
    style = "critique" if critique else "binary"
    prompt = PromptFile(
        name="p", text=text, style=style, version=1, description=description, note=note
    )
    read, problems = read_prompt_file("p.md", write_prompt_file(prompt).encode())
    assert problems == []
    assert (read.text, read.note, read.description, read.style) == (text, note, description, style)


def test_a_file_with_windows_line_breaks_reads_the_same_text():
    windows = TEXT.replace("\n", "\r\n")
    read, problems = read_prompt_file("p.md", f"---\r\nname: p\r\n---\r\n{windows}\r\n".encode())
    assert problems == [] and read.text == windows


def test_every_problem_names_its_file_line_and_field():
    content = (
        "---\nname: house\nstyle: sharp\nversion: 0\nauthor: me\n---\n"
        "Response: {{respons}}\n{{criterion}}\n"
    )
    assert problems_of(content) == [
        "p.md: line 5: field 'author': unknown field; a prompt file's fields are name, version, "
        "style, description, note",
        "p.md: line 4: field 'version': a whole number from 1, not 0",
        "p.md: line 3: field 'style': 'sharp' is not a style; the styles are binary, critique",
        "p.md: line 7: field 'text': unknown slot {{respons}}: the slots are {{task}}, "
        "{{reference_answer}}, {{response}}, {{criterion}}, {{context}}, {{dialogue}} and "
        "{{context.<name>}}",
        "p.md: line 7: field 'text': the template never shows the judge the {{response}}",
    ]


def test_a_value_yaml_reads_as_another_type_is_asked_in_quotes():
    assert problems_of(f"---\nname: no\n---\n{TEXT}") == [
        "p.md: line 2: field 'name': text, not a boolean false (put it in quotes)"
    ]


def test_a_name_a_url_could_not_hold_is_refused():
    (problem,) = problems_of(f"---\nname: our prompt\n---\n{TEXT}")
    assert problem.startswith("p.md: line 2: field 'name': 'our prompt': a name is letters")


def test_a_file_without_front_matter_or_name_or_valid_yaml_is_refused():
    assert problems_of(TEXT) == [
        "p.md: line 1: a prompt file starts with a line '---' opening its front matter"
    ]
    assert problems_of(f"---\nname: p\n{TEXT}") == [
        "p.md: line 1: the front matter is never closed by a line '---'"
    ]
    assert problems_of(f"---\n---\n{TEXT}") == [
        "p.md: line 1: field 'name': missing: every prompt has a name"
    ]
    (problem,) = problems_of(f"---\nname: p\nnote: [unclosed\n---\n{TEXT}")
    assert problem.startswith("p.md: line 4: the front matter is not YAML")


def test_a_text_longer_than_allowed_is_refused_at_its_first_line():
    prompt, problems = read_prompt_file("p.md", f"---\nname: p\n---\n{TEXT}".encode(), max_chars=10)
    assert prompt is None and [str(p) for p in problems] == [
        f"p.md: line 4: field 'text': a prompt is at most 10 characters long; this one has "
        f"{len(TEXT)}"
    ]


def test_a_file_that_is_not_utf8_is_refused():
    prompt, problems = read_prompt_file("p.md", b"---\nname: p\n---\n\xff")
    assert prompt is None and str(problems[0]) == "p.md: line 4: not UTF-8 text"
