"""Web chat: the embeddable widget, visitor sessions and the hand-over between the AI and humans."""
