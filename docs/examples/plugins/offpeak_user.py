"""Off-peak users: a user agent written outside gridmarket.

Used by docs/extending.md as ``offpeak_user:OffPeakUser`` (with ``docs/examples/plugins`` on
PYTHONPATH), in a scenario's ``workload.user_agent``. A user agent is a subclass of
``gridmarket.agents.User``: it gets its jobs (and workflow requests) sorted by submit time and sends each at
its submit time to a provider, the broker or the metascheduler. Times are integer seconds.
"""

from dataclasses import replace

from gridmarket.agents import User
from gridmarket.job import Job

DAY = 86400
PEAK = (8 * 3600, 20 * 3600)  # seconds of the day when electricity is dear


class OffPeakUser(User):
    """Holds every job it would submit between 08:00 and 20:00 until 20:00 the same day.

    A user shifting work to the cheap night hours, as demand-response studies assume. Jobs that
    ask for an advance reservation keep their time (their wanted start is fixed), and so do
    workflows. The market's records keep the job's own submit time, so its wait includes the hold.
    """

    def __init__(self, model, name, jobs, route="round-robin", *, grid_fraction=0.0):
        held = [self._held(item, model) for item in jobs]
        super().__init__(model, name, sorted(held, key=lambda item: item.submit), route,
                         grid_fraction=grid_fraction)

    @staticmethod
    def _held(item, model):
        if not isinstance(item, Job) or item.id in model.reservation_starts:
            return item
        day, second = divmod(item.submit, DAY)
        if PEAK[0] <= second < PEAK[1]:
            return replace(item, submit=day * DAY + PEAK[1])
        return item
