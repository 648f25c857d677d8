"""Bookings: booking types and resources, working hours, availability and no double booking."""
