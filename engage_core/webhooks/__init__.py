"""Webhooks: subscriptions, the transactional outbox's delivery log, signing, and the delivery
worker with its retries."""
