"""Events and the actions they declare."""

from .event import Event, NodeInfo
from .event_actions import EventActions, EventCompaction
from .request_input import RequestInput

__all__ = ["Event", "EventActions", "EventCompaction", "NodeInfo", "RequestInput"]
