"""Liu et al. 2012 sec. 3.2: run `gridmarket run measy` / `measy-robustness` under either reading of the fg loss.

Sec. 3.2: "Running a foreground VM and a background VM simultaneously on a physical processor incurs
overhead due to context switch. We model the progress of a process running in the foreground VM as
follows: [T (1 - loss)] ... loss is the performance degradation of jobs running in the foreground
tier" (``shared/seeds/measy-migration-consolidation.txt``; the seed's copy lost the equation's
symbols). The engines charge the loss to every fg process (``--reading every``, the default of both
reproductions); ``--reading shared`` charges it only while a bg process shares the processor (a job
runs at its slowest process), through the pure-Python reference engine on the patched machine of
``benchmarks/measy_fwload_robustness.py`` (``loss-shared``; about 10x slower than the compiled
engine, which is not touched). Everything else is the reproduction as registered: same workloads,
seeds, loads, checks and report, written by the ordinary ``run`` command (in this process, one
worker, so the patch holds).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/measy_fg_loss_reading.py --reading shared -- \\
        run measy --size medium --seeds 1..3 --workers 1 --out out/measy-fgloss-shared
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reading", choices=("every", "shared"), default="every",
                    help="every: the loss on every fg process (the engines' default); shared: only while a bg "
                         "process shares the processor")
    ap.add_argument("cli", nargs=argparse.REMAINDER, help="-- then the gridmarket arguments (run NAME ...)")
    args = ap.parse_args(argv)
    cli_args = args.cli[1:] if args.cli[:1] == ["--"] else args.cli
    if not cli_args or cli_args[0] != "run":
        print("give the gridmarket command after --, e.g. -- run measy --size medium --seeds 1..3 --workers 1",
              file=sys.stderr)
        return 2
    if "--workers" not in cli_args or cli_args[cli_args.index("--workers") + 1:][:1] != ["1"]:
        print("--workers 1 is required: the patch holds in this process only", file=sys.stderr)
        return 2
    from gridmarket.scenarios.commands.cli import main as cli_main
    from gridmarket.scenarios.commands.cli import pin_blas_kernel

    pin_blas_kernel()  # as the command line does, before numpy loads
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from measy_fwload_robustness import _shared_loss

    with _shared_loss(args.reading == "shared"):
        return cli_main(cli_args)


if __name__ == "__main__":
    sys.exit(main())
