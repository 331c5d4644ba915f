"""The ``gridmarket`` command line, one module per subcommand (the console script is `gridmarket.scenarios.commands.cli.main`).

``cli`` (the parser, ``simulate``), ``compare`` (``compare``, ``sweep``), ``quote`` (``quote``,
``advertise``), ``provision``, ``clear`` and ``run`` (the named reproductions). Each module parses its
options and calls the library (``market``) or a harness (`gridmarket.scenarios.harnesses`); ``gridmarket --help``
imports only `gridmarket.scenarios.commands.cli`.
"""
