"""Commerce: products with stock, orders with their state machine, and the connected store."""
