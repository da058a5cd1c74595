"""The docs stay true to the product: README.md and docs/*.md.

- Every pass and pipeline `linea-opt --help` lists whose name starts with
  `linea-` or `convert-linea` is named somewhere in the docs.
- Every fenced ```mlir block that is a complete program (it contains
  `func.func` or a top-level `module`) parses and verifies with `linea-opt`;
  a failure names the file and the line of the error. Blocks that are
  fragments (a single op, or IR with `...` standing for what is left out)
  are skipped: their operands are defined elsewhere, and no robust wrapping
  can give them types (a dynamic prefix's index operand has none in the type
  list, for one). Pages that want an op's syntax checked show it inside a
  function.
- Every relative markdown link resolves to an existing file or folder.
- The README stays at most 200 lines.

Plain Python (numpy-free); the tools come from `linea.runner.build_dir()`
($LINEA_BUILD_DIR, or build/ beside the repository).
"""
import pathlib
import re
import subprocess
import tempfile

from linea.runner import build_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]
README_MAX_LINES = 200


def doc_files():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def rel(path):
    return path.relative_to(ROOT).as_posix()


def linea_opt():
    tool = build_dir() / "bin" / "linea-opt"
    assert tool.exists(), f"{tool} is missing: build Linea first (scripts/build.sh)"
    return tool


# ---------------------------------------------------------------------------
# Markdown structure: fenced blocks and prose
# ---------------------------------------------------------------------------

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


def fenced_blocks(path):
    """(language, first content line number, text) of every fenced block."""
    blocks, lines = [], path.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang, start = m.group(2), m.group(3).lower(), i + 1
        j = start
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        blocks.append((lang, start + 1, "\n".join(lines[start:j]) + "\n"))
        i = j + 1
    return blocks


def prose(path):
    """The file's text with fenced blocks and inline code blanked out (line
    numbers kept), so that code such as `R[l:2l](x)` is never taken for a link."""
    out, lines, fence = [], path.read_text().splitlines(), None
    for line in lines:
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(2)
            out.append("")
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            out.append("")
        else:
            out.append(re.sub(r"`[^`]*`", "``", line))
    return out


# ---------------------------------------------------------------------------
# (a) every pass is documented
# ---------------------------------------------------------------------------

def listed_passes():
    help_text = subprocess.run([str(linea_opt()), "--help"], capture_output=True,
                               text=True, check=True).stdout
    return sorted(set(re.findall(r"^\s+--((?:linea-|convert-linea)[\w-]*)\s", help_text,
                                 re.M)))


def test_every_pass_is_documented():
    passes = listed_passes()
    assert len(passes) > 20, f"linea-opt --help listed too few Linea passes: {passes}"
    text = "\n".join(p.read_text() for p in doc_files())
    missing = [name for name in passes
               if not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text)]
    assert not missing, ("passes linea-opt --help lists that README.md and docs/*.md never "
                         "name: " + ", ".join(missing))


# ---------------------------------------------------------------------------
# (b) every complete ```mlir block parses
# ---------------------------------------------------------------------------

COMPLETE = re.compile(r"\bfunc\.func\b|^\s*(?:builtin\.)?module\b", re.M)


def mlir_blocks():
    """(file, line, text) of every complete ```mlir block, and the number of
    fragments skipped."""
    complete, fragments = [], 0
    for path in doc_files():
        for lang, line, text in fenced_blocks(path):
            if lang != "mlir":
                continue
            if COMPLETE.search(text):
                complete.append((path, line, text))
            else:
                fragments += 1
    return complete, fragments


def parse_error(tool, text, scratch):
    """None if linea-opt parses and verifies `text`, else (line within the
    block, first line of the diagnostic)."""
    scratch.write_text(text)
    run = subprocess.run([str(tool), str(scratch), "-o", "/dev/null"], capture_output=True,
                         text=True)
    if run.returncode == 0:
        return None
    message = run.stderr.strip().splitlines()[0] if run.stderr.strip() else (
        f"exit code {run.returncode}")
    m = re.search(re.escape(str(scratch)) + r":(\d+):\d+:\s*", message)
    if not m:
        return 1, message
    return int(m.group(1)), message[m.end():]


def test_mlir_blocks_parse():
    tool = linea_opt()
    blocks, _ = mlir_blocks()
    assert blocks, "no complete ```mlir block in README.md or docs/*.md"
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = pathlib.Path(tmp) / "block.mlir"
        for path, line, text in blocks:
            error = parse_error(tool, text, scratch)
            if error:
                offset, message = error
                failures.append(f"{rel(path)}:{line + offset - 1}: {message}")
    assert not failures, "```mlir blocks linea-opt does not parse:\n" + "\n".join(failures)


# ---------------------------------------------------------------------------
# (c) relative links resolve
# ---------------------------------------------------------------------------

INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")


def relative_links(path):
    """(line, target) of every link in the file's prose that is not absolute
    (a scheme such as https:, or a bare #anchor)."""
    links = []
    for number, line in enumerate(prose(path), 1):
        targets = INLINE_LINK.findall(line) + REFERENCE_LINK.findall(line)
        for target in targets:
            if re.match(r"^[a-zA-Z][\w+.-]*:", target) or target.startswith("#"):
                continue
            links.append((number, target))
    return links


def test_relative_links_resolve():
    broken, count = [], 0
    for path in doc_files():
        for line, target in relative_links(path):
            count += 1
            resolved = (path.parent / target.split("#", 1)[0]).resolve()
            if not resolved.exists():
                broken.append(f"{rel(path)}:{line}: {target}")
    assert count > 0, "no relative link in README.md or docs/*.md"
    assert not broken, "relative links to nothing:\n" + "\n".join(broken)


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines, at most {README_MAX_LINES}"
