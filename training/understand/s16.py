"""The session-16 extraction batch (ids ``*-s16-*``): written by hand for the English extraction work
(docs/decisions/0051), in our own words, on topics of our own; never copied or paraphrased from an evaluation file.

    python training/understand/s16.py      # writes extraction_s16.jsonl next to this file

What it teaches (the boundaries where the extractor's English was weakest, each in many shapes):

- dropping one's own plan, errand or effort (an imperative "scrap / forget / shelve …", "X is off", "gave up on …",
  "not bothering with … any more", "no need to … now") is a report on that work: a TaskUpdate (status failed), even
  when a reason follows; the ontology counts cancellation among updates, and a decision between options (a Fact) is
  something else;
- how far along a piece of work is, told without a progress word ("two of the five done", "about 70% there",
  "still waiting to hear from …", "nearly through the …") is a TaskUpdate (in progress);
- what happened to or was done by someone else, not the user's own errand ("my cousin got engaged", "the council
  shut the pool"), is a Fact: a past tense alone does not make a report on the user's work.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _batch import labelled_rows, write_rows

DROPPED_EN = [
    "Scrap the kayaking weekend, the river's flooded",
    "Forget the new curtains, we're putting up blinds instead",
    "Shelve the podcast idea for now, I've no time for it",
    "Knock the pottery course on the head, it clashes with work",
    "The camping trip is off, half the group dropped out",
    "The bathroom refit's off for this year, the quote was insane",
    "Stopped trying to repair the dishwasher on my own, too tricky for me",
    "I've given up trying to get a refund from the airline",
    "Gave up on that Spanish app after two weeks",
    "Not bothering with the allotment waiting list any more",
    "No need to chase the plumber now, my neighbour sorted the leak",
    "No need to find a dog sitter anymore, my sister's taking Bruno",
    "Don't worry about the birthday cake, the party's cancelled",
    "The yard sale is off, they say storms all weekend",
    "I pulled out of the charity bike ride, my back's gone",
    "Dropped the evening class, I couldn't keep up with the travel",
    "Ditch the idea of a bigger car, we'll make do with this one",
    "I'm abandoning the loft clear-out until after Christmas, it's freezing up there",
    "Cancel the cleaner for Friday, we're away",
    "Cross the fence painting off the list, the landlord's replacing it",
    "The house viewing on Saturday isn't happening, the seller pulled out",
    "Looks like the conference trip won't go ahead, budget got cut",
    "Stop looking for a cheaper broadband deal, I've stayed with the old one",
    "Never mind the passport renewal, I found the old one was still valid",
    "I've scrapped my plan to repaint the hallway",
    "We decided against the extension after all, so forget the architect",
    "The wedding dress fitting got cancelled on their end",
    "Quit the choir, couldn't make Tuesdays work",
    "I'm not doing the book club anymore, it was eating my Sundays",
    "Bin the idea of a surprise party, she'd hate it",
]

PROGRESS_EN = [
    "Two of the five thank-you cards are written",
    "Tax return's about seventy percent done",
    "Nearly through the stack of marking, a dozen essays left",
    "No word yet from the letting agent about the deposit",
    "The kitchen tiles are half up, grout tomorrow",
    "First coat's on the shed, second one at the weekend",
    "Most of the boxes are packed, just the kitchen stuff left",
    "The grant form's mostly filled in, only the budget section to go",
    "Three chapters into editing the manuscript, nine to go",
    "Still no word from the insurer on the claim",
    "I've sorted the receipts up to June, the rest are still in a shoebox",
    "The wardrobe's assembled apart from the doors",
    "Getting there with the spreadsheet, maybe an hour more",
    "The website's about 60 percent built",
    "Still chasing the bank about the missing transfer",
    "The quilt is coming along, four squares left to stitch",
    "Done the first half of the training course, the exam module is next",
    "Working my way through the inbox, down to forty unread",
    "Most of my visa paperwork is filled in now",
    "The loft insulation is down on one side, the other side this weekend",
    "Hedge is trimmed at the front, back still needs doing",
    "Only the conclusion left on my essay now",
    "Still on hold to the council over my parking permit",
    "The survey responses are trickling in, forty out of a hundred so far",
    "The garden path is dug out, gravel arrives Thursday",
    "Slowly getting through the wedding seating plan, six tables to place",
    "The car's at the garage, they're waiting on a part",
    "The contract's with the lawyers, should hear by Friday",
]

OTHERS_EN = [
    "My cousin got engaged last weekend",
    "The council shut the leisure centre pool for repairs",
    "My neighbour's son crashed his moped into a hedge",
    "Our old landlord sold the house to a developer",
    "My boss resigned out of the blue on Monday",
    "The bakery on our street closed down last month",
    "Dad retired from the railway in March",
    "My flatmate adopted a rescue greyhound",
    "The school changed its uniform supplier again",
    "Our team lead got poached by a competitor",
    "The neighbours knocked through their kitchen wall",
    "My niece won a scholarship to study engineering",
    "The bus company cut the late service on our route",
    "Grandma fell in the garden but didn't break anything",
    "My brother-in-law lost his job at the warehouse",
    "The vet said the cat's kidneys are fine",
    "Our street got new speed bumps over the summer",
    "Priyanka from work had twins in October",
    "The builders next door started at seven again today",
    "My best friend moved back from Canada",
    "The price of the monthly rail pass went up again",
    "Our local GP surgery merged with the one in town",
    "My son's football coach quit halfway through the season",
    "The restaurant we liked changed owners and the menu's different",
    "My aunt sold her flat in Bristol",
    "Tom's band played their first gig on Saturday",
]

PLANS_EN = [
    "After my contract finishes I'll retrain as an electrician",
    "When the lease ends I'm going to move closer to my mum",
    "After the wedding we'll start saving for a deposit",
    "gonna learn to sail properly next summer",
    "From next month I'm cycling to the office three days a week",
    "I'll repaint the spare room once the weather warms up",
    "This autumn I'm going to take the kids to see the northern lights",
    "Over Easter I'll finally sort out the photo albums",
    "When I get my bonus I'm putting half of it into a pension",
    "Next year I'm going to try for a promotion to senior engineer",
    "I'll take a gap month between jobs and travel around Vietnam",
    "planning to visit my grandparents in Kerala in December",
    "I'm going to start swimming before work on Tuesdays",
    "Soon as the exams are done I'll get a summer job",
    "We'll get a second opinion first, then decide about the surgery",
    "In the new year I'm joining a running club",
    "I'll spend the weekend building the kids a treehouse",
    "Thinking I'll take the train up to Edinburgh in May and stay a few nights",
]
HABITS_EN = [
    "I normally get up at six, even at weekends",
    "I walk the dog twice a day, before and after work",
    "My office days are Tuesday and Wednesday",
    "I can't eat shellfish, I come out in hives",
    "I take the bus to work most mornings",
    "I do the weekly shop on Saturday mornings",
    "I'm allergic to penicillin",
    "I wear contact lenses, my eyesight is terrible without them",
    "I usually eat lunch at my desk",
    "I've been vegetarian for ten years",
    "I'm diabetic, type 1, since I was a kid",
    "I drive a ten-year-old Honda Civic",
    "I sleep about six hours a night on weekdays",
    "I get paid on the last Friday of the month",
    "I'm left-handed",
    "I've lived in this flat since 2019",
    "I speak Portuguese at home with my parents",
    "I see a physio every other Wednesday for my shoulder",
]
DROPPED_ZH = [
    "露营那个计划取消了，河边涨水",
    "窗帘不用换了，我们改装百叶窗",
    "学陶艺的事先放一放，和上班时间冲突",
    "洗碗机我自己修不好，放弃了",
    "退票的事我不折腾了，航空公司根本不理",
    "不用再找保姆了，我妈过来帮忙",
    "周六的看房取消了，房东不卖了",
    "合唱团我退了，周二实在去不了",
    "搬家公司不用约了，我们不搬了",
    "生日派对的事算了吧，她不喜欢热闹",
]

PROGRESS_ZH = [
    "感谢卡写了两张，还剩三张",
    "报税表填了一大半了，就差附件",
    "作文改到一半，还有十几本",
    "房东那边还没回押金的事",
    "厨房瓷砖贴了一半，明天勾缝",
    "箱子基本打包好了，就剩厨房的东西",
    "保险理赔还在等消息",
    "网站做了六成左右",
]

OTHERS_ZH = [
    "我表妹上周订婚了",
    "小区游泳池关了在维修",
    "我们老板周一突然辞职了",
    "楼下那家面包店上个月关门了",
    "我爸三月份从铁路上退休了",
    "室友领养了一只退役的灵缇",
    "我侄女拿到了工程专业的奖学金",
    "公交公司把我们这条线的末班车取消了",
]


def rows() -> list[dict[str, object]]:
    groups = [("en", DROPPED_EN, {"type": "TaskUpdate", "status": "failed"}),
              ("en", PROGRESS_EN, {"type": "TaskUpdate", "status": "in_progress"}),
              ("en", OTHERS_EN, {"type": "Fact"}),
              ("en", PLANS_EN, {"type": "Plan"}),
              ("en", HABITS_EN, {"type": "Fact"}),
              ("zh", DROPPED_ZH, {"type": "TaskUpdate", "status": "failed"}),
              ("zh", PROGRESS_ZH, {"type": "TaskUpdate", "status": "in_progress"}),
              ("zh", OTHERS_ZH, {"type": "Fact"})]
    return labelled_rows("s16", groups)


if __name__ == "__main__":
    write_rows("extraction_s16.jsonl", rows())
