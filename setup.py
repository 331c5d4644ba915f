"""Builds the optional compiled kernel (Cython); everything else is in pyproject.toml.

Where the extension cannot be built (no C compiler), the install still
succeeds and ``gridmarket.scheduling.profile`` runs the pure-Python reference,
saying so once.
"""

import sys

if sys.version_info < (3, 12):  # noqa: UP036 - setup.py runs on any Python; pip alone would end in "No matching distribution found for mesa"
    sys.exit(f"gridmarket needs Python 3.12 or newer (Mesa 3.5 does); this is Python {sys.version.split()[0]}. "
             "Make the virtualenv with python3.12 (pyenv picks it from the repository's .python-version).")

from setuptools import Extension, find_packages, setup  # noqa: E402
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build the kernel if this machine can; never fail the install over it."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # no compiler, broken toolchain: keep the reference
            print(f"gridmarket: compiled kernel not built ({exc}); the pure-Python reference will run")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"gridmarket: compiled kernel not built ({exc}); the pure-Python reference will run")


# folder -> package it installs as; every folder below one with an ``__init__.py`` follows it
PACKAGE_DIRS = {
    "gridmarket": "market",
    "gridmarket.agents": "agents",
    "gridmarket.scenarios": "scenarios",
    "gridmarket.viz": "viz",
    "gridmarket.data": "data",
    "gridmarket.rl": "rl",
}


def _packages():
    names = []
    for package, folder in PACKAGE_DIRS.items():
        names.append(package)
        names += [f"{package}.{sub}" for sub in find_packages(folder)]
    return names


def _extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("gridmarket: Cython missing; the pure-Python reference kernel will run")
        return []
    exts = [
        Extension("gridmarket.scheduling._cprofile", ["market/scheduling/_cprofile.pyx"], optional=True),
        Extension("gridmarket.pricing._creplan", ["market/pricing/_creplan.pyx"], optional=True),
        Extension("gridmarket.provisioning._cplan", ["market/provisioning/_cplan.pyx"], optional=True),
        Extension("gridmarket.prediction._cdbscan", ["market/prediction/_cdbscan.pyx"], optional=True),
        Extension("gridmarket.twotier._cengine", ["market/twotier/_cengine.pyx"], optional=True),
        # the ZIP day must match its numpy twin to the bit: no fused multiply-add
        Extension("gridmarket.auctions._czip", ["market/auctions/_czip.pyx"], optional=True,
                  extra_compile_args=[] if sys.platform == "win32" else ["-ffp-contract=off"]),
    ]
    return cythonize(exts, quiet=True, compiler_directives={"language_level": "3"})


setup(packages=_packages(), package_dir=PACKAGE_DIRS, ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
