"""Runs the plain-Python addon tests (test_ctypes.py, test_api.py, test_bridge.py) and prints `N passed, N failed` last.

Usage: /usr/bin/python3 tests/addon/run_python_tests.py [-v]   (library: SKINKIT_LIBRARY or <repo>/build)
Exit status 1 if any test failed or errored.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    verbosity = 2 if "-v" in sys.argv[1:] else 1
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for name in ("test_ctypes", "test_api", "test_bridge"):
        suite.addTests(loader.loadTestsFromName(name))
    result = unittest.TextTestRunner(verbosity=verbosity, stream=sys.stdout).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    for test, why in result.skipped:
        print("skipped: %s: %s" % (test.id(), why))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
