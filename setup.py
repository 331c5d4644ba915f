"""Builds the optional compiled kernel (Cython); everything else is in pyproject.toml.

Where the extension cannot be built (no C compiler), the install still
succeeds and ``market.scheduling.profile`` runs the pure-Python reference,
saying so once.
"""

import sys

if sys.version_info < (3, 12):  # pip alone would end in "No matching distribution found for mesa"
    sys.exit(f"gridmarket needs Python 3.12 or newer (Mesa 3.5 does); this is Python {sys.version.split()[0]}. "
             "Make the virtualenv with python3.12 (pyenv picks it from the repository's .python-version).")

from setuptools import Extension, setup  # noqa: E402
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


def _extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("gridmarket: Cython missing; the pure-Python reference kernel will run")
        return []
    exts = [
        Extension("market.scheduling._cprofile", ["market/scheduling/_cprofile.pyx"], optional=True),
        Extension("market.pricing._creplan", ["market/pricing/_creplan.pyx"], optional=True),
        Extension("market.provisioning._cplan", ["market/provisioning/_cplan.pyx"], optional=True),
        Extension("market.prediction._cdbscan", ["market/prediction/_cdbscan.pyx"], optional=True),
        Extension("market.twotier._cengine", ["market/twotier/_cengine.pyx"], optional=True),
    ]
    return cythonize(exts, quiet=True, compiler_directives={"language_level": "3"})


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
