"""Answering customers: personas, the answer engine over the knowledge base, the language-model
port it asks, and the OpenAI-compatible chat completions built on them."""
