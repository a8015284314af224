"""The README and docs/, followed as written: every rc1 command shown in a code block parses (its configs exist), every
option an inline `rc1 ...` names is one of that command's, every cross-reference names a section or paragraph the
target page has, every link points at a file of the repository, and no page sends a user to a file they do not have."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from rc1.cli import COMMANDS, load_command

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "benchmarks" / "README.md"]
# files of the team's shared folder, which a user of rc1 does not have (its data sample is named as a layout only)
NOT_SHIPPED = ("DESIGN.md", "GPU.md", "STYLE.md", "VLLM.md")


def blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.S)


def block_commands(block: str) -> list[str]:
    """The rc1 commands of a code block: a line that is (or, after `$ `, shows) `rc1 ...`, continued by `\\`, up to a
    shell comment, `&&`, `;` or `|`."""
    out, lines, i = [], block.splitlines(), 0
    while i < len(lines):
        line = lines[i].strip().removeprefix("$ ")
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + " " + lines[i].strip()
        for part in re.split(r"&&|;|\|", line.split("  #")[0]):
            if re.match(r"rc1 [a-z-]+", part.strip()):
                out.append(part.strip())
        i += 1
    return out


def shown_commands() -> list[tuple[str, str]]:
    return [(page.name, cmd) for page in PAGES for b in blocks(page.read_text()) for cmd in block_commands(b)]


def test_there_are_commands_to_check():
    assert len(shown_commands()) >= 10


@pytest.mark.parametrize("page,command", shown_commands())
def test_a_command_shown_in_a_block_parses_and_its_configs_exist(page, command):
    name, *args = shlex.split(command)[1:]
    assert name in COMMANDS, f"{page}: {command}: no command {name}"
    try:
        load_command(name).make_context(name, args)
    except click.ClickException as e:
        pytest.fail(f"{page}: {command}: {e.format_message()}")
    for path in re.findall(r"\bconfigs/[\w./-]+", command):
        assert (REPO / path).exists(), f"{page}: {command}: {path} is not shipped"


def inline_commands() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        prose = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        out += [(page.name, m) for m in re.findall(r"`(rc1 [a-z][^`]*)`", prose) if m.split()[1] in COMMANDS]
    return out


def test_every_option_an_inline_command_names_is_one_of_its_own():
    bad = []
    for page, command in inline_commands():
        cmd = load_command(command.split()[1])
        parts = [cmd, *getattr(cmd, "commands", {}).values()]   # a group's options are its subcommands'
        known = {o for c in parts for p in c.params for o in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
        bad += [f"{page}: `{command}`: {flag}" for flag in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", command)
                if flag not in known]
    assert not bad, bad


def anchors(page: Path) -> list[str]:
    """A page's sections and bold paragraph leads (`**Judge providers.**`), as a reference would quote them."""
    text = page.read_text()
    heads = [re.sub(r"[`*]", "", line.lstrip("#").strip()) for line in text.splitlines() if line.startswith("#")]
    return heads + re.findall(r"^\*\*([^*]+?)[.:]?\*\*", text, re.M)


def target(name: str, page: Path) -> Path:
    if name.startswith("README"):
        return REPO / "README.md"
    return REPO / name if "/" in name else REPO / "docs" / name


def test_every_quoted_cross_reference_names_a_section_of_its_page():
    ref = re.compile(r'(README(?:\.md)?|(?:docs/)?(?:training|stages|prod|inference|hostile-inputs)\.md)(?:\'s)?'
                     r'[ ,(\[]*((?:"[^"]+"(?:,? (?:and )?)?)+)')
    bad = []
    for page in [*PAGES, *sorted((REPO / "configs").glob("*.yaml"))]:   # the configs' comments point at pages too
        text = re.sub(r"\s+", " ", page.read_text())
        for m in ref.finditer(text):
            where = target(m.group(1), page)
            for name in re.findall(r'"([^"]+)"', m.group(2)):
                if not any(name.lower() in a.lower() for a in anchors(where)):
                    bad.append(f"{page.name}: {m.group(1)} \"{name}\"")
    assert not bad, bad


def slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_every_link_points_at_a_file_and_section_that_exist():
    bad = []
    for page in PAGES:
        for link in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if link.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = link.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append(f"{page.name}: {link}")
            elif anchor and dest.suffix == ".md" and anchor not in {slug(a) for a in anchors(dest)}:
                bad.append(f"{page.name}: {link} (no such section)")
    assert not bad, bad


def test_no_page_sends_a_user_to_the_teams_own_files():
    bad = [f"{page.name}: {name}" for page in PAGES for name in NOT_SHIPPED
           if re.search(rf"(?<![\w/]){re.escape(name)}|shared/{re.escape(name)}", page.read_text())]
    assert not bad, bad
