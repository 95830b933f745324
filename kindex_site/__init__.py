"""kindex-site: a static site generator for GPU-kernel leaderboards."""

__version__ = "0.1.0"
