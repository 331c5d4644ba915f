"""A provider that advertises only its near future: a provider agent written outside gridmarket.

Used by docs/extending.md as ``near_slots_provider:NearSlotsProvider`` (with
``docs/examples/plugins`` on PYTHONPATH), in a scenario's ``providers[].agent``. A provider agent
is a subclass of ``gridmarket.agents.ResourceProvider``: it runs its machine under its local policy and
answers the market's messages in ``receive``. Times are integer seconds; prices SU.
"""

from gridmarket.agents import Advertise, Query, ResourceProvider

HORIZON = 6 * 3600  # seconds ahead a slot may start and still be advertised


class NearSlotsProvider(ResourceProvider):
    """Advertises only the free slots that start within the next six hours (Singh ch. 3's slots, cut).

    A site that keeps its far future for its own users: brokers that buy advertised slots (``moga``)
    see less of it. Every other message is handled as ``ResourceProvider`` does.
    """

    def receive(self, message):
        if isinstance(message, Query) and message.payload == "advertise":
            now = message.time
            slots = [s for s in self.plan(now).advertise() if s.start < now + HORIZON]
            return Advertise(self.name, message.sender, now, slots)
        return super().receive(message)
