"""attrs classes of the HTTP API: they parse requests, render responses and generate the OpenAPI schemas."""
