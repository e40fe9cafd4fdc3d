"""One module per group of commands; each exposes ``register(app)``."""
