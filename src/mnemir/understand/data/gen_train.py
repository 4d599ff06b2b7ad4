"""Build the *training* corpora (extraction_train.jsonl, intent_train.jsonl) from templates.

Run: ``python src/mnemir/understand/data/gen_train.py`` (deterministic, seed 7).
The held-out files are NOT made here: they were written by hand, separately,
with other phrasings and topics (see README.md), and nothing reads them
while training.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
rng = random.Random(7)


def pick(options: list[str]) -> str:
    return rng.choice(options)


def fill(template: str, slots: dict[str, list[str]]) -> str:
    out = template
    for name, options in slots.items():
        token = "{" + name + "}"
        while token in out:
            out = out.replace(token, pick(options), 1)
    return out


# ---------------------------------------------------------------------------- extraction
ZH_SLOTS = {
    "city": ["上海", "北京", "杭州", "深圳", "成都", "广州", "南京", "武汉", "西安", "苏州"],
    "food": ["川菜", "火锅", "寿司", "粤菜", "烧烤", "日料", "麻辣烫", "湘菜", "披萨", "饺子", "牛排"],
    "drink": ["黑咖啡", "拿铁", "绿茶", "奶茶", "美式", "红茶", "豆浆", "啤酒"],
    "allergen": ["花生", "海鲜", "芒果", "青霉素", "花粉", "牛奶", "虾", "鸡蛋"],
    "job": ["程序员", "老师", "设计师", "产品经理", "医生", "律师", "会计", "记者", "销售经理"],
    "company": ["阿里", "腾讯", "字节", "华为", "一家创业公司", "银行", "医院", "学校"],
    "thing": ["报销单", "周报", "合同", "PPT", "简历", "发票", "年终总结", "季度报告", "预算表", "项目方案"],
    "errand": ["订下周去{city}的机票", "交水电费", "预约体检", "给妈妈买生日礼物", "续签租房合同", "订一家{food}餐厅",
               "把车送去保养", "买打印机墨盒", "退掉那件外套", "办护照", "取快递", "约牙医", "交物业费"],
    "date": ["下周五", "明天", "月底", "这周三", "后天", "下个月5号", "周五", "三天内", "下周一", "15号", "年底", "下周"],
    "hobby": ["爬山", "跑步", "看电影", "打羽毛球", "弹吉他", "读历史书", "游泳", "钓鱼", "下围棋", "拍照"],
    "emo": ["好烦", "特别焦虑", "很难过", "太开心了", "气死我了", "有点紧张", "累坏了", "好兴奋", "超级郁闷", "挺失落的",
            "很担心", "快崩溃了", "心里很踏实"],
    "cause": ["项目延期了", "老板又改需求", "明天要面试", "考试通过了", "加班到半夜", "孩子生病了", "房租涨了",
              "升职了", "航班取消了", "电脑又蓝屏了", "跟朋友吵架了"],
    "person": ["我女儿", "我儿子", "我老婆", "我老公", "我妈", "我爸", "我同事小王", "我朋友老李"],
    "frame": ["今天的周会", "这次面试", "和供应商的谈判", "这个调试会话", "这次头脑风暴", "下午的项目评审", "这节Python课"],
    "topic": ["新版本发布", "预算", "用户增长", "数据库迁移", "年度计划", "招聘", "价格条款"],
    "step": ["订机票", "订酒店", "办签证", "写大纲", "找资料", "做PPT", "跟老板确认", "发邮件通知大家", "买材料",
             "列清单", "打包行李", "租车", "预约场地", "测试一遍"],
    "goal": ["下个月去日本旅行", "搬家", "准备年会", "写毕业论文", "装修新房", "办婚礼", "申请研究生", "上线新功能"],
}

ZH_TEMPLATES: dict[str, list[str]] = {
    "Fact": ["我住在{city}", "我现在住{city}", "我对{allergen}过敏", "我是{job}", "我在{company}工作", "我老家是{city}的",
             "我今年三十二岁", "我的生日是五月二十号", "{person}在{city}上大学", "{person}今年六岁了", "我养了一只猫",
             "我家有两个孩子", "我开一辆特斯拉", "我不吃猪肉，吃清真", "我有高血压", "我的邮箱是lee@example.com",
             "我毕业于浙江大学", "我会说日语", "我每天早上七点跑步", "{person}是{job}", "我叫王小明", "我们公司在{city}",
             "{city}今天晴，二十五度", "{city}明天有大雨", "我上个月搬到了{city}", "我近视六百度", "我们家住在五楼",
             "{person}对{allergen}过敏", "我在{city}工作了五年", "我的车牌号是沪A12345"],
    "Preference": ["我喜欢{food}", "我特别喜欢喝{drink}", "我不喜欢{food}", "我讨厌{food}", "我最爱{hobby}",
                   "我比较喜欢靠窗的座位", "我喝咖啡不加糖", "我不太喜欢太吵的餐厅", "我更喜欢早上开会", "周末我喜欢{hobby}",
                   "我爱吃辣", "我受不了香菜", "我习惯用Mac", "酒店我偏好离地铁近的", "我喜欢安静一点的地方",
                   "我不爱喝{drink}", "我对{food}无所谓", "我挺喜欢{hobby}的", "我一般喝{drink}", "飞机我喜欢坐过道"],
    "Task": ["帮我{errand}", "{date}之前帮我把{thing}交了", "提醒我{date}{errand}", "记得{date}把{thing}发给老板",
             "麻烦你{errand}", "我得在{date}前完成{thing}", "帮我{date}{errand}，比较急", "请帮我整理一下{thing}",
             "别忘了{date}{errand}", "{date}要交{thing}，帮我记一下", "帮我查一下{thing}有没有提交", "你帮我写一份{thing}",
             "不急，有空帮我{errand}", "尽快帮我把{thing}改好", "我需要{date}前{errand}", "{thing}{date}必须交",
             "帮我安排{date}{errand}", "给我订{date}去{city}的高铁票"],
    "EmotionalState": ["我今天{emo}", "{cause}，我{emo}", "因为{cause}，心情{emo}", "唉，{emo}", "最近{emo}",
                       "{cause}，真的{emo}", "这周{emo}，{cause}", "{emo}啊！", "说实话我现在{emo}",
                       "这个破软件我再也受不了了！", "气死了，{cause}"],
    "ContextualFrame": ["我们现在开始{frame}，主要讨论{topic}", "接下来是{frame}，请只用中文回答", "现在是{frame}",
                        "这是一次关于{topic}的会议", "我们来做个头脑风暴，主题是{topic}", "接下来你扮演面试官，模拟{frame}",
                        "下面是调试会话，帮我排查{topic}的问题", "这次对话是教我学Python", "我们在准备{frame}",
                        "从现在起，我们聊{topic}，回答简短一点", "今天这个讨论是关于{topic}的"],
    "TaskUpdate": ["{thing}我已经交了", "{thing}搞定了", "{thing}做完了", "{thing}我正在写", "{thing}写了一半了",
                   "{thing}算了，不用弄了", "那个{thing}取消吧", "机票已经订好了", "{thing}已经发给老板了", "{thing}还在改",
                   "别管{thing}了，不做了", "{thing}快完成了", "之前说的{thing}已经提交了", "体检已经约好了",
                   "去{city}的行程取消了", "{thing}我开始弄了"],
    "NONE": ["好的", "谢谢", "好的，谢谢", "嗯嗯", "你好", "哈哈哈", "收到", "明白了", "再见", "没问题", "行吧",
             "{city}天气怎么样？", "你叫什么名字？", "今天几号？", "你觉得呢？", "这个怎么用？", "是吗", "对的",
             "好吧，就这样", "早上好", "你能做什么？", "帮我看看这个是什么意思？", "怎么说呢", "哦哦，原来如此",
             "不用了，谢谢", "晚安", "我之前让你做的事怎么样了", "我喜欢什么咖啡来着？", "随便聊聊吧", "嗯，有道理"],
}

EN_SLOTS = {
    "city": ["Shanghai", "Berlin", "Tokyo", "London", "Seattle", "Paris", "Boston", "Singapore", "Toronto", "Sydney"],
    "food": ["Thai food", "sushi", "pizza", "Mexican food", "spicy food", "ramen", "Indian curry", "burgers", "salads"],
    "drink": ["black coffee", "oat lattes", "green tea", "sparkling water", "espresso", "herbal tea", "craft beer"],
    "allergen": ["peanuts", "shellfish", "penicillin", "cats", "pollen", "gluten", "eggs", "latex"],
    "job": ["software engineer", "nurse", "teacher", "product manager", "data analyst", "architect", "accountant"],
    "company": ["Google", "a small startup", "the city hospital", "Amazon", "a law firm", "the university"],
    "thing": ["expense report", "quarterly review", "slide deck", "tax return", "grant proposal", "budget sheet",
              "design doc", "invoice", "performance review", "conference talk"],
    "errand": ["book a flight to {city}", "renew my passport", "pay the electricity bill", "order a birthday cake",
               "schedule a dentist appointment", "cancel the gym membership", "buy printer ink", "return the blue jacket",
               "reserve a table for four", "call the landlord", "pick up the dry cleaning", "send the contract to Mark"],
    "date": ["by Friday", "tomorrow", "next Wednesday", "by the end of the month", "on Monday", "in two weeks",
             "next week", "before the 15th", "this weekend", "tonight", "on March 20th"],
    "hobby": ["hiking", "running", "board games", "jazz", "gardening", "cycling", "photography", "chess", "yoga"],
    "emo": ["so stressed", "really happy", "pretty anxious", "furious", "exhausted", "a bit sad", "super excited",
            "frustrated", "worried", "relieved", "nervous", "heartbroken"],
    "cause": ["the deadline moved up", "my boss yelled at me", "I got the job", "my flight got cancelled",
              "the build broke again", "my cat is sick", "I passed the exam", "the rent went up", "I had a fight with my sister"],
    "person": ["My wife", "My son", "My daughter", "My husband", "My mom", "My brother", "My colleague Ana", "My friend Tom"],
    "frame": ["this standup", "the job interview practice", "a negotiation with the vendor", "this debugging session",
              "a brainstorm", "the sprint retro", "a Spanish lesson"],
    "topic": ["the Q3 launch", "pricing", "the database migration", "hiring", "the marketing plan", "onboarding"],
    "step": ["book the flights", "reserve the hotel", "apply for the visa", "draft an outline", "collect the data",
             "make the slides", "get sign-off from legal", "email the team", "buy supplies", "pack", "rent a car",
             "test everything"],
    "goal": ["the Japan trip", "moving to a new flat", "the team offsite", "my thesis", "the kitchen remodel",
             "the wedding", "the product launch"],
}

EN_TEMPLATES: dict[str, list[str]] = {
    "Fact": ["I live in {city}", "I'm allergic to {allergen}", "I work as a {job}", "I work at {company}",
             "I'm from {city} originally", "I'm 34 years old", "My birthday is on June 3rd", "{person} lives in {city}",
             "{person} is a {job}", "I have two kids", "I drive a Honda Civic", "I'm vegetarian", "I have asthma",
             "My email is sam@example.com", "I graduated from MIT", "I speak Portuguese", "I moved to {city} last year",
             "My name is Jordan", "I've got a dog named Biscuit", "It's raining hard in {city} today",
             "{city} is 30 degrees and humid today", "Our office is in {city}", "{person} is allergic to {allergen}",
             "I've been working at {company} for five years", "I wear glasses", "I run every morning at six"],
    "Preference": ["I love {food}", "I really like {drink}", "I don't like {food}", "I hate {food}", "I prefer window seats",
                   "I enjoy {hobby} on weekends", "I can't stand {food}", "My favorite drink is {drink}",
                   "I take my coffee black, no sugar", "I'd rather have meetings in the morning", "I'm not a fan of {food}",
                   "I prefer hotels close to the subway", "I'm a big fan of {hobby}", "I usually drink {drink}",
                   "I don't mind either airline", "Aisle seats are my thing", "I avoid {food} when I can",
                   "I kind of like {hobby}", "Quiet restaurants are what I prefer"],
    "Task": ["Please {errand} {date}", "Can you {errand}?", "Remind me to {errand} {date}", "I need to finish the {thing} {date}",
             "Help me {errand}", "Don't let me forget to submit the {thing} {date}", "Could you {errand} {date}? It's urgent",
             "I have to send the {thing} {date}", "Put the {thing} on my list for {date}", "Please draft the {thing} for me",
             "No rush, but {errand} when you can", "Book me a table {date}", "Make sure the {thing} gets done {date}",
             "{errand} ASAP please", "The {thing} is due {date}, keep track of it", "Schedule a call with Mark {date}"],
    "EmotionalState": ["I'm {emo} today", "I'm {emo} because {cause}", "Honestly I feel {emo}", "Ugh, {cause}, I'm {emo}",
                       "{cause} and I'm {emo}", "Feeling {emo} lately", "I'm {emo} about {topic}", "I'm so done with this stupid app!",
                       "Just {emo}, {cause}", "Wow, I'm {emo}!"],
    "ContextualFrame": ["Let's start {frame} about {topic}", "This is {frame}, keep answers short", "We're in {frame} now",
                        "For this meeting we'll discuss {topic}", "Let's brainstorm ideas for {topic}",
                        "Pretend you're the interviewer for a job interview practice", "We're debugging {topic} together",
                        "Teach me Spanish in this session, answer in English", "From now on we're planning {topic}",
                        "This conversation is {frame} on {topic}", "Let's do {frame}, focus on {topic}"],
    "TaskUpdate": ["I already submitted the {thing}", "The {thing} is done", "I finished the {thing}", "I'm working on the {thing} now",
                   "Halfway through the {thing}", "Forget the {thing}, it's not happening", "Cancel the {thing}",
                   "The flight is booked", "I've sent the {thing} to my boss", "Still working on the {thing}",
                   "Never mind the {thing}, drop it", "The {thing} is almost done", "Dentist appointment is booked",
                   "The {city} trip is cancelled", "Started on the {thing}", "Paid the electricity bill already"],
    "NONE": ["ok", "thanks", "Okay, thank you!", "hi there", "lol", "got it", "sounds good", "bye", "sure", "cool",
             "What's the weather like in {city}?", "What's your name?", "What day is it?", "What do you think?",
             "How does this work?", "really?", "yes", "alright then", "good morning", "What can you do?",
             "Hmm, let me think", "oh I see", "no thanks", "good night", "What's still on my list?",
             "What coffee do I like?", "Just chatting", "fair enough", "haha nice", "Why was I so angry last time?"],
}

MULTI = [
    ("zh", "我对{allergen}过敏，但特别喜欢吃{food}", ["Fact", "Preference"], ZH_SLOTS),
    ("zh", "我住在{city}，我喜欢{hobby}", ["Fact", "Preference"], ZH_SLOTS),
    ("zh", "{cause}，我{emo}。帮我{errand}", ["EmotionalState", "Task"], ZH_SLOTS),
    ("zh", "我是{job}。我不喜欢{food}", ["Fact", "Preference"], ZH_SLOTS),
    ("zh", "{thing}我已经交了，另外帮我{errand}", ["TaskUpdate", "Task"], ZH_SLOTS),
    ("en", "I'm allergic to {allergen}, but I love {food}", ["Fact", "Preference"], EN_SLOTS),
    ("en", "I live in {city}. I enjoy {hobby}", ["Fact", "Preference"], EN_SLOTS),
    ("en", "I'm {emo}. Please {errand} {date}", ["EmotionalState", "Task"], EN_SLOTS),
    ("en", "I work as a {job}, but I hate {food}", ["Fact", "Preference"], EN_SLOTS),
    ("en", "The {thing} is done. Also, remind me to {errand} {date}", ["TaskUpdate", "Task"], EN_SLOTS),
]

PLANS = [
    ("zh", "为了{goal}，先{step}，然后{step}，最后{step}", ZH_SLOTS, True),
    ("zh", "先{step}，再{step}", ZH_SLOTS, False),
    ("zh", "{goal}的计划是：第一步{step}，第二步{step}，第三步{step}", ZH_SLOTS, True),
    ("zh", "我打算{goal}，首先{step}，接着{step}，之后{step}", ZH_SLOTS, True),
    ("en", "For {goal}, first {step}, then {step}, and finally {step}", EN_SLOTS, True),
    ("en", "First {step}, then {step}", EN_SLOTS, False),
    ("en", "My plan for {goal}: first {step}, after that {step}, then {step}", EN_SLOTS, True),
    ("en", "To get {goal} done I'll first {step}, next {step}, and lastly {step}", EN_SLOTS, True),
]


def extraction_rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for lang, templates, slots, per in (("zh", ZH_TEMPLATES, ZH_SLOTS, 3), ("en", EN_TEMPLATES, EN_SLOTS, 3)):
        for label, items in templates.items():
            seen = set()
            for template in items:
                for _ in range(per):
                    text = fill(fill(template, slots), slots)
                    if text in seen:
                        continue
                    seen.add(text)
                    expect = [] if label == "NONE" else [{"type": label}]
                    rows.append({"lang": lang, "speaker": "user", "text": text, "expect": expect})
    for lang, template, types, slots in MULTI:
        for _ in range(6):
            rows.append({"lang": lang, "speaker": "user", "text": fill(fill(template, slots), slots),
                         "expect": [{"type": t} for t in types]})
    for lang, template, slots, has_goal in PLANS:
        for _ in range(6):
            expect = ([{"type": "Task"}] if has_goal else []) + [{"type": "Plan"}]
            rows.append({"lang": lang, "speaker": "user", "text": fill(template, slots), "expect": expect})
    for i, row in enumerate(rows):
        row["id"] = f"{row['lang']}-train-{i:04d}"
    return rows


# ---------------------------------------------------------------------------- intent
INTENT_ZH: dict[str, list[str]] = {
    "fact_lookup": ["{city}天气怎么样", "我住在哪", "我对什么过敏来着", "{person}在哪上学", "我的邮箱是多少",
                    "我老家是哪里", "我是做什么工作的", "{city}明天下雨吗", "我女儿几岁了", "我的生日是哪天",
                    "我在哪家公司上班", "你记得我会说什么语言吗", "{person}是做什么的", "我们公司在哪个城市",
                    "我车牌号多少", "{city}现在多少度"],
    "open_tasks": ["我之前让你做的事怎么样了", "我还有哪些事没做", "待办清单上还有什么", "最近有什么要交的",
                   "这周还有什么任务", "有哪些事情快到期了", "我还欠着什么没完成", "帮我看看还有哪些待办",
                   "哪些任务还没搞定", "接下来我要忙什么", "下周有什么截止的事", "还有啥没处理的"],
    "task_status": ["{thing}交了吗", "{thing}弄得怎么样了", "机票订好了没", "{thing}现在什么状态", "我让你订的酒店订了吗",
                    "{thing}完成了吗", "体检预约好了吗", "{thing}进展如何"],
    "preference": ["我喜欢喝什么咖啡", "我爱吃什么", "我不喜欢吃什么", "我平时喜欢干什么", "订酒店我有什么偏好",
                   "我坐飞机喜欢什么座位", "我喝咖啡加糖吗", "我讨厌什么菜", "我周末喜欢做什么", "我口味偏什么"],
    "emotion": ["我上次为什么那么生气", "我最近心情怎么样", "我之前为什么焦虑", "那天我为什么不开心", "我什么时候最难过",
                "上周我情绪怎么样", "是什么让我那么烦", "我之前压力大是因为什么"],
    "plan": ["搬家的计划是什么", "{goal}分几步", "下一步该做什么", "{goal}的步骤有哪些", "我们之前定的计划是啥",
             "{goal}接下来要干嘛", "计划里第二步是什么"],
    "frame": ["我们现在在开什么会", "这次会议的主题是什么", "当前讨论的是什么", "我们这是在做什么场景",
              "之前定的回答规则是什么", "这个会话是干嘛的"],
    "general": ["关于{city}你记得什么", "跟我说说你记得的关于我的事", "你都知道我什么", "我们之前聊过什么"],
}
INTENT_EN: dict[str, list[str]] = {
    "fact_lookup": ["What's the weather in {city}?", "Where do I live?", "What am I allergic to?", "Where does {person} work?",
                    "What's my email?", "Where am I from?", "What do I do for a living?", "Is it raining in {city}?",
                    "How old is my daughter?", "When's my birthday?", "Which company do I work for?",
                    "What languages do I speak?", "What's my dog's name?", "What car do I drive?"],
    "open_tasks": ["What's still on my list?", "What do I still need to do?", "Any open tasks?", "What's due soon?",
                   "What are my pending to-dos?", "What haven't I finished yet?", "Show me what's left to do",
                   "Anything due this week?", "What tasks are outstanding?", "What should I work on next?",
                   "What deadlines are coming up?"],
    "task_status": ["Did the {thing} get submitted?", "How's the {thing} going?", "Is the flight booked yet?",
                    "What's the status of the {thing}?", "Did you book the hotel I asked for?", "Is the {thing} finished?",
                    "Was the dentist appointment made?", "Any progress on the {thing}?"],
    "preference": ["What coffee do I like?", "What food do I love?", "What don't I like to eat?", "What do I enjoy doing?",
                   "What kind of hotel do I prefer?", "Which seat do I like on planes?", "How do I take my coffee?",
                   "What cuisine do I hate?", "What are my hobbies?", "What's my favorite drink?"],
    "emotion": ["Why was I so angry last time?", "How have I been feeling lately?", "Why was I anxious before?",
                "What upset me that day?", "When was I last really happy?", "How was my mood last week?",
                "What made me so frustrated?", "Why was I stressed out?"],
    "plan": ["What's the plan for the move?", "What are the steps for {goal}?", "What's the next step?",
             "What did we plan for {goal}?", "What comes after booking the flights?", "What's step two of the plan?"],
    "frame": ["What meeting are we in?", "What's this session about?", "What are we discussing right now?",
              "What rules did I set for this chat?", "What's the topic of this meeting?", "What mode are we in?"],
    "general": ["What do you remember about {city}?", "Tell me everything you know about me", "What have we talked about?",
                "What do you know about me?"],
}


def intent_rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for lang, table, slots in (("zh", INTENT_ZH, ZH_SLOTS), ("en", INTENT_EN, EN_SLOTS)):
        for kind, templates in table.items():
            seen = set()
            for template in templates:
                for _ in range(3):
                    query = fill(fill(template, slots), slots)
                    if query in seen:
                        continue
                    seen.add(query)
                    rows.append({"lang": lang, "query": query, "kind": kind})
    for i, row in enumerate(rows):
        row["id"] = f"{row['lang']}-itrain-{i:04d}"
    return rows


def write(name: str, rows: list[dict[str, object]]) -> None:
    with open(HERE / name, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{name}: {len(rows)} rows")


if __name__ == "__main__":
    write("extraction_train.jsonl", extraction_rows())
    write("intent_train.jsonl", intent_rows())
