"""Runs unittest test cases and prints TAP for tests/run.sh: the plan "1..N" (one result
per test method), then "ok - name", "not ok - name" (with the failure as # lines) or
"ok - name # SKIP why". Exit status 0; run.sh counts the lines."""
import sys
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.failed = {}

    def _name(self, test):
        return '%s.%s' % (type(test).__name__, test._testMethodName)

    def _fail(self, test, err):
        self.failed.setdefault(self._name(test), []).append(self._exc_info_to_string(err, test))

    def addError(self, test, err):
        self._fail(test, err)

    def addFailure(self, test, err):
        self._fail(test, err)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self._fail(test, err)

    def addSkip(self, test, reason):
        self.skipped.append((test, reason))
        print('ok - %s # SKIP %s' % (self._name(test), reason.replace('\n', ' ')))
        sys.stdout.flush()

    def stopTest(self, test):
        super().stopTest(test)
        name = self._name(test)
        if any(t is test for t, _ in self.skipped):
            return
        if name in self.failed:
            print('not ok - %s' % name)
            for text in self.failed[name]:
                for line in text.rstrip().split('\n'):
                    print('# ' + line)
        else:
            print('ok - %s' % name)
        sys.stdout.flush()


def main(module):
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    print('1..%d' % suite.countTestCases())
    sys.stdout.flush()
    suite.run(TapResult())
