"""The models the screen renders: the player's step machine (and the app
model). Pure Python, tested without Textual."""
