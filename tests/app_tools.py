"""Two application tools the toolbox tests share: one with an injected parameter, one agent-only."""

from kitchen.tools.schemas import Injected


def my_notes(query: str, user_id: str = Injected("user_id")) -> str:
    """Search the signed-in user's notes.

    Args:
        query: What to look for.
        user_id: The signed-in user (set by the application).
    """
    return f"notes of {user_id} about {query}"


def save_memory(note: str) -> str:
    """Save a note to the assistant's memory.

    Args:
        note: The note.
    """
    return "saved"
