"""The shared kernel: what every area uses and no area owns (time, errors, domain events,
pagination, validation, money, phone numbers, mail, rate limits, idempotency keys). It imports no
area."""
