"""Eighth handwritten intent batch (issue 15): what was decided, what a fact is after a correction, what the user
suspects, what is still open after reports, what comes next. Written from the kind definitions by the understand
engineer; no benchmark query was read for it. ``python training/understand/intent_hw8.py`` writes
``intent_hw8.jsonl`` (ids ``*-itrain-hw8-*``), read by the trainer beside ``intent_train.jsonl``."""

from __future__ import annotations

import json
from pathlib import Path

FL, OT, TS, PR, EM, PL, FR, GE = ("fact_lookup", "open_tasks", "task_status", "preference", "emotion", "plan", "frame",
                                  "general")

ZH = [
    ("沙发最后定的哪个？", FL), ("我们上次决定选哪家幼儿园来着", FL), ("周末班还是晚班，我最后报的哪个", FL),
    ("装修风格当时怎么定的", FL), ("春节去哪过我们说好了吗", FL), ("理财最后选了哪一款", FL),
    ("会议到底是周几", FL), ("我妹妹现在在哪个城市", FL), ("房租到底是多少", FL), ("我车牌尾号是几", FL),
    ("航班是几点的来着", FL), ("我姐姐在哪个行业上班", FL), ("我同事小李什么时候休假", FL), ("房东是个什么样的人", FL),
    ("我之前怀疑漏水是哪里来的", FL), ("上次说网老断可能是什么原因", FL), ("我觉得快递丢在哪了", FL),
    ("我舅舅开的什么店", FL), ("孩子的钢琴老师是谁", FL), ("交房是哪天", FL),
    ("还有哪些事没办完", OT), ("我手上还挂着什么事", OT), ("这周还剩什么要弄的", OT), ("有什么是我答应了还没做的", OT),
    ("搬家那边还差什么", OT), ("还有啥没交的费用", OT),
    ("水管修好没有", TS), ("护照办得怎么样了", TS), ("给房东的邮件发了吗", TS), ("牙医约到哪天了", TS),
    ("退款到账了没", TS), ("报税弄到哪一步了", TS), ("露营那个还去吗", TS), ("家长会改到什么时候了", TS),
    ("我订酒店有什么讲究", PR), ("开会我喜欢约什么时候", PR), ("我喝咖啡加什么奶", PR), ("出差我一般坐什么", PR),
    ("回复我要注意什么", PR), ("周末能给我排事吗", PR),
    ("搬家接下来该干嘛", PL), ("签证材料准备好以后下一步是什么", PL), ("装修的流程走到哪一步了，接下来呢", PL),
    ("面试之后还要做什么", PL),
    ("那阵子我为什么那么烦", EM), ("上次说起房东我是什么心情", EM), ("面试前我紧不紧张", EM),
    ("你都记得我哪些事", GE), ("把我跟你说过的都列一下", GE),
]
EN = [
    ("Which sofa did we end up with?", FL), ("What did I decide about the nursery?", FL),
    ("Weekend class or evening class, which did I pick?", FL), ("What did we settle on for the garden?", FL),
    ("Where are we spending New Year, did we decide?", FL), ("Which pension fund did I go for?", FL),
    ("What day is the meeting again?", FL), ("Where is my sister based these days?", FL), ("How much is the rent exactly?", FL),
    ("What time is the flight?", FL), ("What does my uncle do for a living?", FL), ("When is Priya off on leave?", FL),
    ("What was my theory about the leak?", FL), ("Why did I think the wifi kept dropping?", FL),
    ("Where did I reckon the parcel ended up?", FL), ("Who teaches the kids piano?", FL), ("When do we get the keys?", FL),
    ("What's our landlord like?", FL), ("What's the final call on the laptop?", FL), ("Did we agree on a date for the wedding?", FL),
    ("What's still open on my side?", OT), ("Anything I promised and haven't done?", OT), ("What's left for the move?", OT),
    ("Which bills haven't I paid yet?", OT), ("What do I still owe people this week?", OT), ("Remind me what's outstanding", OT),
    ("Did the plumber ever get booked?", TS), ("Where are we with the passport?", TS), ("Has the landlord email gone out?", TS),
    ("When's the dentist now?", TS), ("Has the refund landed?", TS), ("How far along are the tax forms?", TS),
    ("Is the camping trip still on?", TS), ("When did they move parents' evening to?", TS),
    ("How do I like my hotel rooms?", PR), ("When do I want meetings scheduled?", PR), ("What milk do I take?", PR),
    ("How do I prefer to travel for work?", PR), ("How should you keep your answers for me?", PR),
    ("Can you book things for me on Sundays?", PR),
    ("What's the next step for the move?", PL), ("After the visa forms, what comes next?", PL),
    ("Where are we in the renovation plan and what follows?", PL), ("What do I do after the interview?", PL),
    ("Why was I so wound up back then?", EM), ("How was I feeling about the landlord?", EM),
    ("Was I nervous before the interview?", EM), ("What have you got on me so far?", GE), ("List everything I've told you", GE),
]


def rows() -> list[dict[str, str]]:
    out = []
    for lang, items in (("zh", ZH), ("en", EN)):
        for i, (query, kind) in enumerate(items):
            out.append({"id": f"{lang}-itrain-hw8-{i:03d}", "lang": lang, "query": query, "kind": kind})
    return out


if __name__ == "__main__":
    with open(Path(__file__).resolve().parent / "intent_hw8.jsonl", "w", encoding="utf-8") as fh:
        for row in rows():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
