"""The session-21 extraction batch (ids ``*-s21-*``): written by hand for issue 15's weakest types on fresh text
(``ContextualFrame`` and ``Task``, docs/decisions/0075), in our own words, on topics of our own; never copied or
paraphrased from an evaluation file (checked for shared runs of five words / eight Chinese characters by a test).

    python training/understand/s21.py      # writes extraction_s21.jsonl next to this file

What it teaches (the kinds of error read on the extraction dev files, each written here in shapes of our own):

- a ``ContextualFrame`` is the situation the conversation happens in, for now: where the user is at this moment and
  what that means for the replies (in a queue, at a counter, between meetings), a mode for this conversation
  (only listen, think aloud without judging, play a part so the user can rehearse, quiz me, teach step by step) and
  the work being done together right now; it is not a standing wish about every reply (a ``Preference``), not a
  guess ("might have to go"), and the place is not a fact to keep;
- a request that the assistant do a piece of work (draft, translate, compare, look up, list, check), with its
  details and with or without a time, is a ``Task``, also when it says how soon or adds a reason; a piece of work the
  user must get done by a date, told as a statement ("the … is due on …", "… 得在 … 前办好"), is a ``Task`` too
  (work under way is left out: other batches read it as a report in progress);
- a standing wish about how the assistant should answer in general stays a ``Preference``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _batch import labelled_rows, write_rows

FRAMES_EN = [
    "Queueing to post a parcel, keep it snappy for a few minutes.",
    "Wandering round the nursery with a trolley of shrubs, keep a tally of what's in it.",
    "Sitting at the gate waiting to board, we've got maybe fifteen minutes to go through this.",
    "I'm in a hardware shop aisle staring at forty kinds of screws, so answer in one short line please.",
    "I'm between two meetings and typing on my phone, so bullet points would be best.",
    "We're mid-rehearsal for the school play and I'll throw you quick questions about the lighting cues.",
    "For this conversation, pretend you're a strict driving examiner and quiz me on the highway code.",
    "Play a grumpy customer who wants a refund and let me practise handling the complaint.",
    "Quiz mode please: ask me one capital city at a time and tell me if I got it right.",
    "Let's turn this into a revision hour for my chemistry exam, topic by topic.",
    "Right now I'm just thinking out loud about changing jobs, no need to solve it for me yet.",
    "Let's just throw around ideas for the club's summer fundraiser, nothing is too silly at this stage.",
    "I only need you to listen for a while, it's been a long week and I don't want solutions.",
    "Be my sparring partner for the debate tomorrow, argue the opposite side as hard as you can.",
    "Act as the interviewer for a junior accountant role and ask me the usual questions one by one.",
    "We're fixing a jammed printer together right now, tell me the next thing to check and wait for me.",
    "I'm on a ward visit with my grandad, I'll ask a few things about what the nurse said as we go.",
    "Cooking dinner with flour on my hands, so read me the recipe step by step.",
    "Parked by the school gates until pickup, we have roughly ten minutes.",
    "Currently in a flooring showroom, and the sales guy won't stop steering me to oak.",
    "Until we finish, this chat is only about my CV, so stick to its wording.",
    "This session is about sorting the shed inventory, I'll read items out and you log them.",
    "Let's do a mock parents' evening where you're the teacher and I'm the worried dad.",
    "I'm at the bike shop counter and they're asking which gears I want, quick help please.",
    "Talk to me like a coach at half time, short and punchy, I'm warming up for the match.",
    "We're going through the wedding seating chart together now, table by table.",
    "I'm at the bank branch waiting to be called, I might disappear mid-sentence.",
    "Treat the next half hour as a language lesson: only French, and fix my mistakes gently.",
    "I'm in a noisy pub, so I'll just peek at the screen now and then.",
    "On a support call with a customer as we speak, one-line fixes please.",
]

FRAMES_ZH = [
    "我现在在邮局排队寄包裹，你回得短一点就行。",
    "这会儿在建材市场看瓷砖，老板一直推贵的，帮我盯着点预算。",
    "人在登机口等着上飞机，大概还有二十分钟能聊。",
    "我在五金店挑钻头，回复一两句话就够了。",
    "两个会中间抽空跟你说几句，用要点回我吧。",
    "下面请你演一个难缠的顾客来退货，我练练怎么应对。",
    "这会儿就当考试复习，你一次问我一个化学知识点。",
    "你来当面试官，按初级会计的岗位一道一道问我。",
    "现在我只是想自言自语理一理换工作的事，先别给结论。",
    "我们先随便扔点点子，给社团夏天的义卖想想办法，离谱的也行。",
    "今晚你就听我说说话，这周太累了，不需要你出主意。",
    "明天要辩论，你站反方，使劲跟我抬杠。",
    "我们正在一起修卡纸的打印机，你说下一步查哪儿，我弄完告诉你。",
    "我在病房陪外公，护士说的话我一会儿一句句问你。",
    "正在做饭，手上全是面粉，你一步一步念菜谱给我听。",
    "我在学校门口车里等孩子放学，大概有十分钟。",
    "接下来这段时间我们专门改简历，只聊措辞的事。",
    "这一轮我们清点储藏室，我念一样你记一样。",
    "你扮演班主任，我扮演着急的家长，我们来模拟一次家长会。",
    "我在自行车店柜台，店员问我要什么变速，快帮我参谋一下。",
    "我在银行大厅等叫号，说着说着可能就走开了。",
    "接下来半小时当法语课，全程用法语，说错了帮我改。",
    "我在很吵的饭馆里，只能偶尔看一眼手机。",
    "现在正跟客户开视频会，你每个问题给我最短的答案。",
    "这个对话就用来安排婚礼座位，一桌一桌地排。",
    "在驾校排队等练车，中途想到什么再问你。",
    "接下来你当我的教练，我正踩着动感单车，喊几句短的给我加油。",
    "今天这段就当复盘会，我说这周的事，你帮我记下问题。",
    "我在超市收银台排队，帮我快速算一下这几样加起来多少。",
    "这会儿在家长群里吵起来了，我先把消息贴给你，你帮我看看怎么回。",
]

#: a standing wish about every reply (not only this conversation's situation) stays a Preference
STANDING_EN = [
    "In general I'd like your answers short, a few bullet points is plenty.",
    "Whenever you draft emails for me, keep the tone warm but professional.",
    "I always prefer metric units, please don't give me miles or pounds.",
    "Please never use emoji when you write to me.",
    "I like explanations that start with an example before the theory.",
    "Always give me the cheapest option first, then the better ones.",
    "I prefer you spell numbers out as digits, it's easier for me to scan.",
    "For recipes, I always want the vegetarian version.",
    "I'd rather you ask me a question than guess when something's unclear.",
    "Keep your summaries to one paragraph, that's how I like them.",
]

STANDING_ZH = [
    "平时回我尽量简短，列三四条要点就够了。",
    "以后帮我写邮件，语气客气一点但别太啰嗦。",
    "我习惯用公制单位，别给我英里和磅。",
    "给我回消息别用表情包，我不太喜欢。",
    "讲道理的时候先举个例子，我比较好懂。",
    "推荐东西的时候先说最便宜的，再说贵一点的。",
    "菜谱一律给我素食版本的。",
    "拿不准的时候你先问我，别自己瞎猜。",
    "总结写一段就好，我喜欢短的。",
    "以后给我列计划都按时间先后排。",
]

REQUESTS_EN = [
    "Draft a friendly heads-up for next door about our barbecue noise this Saturday.",
    "Translate my landlord's letter into plain English, the legal wording loses me.",
    "Compare these two broadband deals and tell me which works out cheaper over eighteen months.",
    "Look up the opening hours of the recycling centre and let me know before the weekend.",
    "Put together what we should pack for a week of camping with two toddlers.",
    "Check my maths on this budget spreadsheet, something doesn't add up.",
    "Write a short speech for my sister's engagement drinks, funny but not embarrassing.",
    "Suggest five easy lunches I can take to work that don't need a microwave.",
    "Gather some readable books about Lisbon's past before I travel, nothing too academic.",
    "Rewrite this paragraph of my thesis so it sounds less clunky.",
    "Find me a plumber's checklist for winterising an outdoor tap.",
    "Turn these meeting notes into a to-do list with names next to each item, by this afternoon.",
    "Work out how much paint I need for a room four metres by three with two windows.",
    "Give me a gentle reply I can send to decline the book club this month.",
    "List the documents I'd need to renew a driving licence, I'll check them tonight.",
    "Please proofread the flyer for the bake sale before I print it tomorrow.",
    "Sketch out a three-day revision timetable for my son's geography test.",
    "Find a couple of vegan bakeries near the office, we're ordering a cake for Friday.",
    "Summarise this article on heat pumps in five lines for my dad.",
    "Help me word a complaint about the gym charging me twice.",
]

DUE_EN = [
    "The council tax form must go back by the 12th.",
    "My passport renewal needs to go in before the end of April.",
    "Our VAT filing for this quarter is due next Wednesday.",
    "The nursery deposit must be paid by Friday or we lose the place.",
    "The car insurance runs out on the 30th and I still need to renew it.",
    "The lease renewal forms must go back signed before the 5th.",
    "The scholarship essay is due in two weeks and I haven't got an outline yet.",
]

REQUESTS_ZH = [
    "帮我给邻居写个便条，说一下周六晚上家里聚会可能会有点吵。",
    "把房东发来的这封信翻成大白话，里面的法律词我看不懂。",
    "帮我比一比这两个宽带套餐，算算一年半下来哪个便宜。",
    "帮我查一下回收站几点开门，周末前告诉我。",
    "给我列个带两个小孩露营一周的行李清单。",
    "帮我核一下这张预算表，总数好像对不上。",
    "帮我写一段妹妹订婚宴上的祝酒词，要好玩但别让她难堪。",
    "推荐五种不用微波炉加热的带饭菜。",
    "帮我把论文这一段改得顺一点，读起来太别扭了。",
    "把这份会议记录整理成待办清单，每条后面写上负责人，今天下午要。",
    "帮我算算一个四米乘三米、有两扇窗的房间要买多少油漆。",
    "帮我想一句委婉的话推掉这个月的读书会。",
    "帮我列一下换驾照要带哪些材料，我今晚对一下。",
    "义卖的传单帮我校对一遍，明天就要去打印。",
    "给我儿子排一个三天的地理复习计划。",
    "帮我找两家公司附近的素食蛋糕店，周五要订蛋糕。",
    "把这篇讲空气能热水器的文章缩成五句话，我要转给我爸看。",
    "帮我写个投诉，健身房这个月重复扣了我两次钱。",
    "帮我查查去成都的高铁哪一班最早，明天要订票。",
    "楼道的灯坏了一个礼拜了，替我起草一份给物业的报修单。",
]

DUE_ZH = [
    "个税汇算得在六月底之前弄完。",
    "孩子幼儿园的押金周五之前必须交，不然名额就没了。",
    "车险这个月三十号到期，还没续。",
    "租房合同得在五号前签好寄回去。",
    "奖学金申请的文书两周后截止，我提纲都还没列。",
    "季度报表下周三要交给财务。",
    "护照下个月到期，得赶紧去办续签。",
]


def rows() -> list[dict[str, object]]:
    groups: list[tuple[str, list[str], dict[str, object]]] = [
        ("en", FRAMES_EN, {"type": "ContextualFrame"}),
        ("en", STANDING_EN, {"type": "Preference"}),
        ("en", REQUESTS_EN, {"type": "Task", "status": "pending"}),
        ("en", DUE_EN, {"type": "Task"}),
        ("zh", FRAMES_ZH, {"type": "ContextualFrame"}),
        ("zh", STANDING_ZH, {"type": "Preference"}),
        ("zh", REQUESTS_ZH, {"type": "Task", "status": "pending"}),
        ("zh", DUE_ZH, {"type": "Task"})]
    return labelled_rows("s21", groups)


if __name__ == "__main__":
    write_rows("extraction_s21.jsonl", rows())
