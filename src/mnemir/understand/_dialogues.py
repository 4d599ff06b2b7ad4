"""Training rows read from the shared labelled task dialogues (MultiWOZ 2.1, CrossWOZ and their translations).

Only what their dialogue acts say soundly about mnemir's labels is taken (see training/understand/README.md):

* system turns that ask, offer, recommend, select or say goodbye -> extraction ``NONE`` (``speaker`` assistant):
  an assistant's turn is no memory about the user; turns that report a booking the system made are left out;
* user turns whose acts are only requests and courtesies ("what is the address?", "thanks, bye") -> extraction
  ``NONE``: a question to the assistant is no memory;
* the same user request turns, when they name nothing of the user's own ("my", "我的"), -> intent ``general``: a
  question about the world asks for no particular kind of memory.

Only the validation files are read (never ``test.json.zip``), and a dialogue and its translation are read from the
same split. The data is read from ``$MNEMIR_SHARED_DATASETS`` or ``<checkout>/../shared/datasets`` at training time;
it is never copied into the repository. Sampling is seeded, so the rows are the same every run.
"""

from __future__ import annotations

import json
import os
import random
import re
import zipfile
from pathlib import Path
from typing import Any

from mnemir._paths import repo_root
from mnemir.errors import ConfigError

__all__ = ["SOURCES", "dialogue_rows", "shared_datasets_dir"]

#: dataset folder -> language
SOURCES = {"multiwoz21": "en", "multiwoz21_zh": "zh", "crosswoz": "zh", "crosswoz_en": "en"}
#: system act intents that ask, offer or close (MultiWOZ English, MultiWOZ Chinese, CrossWOZ)
_SYSTEM_TALK = {"request", "reqmore", "welcome", "bye", "greet", "recommend", "offerbook", "select", "nooffer",
                "请求", "更多请求", "欢迎", "再见", "问好", "推荐", "提供预定", "选择", "无结果"}
#: system act intents that report what the system did or found out (a booking made, a fact told): left out
_SYSTEM_REPORT = {"book", "offerbooked", "nobook", "预定", "完成预定", "无预定"}
_USER_QUESTION = {"request", "请求"}
_USER_COURTESY = {"thank", "bye", "greet", "谢谢", "再见", "问好", "general"}
_OWN = re.compile(r"\b(?:my|mine|our|ours|me)\b|我的|我们的|咱|我家", re.I)


def shared_datasets_dir() -> Path:
    path = Path(os.environ.get("MNEMIR_SHARED_DATASETS") or repo_root().parent / "shared" / "datasets")
    if not path.is_dir():
        raise ConfigError(f"the shared dialogue datasets were not found at {path}: set $MNEMIR_SHARED_DATASETS, "
                          "or train with --no-shared", path=str(path))
    return path


def _detokenize(text: str) -> str:
    """MultiWOZ's English is tokenised ("does n't", "Allenbell ."): glue it back."""
    text = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
    text = re.sub(r" ([.,?!;:])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _turns(folder: Path) -> list[tuple[str, str, set[str]]]:
    """(role, text, act intents lower-cased) of every turn of the validation file."""
    with zipfile.ZipFile(folder / "val.json.zip") as archive:
        data: dict[str, Any] = json.loads(archive.read(archive.namelist()[0]))
    out = []
    for dialogue_id in sorted(data):
        dialogue = data[dialogue_id]
        if "messages" in dialogue:  # CrossWOZ: [intent, domain, slot, value]
            for turn in dialogue["messages"]:
                intents = {str(a[0]).lower() for a in turn["dialog_act"]}
                intents |= {str(a[1]).lower() for a in turn["dialog_act"] if str(a[0]) == "General"}
                out.append(("user" if turn["role"] == "usr" else "assistant", turn["content"], intents))
        else:  # MultiWOZ: {"Domain-Intent": [...]}, user turns first
            for index, turn in enumerate(dialogue["log"]):
                intents = {key.split("-", 1)[1].lower() for key in turn["dialog_act"] if "-" in key}
                out.append(("user" if index % 2 == 0 else "assistant", _detokenize(turn["text"]), intents))
    return out


def _fits(text: str) -> bool:
    return 4 <= len(text) <= 200


def dialogue_rows(per_source: int, *, seed: int = 11) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(extraction rows, intent rows) sampled from each source: up to ``per_source`` assistant turns and as many
    user questions per source for extraction, half that many user questions for intent."""
    base = shared_datasets_dir()
    extraction: list[dict[str, Any]] = []
    intent: list[dict[str, Any]] = []
    for name, lang in SOURCES.items():
        turns = _turns(base / name)
        system = sorted({text for role, text, acts in turns
                         if role == "assistant" and acts & _SYSTEM_TALK and not acts & _SYSTEM_REPORT and _fits(text)})
        questions = sorted({text for role, text, acts in turns
                            if role == "user" and acts & _USER_QUESTION and acts <= _USER_QUESTION | _USER_COURTESY
                            and _fits(text)})
        rng = random.Random(f"{seed}:{name}")
        for i, text in enumerate(rng.sample(system, min(per_source, len(system)))):
            extraction.append({"id": f"{lang}-{name}-sys-{i:04d}", "lang": lang, "speaker": "assistant", "text": text,
                               "expect": [], "source": name})
        picked = rng.sample(questions, min(per_source, len(questions)))
        for i, text in enumerate(picked):
            extraction.append({"id": f"{lang}-{name}-usr-{i:04d}", "lang": lang, "speaker": "user", "text": text,
                               "expect": [], "source": name})
        world = [t for t in picked if not _OWN.search(t)][: per_source // 2]
        for i, text in enumerate(world):
            intent.append({"id": f"{lang}-{name}-q-{i:04d}", "lang": lang, "query": text, "kind": "general",
                           "source": name})
    return extraction, intent
