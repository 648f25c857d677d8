"""A small knowledge base for retrieval-quality tests: a fictional coffee roaster's policies,
products, hours and shipping, in English and Arabic, and questions a customer might ask, each with
the passage that answers it. The questions are worded as people ask, not copied from the passages."""

from __future__ import annotations

PASSAGES: dict[str, tuple[str, str]] = {
    # key: (entry title, text)
    "hours": (
        "Opening hours",
        "Our Riyadh café opens from 7 am to 11 pm Saturday to Thursday. On Fridays we open after the noon "
        "prayer, from 1 pm until midnight.",
    ),
    "ramadan": (
        "Ramadan timings",
        "During Ramadan the café is open from iftar until 2 am. The roastery counter is closed during fasting hours.",
    ),
    "location": (
        "Where to find us",
        "The café is on King Fahd Road in Al Olaya, next to the Kingdom Centre, with free parking behind the building.",
    ),
    "shipping_ksa": (
        "Shipping within Saudi Arabia",
        "Orders inside the Kingdom are delivered by courier in 2 to 4 working days. Delivery is free on orders "
        "above 150 SAR; below that it costs 20 SAR.",
    ),
    "shipping_gcc": (
        "International shipping",
        "We ship to the UAE, Kuwait, Bahrain, Oman and Qatar. International delivery takes 5 to 8 days and "
        "costs a flat 60 SAR. Customs duties are paid by the recipient.",
    ),
    "tracking": (
        "Tracking a parcel",
        "Once your parcel leaves the roastery we send a tracking number by SMS and email. Use it on the "
        "courier's website to follow the package.",
    ),
    "returns": (
        "Returns policy",
        "Unopened bags of coffee can be returned within 14 days of delivery for a full refund. Opened bags "
        "cannot be returned for hygiene reasons.",
    ),
    "refund_time": (
        "Refund processing",
        "Refunds go back to the original card and take 5 to 10 business days to appear on your statement.",
    ),
    "damaged": (
        "Damaged or wrong items",
        "If an item arrives broken or we sent the wrong product, send us a photo within 48 hours and we will "
        "replace it at no cost.",
    ),
    "payment": (
        "Payment methods",
        "We accept Mada, Visa, Mastercard, Apple Pay and STC Pay. Cash on delivery is available in Riyadh only.",
    ),
    "installments": (
        "Pay later",
        "Tabby lets you split any purchase over 200 SAR into four interest-free installments.",
    ),
    "loyalty": (
        "Loyalty programme",
        "Members earn one bean point for every riyal spent. One hundred points can be swapped for a free "
        "drink at the café.",
    ),
    "gift_cards": (
        "Gift cards",
        "Digital gift cards come in values of 100, 250 and 500 SAR and never expire.",
    ),
    "wholesale": (
        "Wholesale and cafés",
        "Restaurants and offices can buy beans in bulk at trade prices. Contact our B2B team for a quote "
        "and a tasting session.",
    ),
    "subscription": (
        "Coffee subscription",
        "A subscription delivers a fresh bag every two or four weeks. Pause, skip or cancel anytime from "
        "your account page.",
    ),
    "roast_dates": (
        "Freshness",
        "Every bag is printed with its roast date. Beans taste best between one week and six weeks after roasting.",
    ),
    "storage": (
        "Keeping beans fresh",
        "Store coffee in an airtight container away from light and heat. Do not keep it in the fridge, "
        "where moisture spoils the aroma.",
    ),
    "grind": (
        "Grinding options",
        "We can grind your beans for espresso, filter, French press or Turkish coffee; choose the grind "
        "size at checkout.",
    ),
    "decaf": (
        "Decaffeinated coffee",
        "Our decaf Colombia is made with the Swiss Water process, without chemicals, and keeps a sweet caramel taste.",
    ),
    "ethiopia": (
        "Ethiopia Yirgacheffe",
        "A light roast with notes of jasmine, lemon and bergamot, washed process, 250 g for 75 SAR.",
    ),
    "brazil": (
        "Brazil Santos",
        "A medium-dark roast with chocolate and hazelnut notes, low acidity, ideal for milk drinks; 250 g for 55 SAR.",
    ),
    "machines": (
        "Espresso machines",
        "We sell home espresso machines with a two-year warranty, and service them at our workshop.",
    ),
    "workshops": (
        "Barista classes",
        "Saturday barista courses teach latte art and milk steaming; seats cost 300 SAR and include lunch.",
    ),
    "allergens": (
        "Allergy information",
        "Our pastries are baked in a kitchen that handles nuts, gluten and dairy; ask staff about ingredients.",
    ),
    "wifi": (
        "Working from the café",
        "Free Wi-Fi is available for guests, and the upstairs area has power sockets at every table.",
    ),
    # Arabic passages
    "ar_hours": (
        "مواعيد العمل",
        "يفتح المقهى يوميا من السابعة صباحا حتى الحادية عشرة مساء، ويوم الجمعة من الواحدة ظهرا.",
    ),
    "ar_shipping": (
        "الشحن والتوصيل",
        "نوصل الطلبات داخل المملكة خلال يومين إلى أربعة أيام عمل، والتوصيل مجاني للطلبات فوق 150 ريال.",
    ),
    "ar_returns": (
        "سياسة الإرجاع",
        "يمكن إرجاع أكياس القهوة غير المفتوحة خلال 14 يوما من الاستلام واسترداد المبلغ كاملا.",
    ),
    "ar_payment": (
        "طرق الدفع",
        "نقبل الدفع بمدى وفيزا وأبل باي، والدفع عند الاستلام متاح في الرياض فقط.",
    ),
    "ar_subscription": (
        "اشتراك القهوة",
        "الاشتراك يرسل لك كيس قهوة طازجة كل أسبوعين، ويمكنك إيقافه أو إلغاؤه في أي وقت.",
    ),
}

QUESTIONS: list[tuple[str, str]] = [
    ("Are you open on Saturday evenings?", "hours"),
    ("Are you open on Friday morning?", "hours"),
    ("What are your hours in Ramadan?", "ramadan"),
    ("Which road is the café on?", "location"),
    ("Is there parking near the cafe?", "location"),
    ("How long does delivery take inside Saudi?", "shipping_ksa"),
    ("Is shipping free?", "shipping_ksa"),
    ("Do you deliver to Dubai in the UAE?", "shipping_gcc"),
    ("Who pays customs on international orders?", "shipping_gcc"),
    ("How can I track my package?", "tracking"),
    ("Can I return an opened bag of coffee?", "returns"),
    ("When will I get my money back after a refund?", "refund_time"),
    ("My order arrived broken, what should I do?", "damaged"),
    ("You sent me the wrong product", "damaged"),
    ("Do you take Apple Pay?", "payment"),
    ("Can I pay cash when the order is delivered?", "payment"),
    ("Can I pay in installments?", "installments"),
    ("How do loyalty points work?", "loyalty"),
    ("Do gift cards expire?", "gift_cards"),
    ("I run a restaurant and want to buy beans in bulk", "wholesale"),
    ("How do I cancel my subscription?", "subscription"),
    ("When were the beans roasted?", "roast_dates"),
    ("Should I keep coffee in the fridge?", "storage"),
    ("Can you grind the coffee for a French press?", "grind"),
    ("Do you have decaf without chemicals?", "decaf"),
    ("Which coffee has floral jasmine notes?", "ethiopia"),
    ("Which beans have a chocolate flavour for milk drinks?", "brazil"),
    ("Does the espresso machine come with a warranty?", "machines"),
    ("Do you teach latte art classes?", "workshops"),
    ("Are your pastries safe for a nut allergy?", "allergens"),
    ("Is there wifi so I can work from the cafe?", "wifi"),
    ("How much is the Ethiopian coffee?", "ethiopia"),
    ("متى يفتح المقهى يوم الجمعة؟", "ar_hours"),
    ("ما هي مواعيد العمل؟", "ar_hours"),
    ("كم يستغرق التوصيل داخل المملكة؟", "ar_shipping"),
    ("هل الشحن مجاني؟", "ar_shipping"),
    ("هل يمكنني إرجاع القهوة واسترداد المبلغ؟", "ar_returns"),
    ("هل تقبلون الدفع عند الاستلام؟", "ar_payment"),
    ("كيف ألغي الاشتراك؟", "ar_subscription"),
    ("هل تقبلون مدى؟", "ar_payment"),
]
