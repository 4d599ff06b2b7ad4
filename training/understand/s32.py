"""The session-32 extraction batch (ids ``*-s32-*``): written by hand for issue 15 (docs/decisions/0115), from the
ontology's definitions, in our own words and on topics of our own; never copied or paraphrased from an evaluation
file, and checked against every dev and test text (``tests/test_no_split_text.findings``: no run of five words or
eight Chinese characters in common).

    python training/understand/s32.py      # writes extraction_s32.jsonl next to this file

What it teaches, at the boundaries the dev errors counted (per class, in the decision record):

- one memory told in several sentences: a feeling and what set it off, a guess and the evidence for it, a choice and
  its reason, a request and why or by when, a liking and its reason. The sentence that supports the memory is part
  of it (with ``PIECE_WEIGHT`` each sentence is also learned alone with the utterance's type), not a report of work;
- a choice told as something done ("went for…", "signed up with…") is a decision, a ``Fact``; news of what happened
  to or was done by someone else is a ``Fact``, not a report on the user's work;
- a Chinese choice told with the thinking that led to it ("考虑再三，…", "琢磨了好几天，最后…") is a decision, a
  ``Fact``, not a liking, a feeling or a report;
- Chinese reports on the user's own work without a done word: how far along it is, work dropped or handed to
  someone else, an attempt that failed, work moved to later (``TaskUpdate``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _batch import labelled_rows, write_rows

FEELINGS_EN = [
    "I'm so angry. The courier flung the parcel over the fence and the vase inside shattered.",
    "Honestly gutted. Our allotment shed got broken into and they took every single tool.",
    "I'm over the moon. The choir picked me for the solo at the winter concert.",
    "Feeling really low today. The rescue greyhound we hoped to adopt went to another family.",
    "So nervous. The driving examiner rings tomorrow with my retest slot.",
    "Ugh, I'm fuming. The bank froze my card while I was standing at the till in a foreign airport.",
    "I'm heartbroken. My old chess teacher passed away on Sunday.",
    "What a relief. The biopsy on my dog's lump came back benign.",
    "I'm absolutely shattered. Two night shifts back to back and the baby was up at five.",
    "Properly embarrassed. I spilled coffee over the client's notes in front of everyone.",
    "Feeling so proud. My niece read her first whole book to me on the phone.",
    "I'm seething. The estate agent showed our flat to viewers without telling us first.",
    "Really anxious. The beehives have gone quiet and I can't see the queen anywhere.",
    "I'm thrilled. The canal boat passed its safety survey with no faults at all.",
]

GUESSES_EN = [
    "I reckon the boiler's relief valve is nearly done for. Its dial reads zero by breakfast.",
    "Maybe the hens quit laying due to that frost. Minus four for three straight nights.",
    "I suspect my flatmate is moving out. He's been boxing up his books all week.",
    "Probably my fiddle wants fresh strings. Its A string drifts flat within minutes.",
    "My hunch is the landlady wants to sell. Two surveyors came round on Tuesday.",
    "Could be that new washing powder behind my rash. It showed up right after I first used it.",
    "I think the moss on the lawn is down to poor drainage. Water sits there for days after rain.",
    "Might be that the club is short of money. They cancelled the summer tournament without a reason.",
    "I'd guess the puppy is teething. She's chewing every table leg in the house.",
    "I've got a feeling our bus route is being cut. The timetable at our stop was taken down.",
]

DECISIONS_EN = [
    "Went for the second-hand camper van after all; a brand new van would have emptied our savings.",
    "We signed up with the smaller nursery. The big one had a waiting list till next spring.",
    "Picked the night course over the weekend one. Saturdays are for the kids.",
    "We chose the slate tiles for the bathroom floor. The marble ones scratch too easily.",
    "I went with the cheaper removal firm after all.",
    "We settled on a rescue cat rather than a kitten from a breeder.",
    "Booked the cottage in Wales instead of the Lake District one. It takes dogs.",
    "Stuck with my old phone for another year. The battery swap cost forty quid and it's like new.",
    "Chose the gravel bike over the road bike. Half my commute is towpath.",
    "Ended up renting the flat above the bakery; the one by the ring road was too loud.",
]

OTHERS_EN = [
    "My brother passed his pilot's licence last month and now he flies at weekends.",
    "Our neighbour Doreen had a hip replacement in January and walks with a stick now.",
    "My daughter's class went on a trip to the coast and she came back with a crab in a bucket.",
    "The allotment committee voted to raise the annual fee to sixty pounds.",
    "My partner got transferred to the Leeds office, so he commutes three days a week.",
    "Grandad sold his fishing boat in the autumn after forty years on the water.",
    "The vet said our rabbit has a heart murmur but needs no treatment for now.",
    "My best friend Ines opened a bike repair shop on the high street in March.",
    "Our landlord replaced the old windows over the summer, so the flat is much warmer.",
    "My sister's band released their first record and it's on the radio this week.",
]

REQUESTS_EN = [
    "Could you word a thank-you card for my swim coach? She's leaving on Friday.",
    "Please draft a note to the school about Noah's dentist appointment. He'll miss the morning on Tuesday.",
    "Could you draw up a kit list for our narrowboat week? We cast off on the 12th.",
    "Nudge me to book a chimney sweep. The first frost is forecast for next week.",
    "Work out a budget for the garden wall for me. The quotes came in at three different prices.",
    "Help me plan the menu for Saturday's dinner. Two of the guests are vegan.",
    "Can you check which train gets me to Bristol before nine? The interview starts at half past.",
    "Please write a short ad for the spare room. I'd like it up by the weekend.",
]

LIKINGS_EN = [
    "I can't stand crowded beaches. Give me a quiet cove any day.",
    "I adore my cast iron skillet. Nothing keeps heat like it.",
    "Rail over planes for me, always. Watching the countryside go by is half the fun.",
    "Open-toed shoes at work aren't for me. They just feel too casual.",
    "I prefer my coffee black. Milk ruins the taste for me.",
    "Morning runs suit me best. By evening I've no energy left.",
]

REPORTS_EN = [
    "I've rung the insurer about the dented bumper. They're sending the claim form by post.",
    "The spare room is cleared out now. Only the wardrobe still has to go.",
    "Paid the campsite deposit first thing today, so that's off my list.",
    "Gave up trying to mend the dishwasher myself. I'm calling a repair man instead.",
    "Halfway through the tax return. The pension figures are the last bit.",
    "I've finished sanding the bookshelf. It just needs a coat of oil now.",
]

REPORTS_ZH = [
    "搬家用的纸箱我装得七七八八，就差厨房锅碗瓢盆。",
    "给儿子报的游泳课我退掉了，他一下水就哭。",
    "年终总结我写到第三部分了，数据那块还没补。",
    "找保姆的事不用你帮忙了，我表姐介绍了一个阿姨。",
    "去车管所换证没换成，少带了一张体检表。",
    "装窗帘那件事先搁着吧，等房东把墙补好再装。",
    "毕业论文的实验数据我跑了一半，剩下三组下周跑。",
    "给岳父买的按摩椅退回去了，他嫌声音太吵。",
    "修阳台漏水的工人我约好了，周六上午上门。",
    "打疫苗的预约我取消了，孩子这两天在发烧。",
    "驾照体检我上午去做了，视力那项复查才过。",
    "婚礼请柬印好了一百份，还差地址没写。",
    "报税那件事我交给会计去弄了，你不用再提醒我了。",
    "健身卡转让出去了，找到一个同事接手。",
    "合租的房子我看了两套，都不太满意，还得接着找。",
    "吉他课我停了两个月，手指受伤弹不了。",
    "给公司写的培训手册初稿弄完了，明天发给主管看。",
    "公租房没申请下来，家里收入比标准高出一截。",
    "周末大扫除做了一半，衣柜还没收拾。",
    "社区义卖要用的海报我画了两张，第三张还没想好。",
]

FEELINGS_ZH = [
    "气死我了。楼上装修从早上七点敲到现在，孩子午觉都没睡成。",
    "好难过。养了八年的乌龟昨天没了。",
    "特别紧张。明天第一次在全校面前讲课。",
    "太高兴了！我爸的手术很顺利，医生说下周就能出院。",
    "心里挺委屈的。明明是同事记错了时间，领导却怪我。",
    "累得不想说话。一整天在仓库盘点，腰都直不起来了。",
]

GUESSES_ZH = [
    "我猜楼下那家面馆要关门了。最近一直没开灯，门口还贴了转让。",
    "可能新买的枕头偏高，最近早上醒来脖子发僵。",
    "估计邻居家的狗是饿了，从早上叫到现在。",
    "说不定是路由器坏了，别的设备也连不上网。",
    "我觉得小区物业可能要换了，最近好几个保安都没见着。",
    "多半是空调滤网该洗了，一开就有股怪味。",
]

OTHERS_ZH = [
    "我表弟去年考上了研究生，现在在南方读书。",
    "我们楼下新开了一家药店，晚上十点才关门。",
    "我同事小杜上个月辞职回老家开民宿了。",
    "我妈退休以后每天早上去公园打太极拳。",
    "我们公司今年把年假从五天加到了十天。",
    "我邻居家的女儿刚拿了全市钢琴比赛一等奖。",
    "我姑姑在县城医院做护士，已经干了二十年。",
    "咱们小区的停车费从下个月起涨到三百一个月。",
]

DECISIONS_ZH = [
    "琢磨了好几天，最后买了那台二手的钢琴，新的实在太贵。",
    "考虑再三，周末还是不去露营了，在家陪孩子复习。",
    "掂量了一下，我选了离家近的那家幼儿园，学费贵点也认了。",
    "最终没换工作，留在原单位，通勤方便。",
    "思前想后，暑假去青海自驾，海边那条线人太多。",
    "商量了一晚上，婚宴就摆二十桌，不再加了。",
    "琢磨来琢磨去，还是租了朝南那套，贵两百块也值。",
    "比了三家，最后在小区门口那家健身房办了卡。",
]


def rows() -> list[dict[str, object]]:
    return labelled_rows("s32", [
        ("en", FEELINGS_EN, {"type": "EmotionalState"}),
        ("en", GUESSES_EN, {"type": "Hypothesis"}),
        ("en", DECISIONS_EN, {"type": "Fact", "decision": True}),
        ("en", OTHERS_EN, {"type": "Fact"}),
        ("en", REQUESTS_EN, {"type": "Task"}),
        ("en", LIKINGS_EN, {"type": "Preference"}),
        ("en", REPORTS_EN, {"type": "TaskUpdate"}),
        ("zh", REPORTS_ZH, {"type": "TaskUpdate"}),
        ("zh", FEELINGS_ZH, {"type": "EmotionalState"}),
        ("zh", GUESSES_ZH, {"type": "Hypothesis"}),
        ("zh", OTHERS_ZH, {"type": "Fact"}),
        ("zh", DECISIONS_ZH, {"type": "Fact", "decision": True}),
    ])


if __name__ == "__main__":
    write_rows("extraction_s32.jsonl", rows())
