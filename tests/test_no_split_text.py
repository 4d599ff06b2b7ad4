"""No sentence of a dev or test split appears in the code, its comments, the tests or bench/ (docs/EVALUATION.md).

A test that needs such a case writes its own. Checked on tokens (each CJK character is one, each Latin word is one;
punctuation and case are ignored), so a sentence quoted across a line break or with other punctuation is found:

* a whole evaluated sentence of at least six tokens, anywhere;
* any run of eight CJK characters of one, or of five consecutive words (24 characters or more), which finds a
  sentence quoted in part or lightly edited.

Failures name the place in the code and the data file only, never the sentence: a test split's text must not reach a
log. Training files are not checked (training generators and tests may use them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

import yaml

from mnemir._paths import benchmarks_dir, repo_root
from mnemir.eval import collapse, paraphrase
from mnemir.eval import extraction as understand

TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[a-z0-9]+(?:'[a-z]+)?")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
WHOLE = 6
CJK_RUN = 8
WORD_RUN, WORD_CHARS = 5, 24
CHECKED = ("src", "tests", "bench")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower().replace("\u2019", "'"))


def windows(toks: list[str]) -> Iterator[tuple[int, str]]:
    """(start, key) of every run of CJK_RUN CJK characters and of WORD_RUN words long enough."""
    for i in range(len(toks)):
        run = toks[i:i + CJK_RUN]
        if len(run) == CJK_RUN and all(CJK.fullmatch(t) for t in run):
            yield i, "".join(run)
        run = toks[i:i + WORD_RUN]
        if (len(run) == WORD_RUN and not any(CJK.fullmatch(t) for t in run)
                and len(" ".join(run)) >= WORD_CHARS):
            yield i, " ".join(run)


def _conversations(suite: str, split: str) -> Iterator[tuple[str, str]]:
    """Turns and questions of a conversation suite's split (continuity: checkpoints; dialogue QA: questions)."""
    folder = benchmarks_dir() / suite / split
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for conversation in data.get("conversations") or ():
            for session in conversation.get("sessions") or ():
                yield from ((str(t.get("text", "")), path.name) for t in session.get("turns") or ())
            for asked in (*(conversation.get("checkpoints") or ()), *(conversation.get("questions") or ())):
                yield str(asked.get("q", "")), path.name


def evaluated(split: str) -> Iterator[tuple[str, str]]:
    """(text, data file) of every sentence of ``split`` (dev or test) in every suite of the repository."""
    if collapse.split_files(split):
        for scenario in collapse.load(split):
            yield from ((q.text, scenario.source) for q in scenario.queries)
            yield from ((str(m["text"]), scenario.source) for m in scenario.memories)
        for scenario_id, reworded in paraphrase.load(split).items():
            yield from ((text, f"{paraphrase.FOLDER}/{scenario_id}") for text in reworded)
    for kind, key in (("extraction", "text"), ("intent", "query")):
        if understand.split_written(split):
            yield from ((str(row[key]), row["source"]) for row in understand.load_split(split, kind))
    yield from _conversations("continuity", split)
    yield from _conversations("dialogue_qa", split)


@cache
def index() -> tuple[dict[str, str], dict[tuple[str, ...], list[tuple[tuple[str, ...], str]]]]:
    """Run key -> data file; and the first three tokens of each whole sentence -> (its tokens, data file)."""
    runs: dict[str, str] = {}
    whole: dict[tuple[str, ...], list[tuple[tuple[str, ...], str]]] = {}
    for split in ("dev", "test"):
        for text, source in evaluated(split):
            toks = tokens(text)
            label = f"{split}: {source}"
            for _, key in windows(toks):
                runs.setdefault(key, label)
            if len(toks) >= WHOLE:
                whole.setdefault(tuple(toks[:3]), []).append((tuple(toks), label))
    return runs, whole


def findings(text: str) -> list[tuple[int, str]]:
    """(line, data file) of each place in ``text`` that holds an evaluated sentence or a run of one."""
    runs, whole = index()
    lines: list[int] = []
    toks: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        found = tokens(line)
        toks += found
        lines += [n] * len(found)
    out = []
    for i, key in windows(toks):
        if key in runs:
            out.append((lines[i], runs[key]))
    for i in range(len(toks) - 2):
        for sentence, label in whole.get(tuple(toks[i:i + 3]), ()):
            if tuple(toks[i:i + len(sentence)]) == sentence:
                out.append((lines[i], label))
    return sorted(set(out))


def test_no_dev_or_test_sentence_is_in_the_code_or_the_tests() -> None:
    root = repo_root()
    found = []
    for folder in CHECKED:
        for path in sorted((root / folder).rglob("*.py")):
            found += [f"{path.relative_to(root)}:{line} ({label})"
                      for line, label in findings(path.read_text(encoding="utf-8"))]
    assert not found, "evaluated sentences quoted (reword them, or write a case of your own):\n" + "\n".join(found)


def test_the_checker_finds_a_sentence_quoted_whole_in_part_or_across_lines() -> None:
    # built from a dev sentence at run time, so this file quotes none
    sentence = next(t for t, _ in evaluated("dev") if len(tokens(t)) >= 8 and not CJK.search(t)
                    and len(t) >= 40)
    words = sentence.split()
    assert findings(f'x = "{sentence}"')
    assert findings("# " + " ".join(words[:len(words) // 2]) + "\n# " + " ".join(words[len(words) // 2:]))
    assert findings(f"# {sentence.upper().replace(',', ';')}")
    assert not findings("# a sentence of our own, about nothing in particular at all")


def test_a_reworded_case_passes() -> None:
    assert tokens("I\u2019ve switched to TEA, 现在改成早上") == ["i've", "switched", "to", "tea", "现", "在", "改", "成",
                                                            "早", "上"]
    assert not findings("assert recall('what did the plumber say about the boiler last week?')")
