"""Events and the actions they declare."""

from .event import Event
from .event_actions import EventActions, EventCompaction

__all__ = ["Event", "EventActions", "EventCompaction"]
