"""Write ``intent_hw10.jsonl``: the tenth intent batch (ids ``*-itrain-hw10-*``), queries of kind ``general`` that
ask nothing of the user's own memory: world knowledge, how-to, arithmetic and unit conversion, translation, writing
and chit-chat addressed to the assistant. The train split had none of these (its ``general`` rows are broad "what
do you know about me" queries), so such questions were read as fact or preference lookups.

Written by the understand engineer of session 9 from the kind definition alone (no evaluation file was opened for
them); the separation test (tests/test_data_separation.py) checks that none is an evaluation query. Deterministic.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

ZH = [
    "珠穆朗玛峰有多高？", "光速是每秒多少公里？", "水的沸点在高原上为什么低？", "唐朝是哪一年建立的？",
    "《西游记》一共多少回？", "恐龙是什么时候灭绝的？", "地球到太阳有多远？", "一年有多少个节气？",
    "人体有多少块骨头？", "企鹅生活在北极吗？", "为什么海水是咸的？", "彩虹是怎么形成的？",
    "十二生肖里排第一的是谁？", "澳大利亚的首都是哪里？", "世界上最长的河是哪条？", "一光年是多远？",
    "怎么用手机截长图？", "米饭煮夹生了怎么补救？", "羽绒服能机洗吗？", "怎么给绿萝换盆？",
    "电脑开机很慢一般是什么原因？", "红烧肉怎么做才不腻？", "拖鞋有臭味怎么去除？", "怎么写一封辞职信？",
    "Excel 里怎么把两列合并？", "打领带有几种打法？", "铁锅生锈了还能用吗？", "怎么判断西瓜熟没熟？",
    "256乘以12等于多少？", "一英里是多少公里？", "50美元大概多少人民币？", "三分之二化成小数是多少？",
    "一斤等于多少克？", "华氏七十二度算热吗？", "把“谢谢你的帮助”翻成英文", "“一举两得”用英语怎么说？",
    "日语的“早上好”怎么说？", "帮我写一首关于秋天的五言绝句", "给我编个睡前小故事", "帮我想个奶茶店的名字",
    "来个脑筋急转弯", "说个冷笑话", "你今天心情好吗？", "你喜欢什么颜色？", "你能记住多少东西？",
    "你到底是不是个程序？", "你会说几种语言？", "你晚上睡觉吗？", "哈哈你太搞笑了", "喂，你还在线吗？", "随便聊聊吧",
    "什么是区块链？", "量子计算机和普通电脑有什么区别？", "通货膨胀是什么意思？", "感冒和流感怎么区分？",
    "孔子是哪个朝代的人？", "奥运会多少年办一次？", "为什么天冷了树叶会变黄？", "猫为什么喜欢纸箱？",
    "成语“画蛇添足”是什么意思？",
]

EN = [
    "How tall is Mount Kilimanjaro?", "What's the speed of sound?", "Why do onions make you cry?",
    "When did the Titanic sink?", "Who painted the Mona Lisa?", "How many moons does Jupiter have?",
    "What's the capital of Canada?", "How far away is the moon?", "What's the largest ocean on Earth?",
    "Why do cats purr?", "How do bees make honey?", "What causes thunder?", "Who invented the telephone?",
    "How many players are on a soccer team?", "What language do they speak in Brazil?",
    "How long do elephants live?", "How do I unclog a bathroom sink?", "What's the best way to reheat pizza?",
    "How do you remove a splinter?", "How do I change a flat tyre?", "How can I make rice less sticky?",
    "How do I take a screenshot on a Mac?", "What's a good way to clean a cast iron pan?",
    "How do you tie a bowline knot?", "How do I merge two PDFs?", "How long should I boil pasta?",
    "What's 17 times 23?", "How many ounces are in a pound?", "Convert 5 kilometres to miles.",
    "What's 12 percent of 250?", "How many seconds are in a day?", "What's the square root of 144?",
    "Translate 'where is the train station' into German.", "How do you say 'thank you' in Japanese?",
    "What does 'carpe diem' mean?", "Write me a limerick about a lazy dog.", "Give me a fun fact.",
    "Tell me a riddle.", "Make up a short story about a dragon.", "Suggest a name for a bakery.",
    "Are you a real person?", "What's your favourite movie?", "Can you dream?", "Do you like music?",
    "Haha, nice one.", "You there?", "Let's just chat for a bit.", "How smart are you?",
    "What's inflation, in simple terms?", "What is machine learning?", "What's the difference between a virus and bacteria?",
    "Explain how a rainbow forms.", "Why is the ocean salty?", "What's a haiku?",
    "Who was the first person on the moon?", "How often are the Olympics held?", "What's the tallest building in the world?",
    "Why do leaves change colour in autumn?", "What does a notary do?", "Is a tomato a fruit or a vegetable?",
]


def rows() -> list[dict[str, str]]:
    out = []
    for lang, queries in (("zh", ZH), ("en", EN)):
        for i, query in enumerate(queries):
            out.append({"id": f"{lang}-itrain-hw10-{i:03d}", "lang": lang, "query": query, "kind": "general"})
    return out


def main() -> None:
    with open(HERE / "intent_hw10.jsonl", "w", encoding="utf-8") as fh:
        for row in rows():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
