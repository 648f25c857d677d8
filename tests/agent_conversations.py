"""The conversation suite: a fictional bicycle shop's knowledge base and 30 customer questions,
each with its expected outcome: answered citing the passage that holds the answer (its key), or
handed over (None) because nothing in the knowledge base answers it.

The questions are worded as customers write, not copied from the passages; the hand-overs include
questions that share a word or two with a passage (a helmet, the shop, ordering online) without
being answered by it, where an engine that answers whatever it finds would make something up.
"""

from __future__ import annotations

PASSAGES: dict[str, tuple[str, str]] = {
    # key: (entry title, text)
    "hours": (
        "Opening hours",
        "Our Portland shop is open Monday to Friday from 9 am to 7 pm and on Saturdays from 10 am to 5 pm. "
        "We are closed on Sundays and public holidays.",
    ),
    "location": (
        "Where to find us",
        "Northwind Cycles is at 412 Alder Street in downtown Portland, two blocks from the Pioneer Square tram "
        "stop. Customer parking is available in the garage behind the shop.",
    ),
    "shipping_us": (
        "Shipping in the United States",
        "We ship bikes and parts anywhere in the continental United States. Standard shipping takes 3 to 6 "
        "business days and is free on orders over $100; smaller orders pay a flat $8.",
    ),
    "shipping_abroad": (
        "International shipping",
        "We ship parts and accessories to Canada and Mexico, but complete bikes are shipped within the United "
        "States only. International orders take 7 to 14 days, and customs fees are paid by the buyer.",
    ),
    "returns": (
        "Returns",
        "Unused items can be returned within 30 days of delivery for a full refund. Bikes must come back "
        "unridden, in their original box, and the return shipping label costs $25.",
    ),
    "refunds": (
        "Refunds",
        "Refunds are paid to the original payment method within 5 business days after we receive the return.",
    ),
    "payment": (
        "Payment methods",
        "We accept Visa, Mastercard, American Express, PayPal and Apple Pay. Gift cards can be used online and "
        "in the shop.",
    ),
    "financing": (
        "Financing",
        "Bikes over $500 can be paid in 12 monthly installments with zero interest through Affirm at checkout.",
    ),
    "warranty": (
        "Warranty",
        "Every frame we sell has a lifetime warranty against manufacturing defects. Components such as brakes, "
        "gears and wheels are covered for two years.",
    ),
    "repairs": (
        "Repairs and servicing",
        "Our workshop repairs and services any brand of bicycle. A basic tune-up costs $65 and usually takes two "
        "working days; book a slot online or drop by the shop.",
    ),
    "rentals": (
        "Bike rentals",
        "We rent city bikes for $30 per day and electric bikes for $55 per day, helmet and lock included. Renters "
        "must be 16 or older and leave a photo ID.",
    ),
    "ebikes": (
        "Electric bikes",
        "Our electric bikes have a range of 40 to 70 miles per charge. A full charge takes about four hours from "
        "a normal wall socket.",
    ),
    "sizing": (
        "Choosing a frame size",
        "Frame size depends on your height: riders from 5 ft 4 to 5 ft 8 usually fit a medium frame, and riders "
        "over 6 feet a large one. Our staff can measure you in the shop for free.",
    ),
    "test_rides": (
        "Test rides",
        "You can test ride any bike in stock during opening hours. Please bring a photo ID.",
    ),
    "tracking": (
        "Order tracking",
        "When your order ships we email you a tracking link. You can also follow every order under My Orders "
        "in your account.",
    ),
    "kids": (
        "Kids' bikes",
        "We stock kids' bikes for ages 2 to 12, balance bikes included. When your child outgrows a bike, trade it "
        "in for credit towards the next size.",
    ),
}

QUESTIONS: list[tuple[str, str | None]] = [
    ("What time do you close on Saturday?", "hours"),
    ("Are you open on Sundays?", "hours"),
    ("Is there parking near your shop?", "location"),
    ("Which street is the shop on?", "location"),
    ("How long does shipping take in the US?", "shipping_us"),
    ("Is shipping free?", "shipping_us"),
    ("Do you ship bikes to Canada?", "shipping_abroad"),
    ("Who pays the customs fees on international orders?", "shipping_abroad"),
    ("Can I return a bike in its original box?", "returns"),
    ("How many days do I have to return an item?", "returns"),
    ("When will I get my refund?", "refunds"),
    ("Do you accept PayPal?", "payment"),
    ("Can I pay for a bike in monthly installments?", "financing"),
    ("Is there a warranty on the frame?", "warranty"),
    ("How long are brakes and gears covered?", "warranty"),
    ("How much does a tune-up cost?", "repairs"),
    ("Do you repair other brands of bikes?", "repairs"),
    ("How much is it to rent an electric bike for a day?", "rentals"),
    ("How many miles can the electric bikes go on one charge?", "ebikes"),
    ("I am over 6 feet tall, which frame size do I need?", "sizing"),
    ("Can I test ride a bike before I buy it?", "test_rides"),
    ("How can I track my order?", "tracking"),
    ("Do you sell balance bikes for kids?", "kids"),
    ("Do you sell skateboards?", None),
    ("Do you have a student discount?", None),
    ("Are your helmets certified for racing?", None),
    ("How much does the carbon road bike weigh?", None),
    ("Do you price match other stores?", None),
    ("Can I book a guided cycling tour?", None),
    ("What is your phone number?", None),
]
