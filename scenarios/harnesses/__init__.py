"""Per-seed experiment harnesses: one seed paper's experiment on real or generated inputs, as functions.

``provisioning`` (Singh 2008, ch. 4, 6, 7: MOGA, greedy, VAR on replayed traces), ``pricing_replay``
(ch. 5.3: a trace replayed with priced reservations), ``metascheduling`` (Murali & Vadhiyar: the
XSEDE grid), ``psp`` (Rocchetti et al.: the Penalty Scheduling Policy) and ``twotier_tables`` (Liu et
al.: EASY, KEASY, REASY, MEASY). The named reproductions (`gridmarket.scenarios.reproductions`) and the
benchmarks call them; several also run on their own (``python -P -m gridmarket.scenarios.harnesses.NAME --help``).
They compose mechanisms of ``market`` and hold no algorithm.
"""
