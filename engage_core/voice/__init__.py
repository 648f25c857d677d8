"""Voice: the workspace's speaking voice, built-in or cloned, and text to speech (SPEC 2, 3, 4 Voice)."""
