"""Voice notes: decoding with PyAV, and speech to text offline (pocketsphinx, English) or by an
OpenAI-compatible service. Needs the `voice` extra (`av`, `pocketsphinx`)."""
