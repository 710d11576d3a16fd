#!/usr/bin/env python3
"""A ktrace that breaks one promise, for tests/robust/checks.sh: ROBUST_FAKE names
it. Commands that are not the campaign's runs (preparing the inputs, reading an
output back) go to the real ktrace (REAL_KTRACE), and so does everything the fault
does not touch."""
import os
import signal
import subprocess
import sys
import time

args = sys.argv[1:]
fake = os.environ.get('ROBUST_FAKE', '')
real = os.environ['REAL_KTRACE']
# a campaign's run reads a file in its slot's in/ directory, or standard input
inp = next((a for a in args if '/in/' in a), '-' if '-' in args else None)
out = args[args.index('-o') + 1] if '-o' in args else None


def real_run(**kw):
    return subprocess.run([real] + args, **kw).returncode


if inp is None or not fake:
    os.execv(real, [real] + args)
if fake == 'crash':
    os.kill(os.getpid(), signal.SIGSEGV)
elif fake == 'asan':
    sys.stderr.write('==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6\n'
                     '    #0 0x5 in print_line src/main.c:57\n')
    sys.exit(1)
elif fake == 'hang':
    time.sleep(600)
elif fake == 'badjson' and '--json' in args:
    sys.stdout.write('{"events": [1, 2,\n')
    sys.exit(0)
elif fake == 'tmpfile':
    open(os.path.join(os.environ['TMPDIR'], 'spool'), 'w').write('x')
    sys.exit(real_run())
elif fake == 'oom':
    sys.stderr.write('ktrace: %s: out of memory\n' % inp)
    sys.exit(1)
elif fake == 'noinput':
    sys.stderr.write('ktrace: CPU 3: beyond 2\n')
    sys.exit(1)
elif fake == 'unprintable':
    sys.stderr.write('ktrace: %s: offset 0x10: a \x01 byte\n' % inp)
    sys.exit(1)
elif fake == 'silent':          # damage goes unsaid
    real_run(stderr=subprocess.DEVNULL)
    sys.exit(0)
elif fake == 'nooffset':        # damage said without its place
    rc = real_run(stderr=subprocess.DEVNULL)
    if rc == 1:
        sys.stderr.write('ktrace: %s: something is wrong\n' % inp)
    sys.exit(rc)
elif fake == 'leftover' and out and out != '-':
    open(out + '.tmp-1234', 'w').write('partial')
    sys.stderr.write('ktrace: %s: offset 0x10: damaged\n' % inp)
    sys.exit(1)
elif fake == 'incomplete' and out and out.endswith('.json'):
    open(out, 'w').write('{"traceEvents": [\n')
    sys.exit(0)
elif fake == 'disk' and out and out != '-':
    with open(out, 'wb') as f:
        while True:
            f.write(b'\0' * (1 << 20))
os.execv(real, [real] + args)
