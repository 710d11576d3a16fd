"""What the timeline page checks share: a TAP verdict, `ktrace sql`'s rows, and page.js's
way of writing a duration."""
import subprocess


def ok(cond, name, detail=''):
    """Prints "ok - NAME" or "not ok - NAME" (with up to 12 lines of detail); cond's truth."""
    print('%s - %s' % ('ok' if cond else 'not ok', name))
    if not cond and detail:
        for line in str(detail).splitlines()[:12]:
            print('#   ' + line)
    return bool(cond)


def sql(ktrace, files, query):
    """The rows of `ktrace sql --tsv FILES QUERY`, each a list of strings."""
    out = subprocess.run([ktrace, 'sql', '--tsv'] + files + [query], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    return [ln.split('\t') for ln in out[1:] if ln]


def fmt_dur(ns):
    """page.js's fmtDur."""
    if ns >= 1e9:
        return '%.3f s' % (ns / 1e9)
    if ns >= 1e6:
        return '%.3f ms' % (ns / 1e6)
    if ns >= 1e3:
        return '%.1f µs' % (ns / 1e3)
    return '%d ns' % ns
