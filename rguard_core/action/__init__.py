"""The GitHub Action's Python entry: guard a pull request's diff, upsert one sticky comment, add a check run.

Run by ``action/action.yml`` as ``python -m rguard_core action``; see run.py for the steps, commands.py for
``/rguard`` feedback comments and comment.py for how untrusted text is kept inert in Markdown.
"""

from .client import ActionClient
from .run import ActionResult, pr_from_event, run_action

__all__ = ["ActionClient", "ActionResult", "pr_from_event", "run_action"]
