"""The cache files' header, for leaderboard.py until its stored records move into the state package."""

from .state.files import record_format  # noqa: F401
