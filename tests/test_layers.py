"""Layer rules of DESIGN.md: ``market`` is pure and never imports Mesa."""

import subprocess
import sys


def test_market_imports_without_mesa_agents_or_scenarios():
    code = (
        "import sys, market, gridmarket.simulation, gridmarket.scheduling, gridmarket.workloads, gridmarket.metrics, "
        "gridmarket.batsim, gridmarket.energy, gridmarket.clearing, gridmarket.prediction, gridmarket.selection, "
        "gridmarket.metascheduling, gridmarket.pricing, gridmarket.provisioning, gridmarket.workflows, gridmarket.twotier\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('mesa', 'agents', 'scenarios'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_module_imports_only_its_own_layer_and_those_below():
    """DESIGN.md's layers, bottom to top: market (``gridmarket``), agents, scenarios, then viz and rl side by
    side; every module of every folder is read (late imports inside functions count), not a chosen list."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    above = {
        "market": ("mesa", "gridmarket.agents", "gridmarket.scenarios", "gridmarket.viz", "gridmarket.rl"),
        "agents": ("gridmarket.scenarios", "gridmarket.viz", "gridmarket.rl"),
        "scenarios": ("gridmarket.viz", "gridmarket.rl"),
        "viz": ("gridmarket.rl",),
        "rl": ("gridmarket.viz",),
    }
    found = []
    for folder, banned in above.items():
        for path in (root / folder).rglob("*.py"):
            found += [f"{path.relative_to(root)} imports {m}" for m in sorted(_imports(path))
                      if any(m == b or m.startswith(b + ".") for b in banned)]
    assert not found, found


def _imports(path):
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):  # module level and inside functions (late imports count too)
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_no_import_circles_between_the_engines_or_between_the_commands():
    """The two-tier engines never import the simulator that drives them, and no command imports the CLI that
    dispatches to it: each can be imported, read and tested alone (they once imported each other)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for path in (root / "market" / "twotier").glob("*.py"):
        assert "gridmarket.simulation" not in _imports(path), path
    for path in (root / "scenarios" / "commands").glob("*.py"):
        if path.name != "cli.py":
            assert not any(m == "gridmarket.scenarios.commands.cli" or m.startswith("gridmarket.scenarios.commands.cli.")
                           for m in _imports(path)), path


def test_scenarios_layout_commands_over_harnesses_over_mechanisms():
    """A command may use a harness or a reproduction; a harness, a reproduction or the shared scenario
    machinery never imports a command (so each can be read and run without the CLI)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "scenarios"
    assert {p.name for p in (root / "commands").glob("*.py")} >= {
        "cli.py", "compare.py", "quote.py", "provision.py", "clear.py", "run.py"}
    assert {p.name for p in (root / "harnesses").glob("*.py")} >= {
        "provisioning.py", "metascheduling.py", "pricing_replay.py", "psp.py", "twotier_tables.py"}
    below = [*(root / "harnesses").glob("*.py"), *(root / "reproductions").glob("*.py"), *root.glob("*.py")]
    for path in below:
        bad = sorted(m for m in _imports(path) if m == "gridmarket.scenarios.commands" or m.startswith("gridmarket.scenarios.commands."))
        assert not bad, (path, bad)


def test_no_two_modules_of_gridmarket_import_each_other():
    """Not even inside a function: a module pair that needs each other needs a third module for what both use
    (a plotting module and scenarios.results once did, for ``ci95``: now :mod:`gridmarket.scenarios.intervals`)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    packages = {"market": "gridmarket", "agents": "gridmarket.agents", "scenarios": "gridmarket.scenarios",
                "viz": "gridmarket.viz", "data": "gridmarket.data", "rl": "gridmarket.rl"}
    modules = {}
    for folder, package in packages.items():
        for path in (root / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(root / folder).with_suffix("").parts if p != "__init__"]
            modules[".".join([package, *parts])] = path
    imports = {m: {i for i in _imports(p) if i in modules and i != m and not m.startswith(i + ".")}
               for m, p in modules.items()}  # a module importing its own package is how packages are built
    pairs = sorted({tuple(sorted((a, b))) for a, found in imports.items() for b in found if a in imports[b]})
    assert not pairs, pairs


def _policy_name_tests(path, names):
    """Where ``path`` tests a value against a scheduling policy's name, or holds/imports a set of such names."""
    import ast

    def named(node):
        return isinstance(node, ast.Constant) and node.value in names

    def holds_names(node):  # a literal of policy names only (a tuple of JSON keys that holds "slots" is not one)
        return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and all(named(e) for e in node.elts)

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(named(s) or holds_names(s) for s in sides):
                found.append(f"{path.name}:{node.lineno}: compares with a policy name")
        elif isinstance(node, ast.Assign) and holds_names(node.value):
            found.append(f"{path.name}:{node.lineno}: a set of policy names")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                ("gridmarket.scheduling", "gridmarket.pricing", "gridmarket.twotier", "gridmarket.simulation")):
            found.extend(f"{path.name}:{node.lineno}: imports {a.name}" for a in node.names
                         if a.name == "POLICIES" or a.name.endswith("_POLICIES"))
    return found


def test_only_the_scheduling_package_knows_policies_by_name():
    """Pricing, the plan views, agents and commands ask a scheduler's planner (``planner.plans_whole_queue``,
    ``planner.plan(state)``); a policy's name is resolved once (``gridmarket.scheduling.planner_of``). Pricing
    once tested names (``policy in BACKFILL_POLICIES``) in three modules and the plan view in a fourth. The
    two-tier policies are named once too (:func:`gridmarket.scheduling.resolve_machine_policy`): ``simulate``,
    the command line, the scenario files, the market and the MEASY tables once each tested ``keasy/reasy/measy``.
    The two-tier package defines its own policies (:data:`gridmarket.twotier.policies.TWO_TIER_POLICIES`)."""
    from pathlib import Path

    from gridmarket.scheduling import machine_policy_names

    names = set(machine_policy_names())
    root = Path(__file__).resolve().parents[1]
    inside = (root / "market" / "scheduling", root / "market" / "twotier")
    paths = [p for folder in ("market", "agents", "scenarios", "viz", "rl") for p in (root / folder).rglob("*.py")
             if not any(d in p.parents for d in inside)]
    found = [hit for p in paths for hit in _policy_name_tests(p, names)]
    assert not found, found


def test_only_gridmarket_rl_imports_gymnasium_or_pettingzoo():
    """The learning environments are an optional extra (``rl``): importing gridmarket and every module outside
    :mod:`gridmarket.rl` leaves Gymnasium and PettingZoo out, so the rest runs without them installed."""
    code = (
        "import importlib, pkgutil, sys, gridmarket\n"
        "names, packages = [], [gridmarket]\n"
        "while packages:  # pkgutil.walk_packages would import gridmarket.rl to look inside it\n"
        "    package = packages.pop()\n"
        "    for m in pkgutil.iter_modules(package.__path__, package.__name__ + '.'):\n"
        "        if m.name != 'gridmarket.rl':\n"
        "            names.append(m.name)\n"
        "            module = importlib.import_module(m.name)\n"
        "            if m.ispkg:\n"
        "                packages.append(module)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('gymnasium', 'pettingzoo'))\n"
        "print(len(names), bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n, bad = out.stdout.strip().split(" ", 1)
    assert int(n) > 100 and bad == "[]", out.stdout
