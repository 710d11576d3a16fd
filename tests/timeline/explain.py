#!/usr/bin/env python3
"""The page's selection, markers and search (issue 33, "the timeline explains"), driven
in headless Chromium through the DevTools protocol, against ktrace's other commands.

  explain.py --plan
  explain.py NAME PAGE.html KTRACE FILE EVENT THREAD

Checks:
  - three ranges (two picked with ktl.select, one of them the whole trace, one dragged
    with shift held on the canvas):
    the panel's figures (CPU time per thread, events per name) equal `ktrace summary
    --json --top 100000 --from F --to T FILE` exactly, row for row; the panel shows the
    top thread's name and CPU time;
  - markers: one from ktl.marker, one by alt+click on the canvas: the time between them
    is B - A, and the bar says it;
  - search: the records an event name matches are `ktrace sql`'s count of events whose
    name contains it; a thread name's threads and records are sql's threads whose name
    contains it and their events (with the events of names that contain it); typed into
    the box, Enter jumps to the first match at or after the view's middle and again to
    the next, the record's line shown below the lanes; the matching lanes are marked.
Prints "ok - ..." / "not ok - ..." lines; SKIP lines when Chromium cannot be had.
"""
import json
import os
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

NCHECKS = 9
LABEL_W = 190          # page.js's layout


def ok(cond, name, detail=''):
    print('%s - %s' % ('ok' if cond else 'not ok', name))
    if not cond and detail:
        for line in str(detail).splitlines()[:12]:
            print('#   ' + line)
    return bool(cond)


def fmt_dur(ns):
    # page.js fmtDur
    if ns >= 1e9:
        return '%.3f s' % (ns / 1e9)
    if ns >= 1e6:
        return '%.3f ms' % (ns / 1e6)
    if ns >= 1e3:
        return '%.1f µs' % (ns / 1e3)
    return '%d ns' % ns


def sql(ktrace, f, query):
    out = subprocess.run([ktrace, 'sql', '--tsv', f, query], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    return [ln.split('\t') for ln in out[1:] if ln]


def summary(ktrace, f, a, b):
    """ktrace summary's figures of [a, b) (absolute ns): threads (tid, cpu_ns) in its
    order, events per name."""
    sec = lambda ns: '%d.%09d' % (ns // 10**9, ns % 10**9)
    out = subprocess.run([ktrace, 'summary', '--json', '--top', '100000', '--from', sec(a), '--to', sec(b), f],
                         check=True, capture_output=True, text=True).stdout
    i = json.loads(out)['inputs'][0]
    thr = [(r['tid'], r['cpu_ns']) for r in i['threads_by_cpu_time']['rows']]
    ev = Counter()
    for r in i['events']['rows']:
        ev[r['name']] += r['count']
    return thr, ev, i['threads_by_cpu_time']['total']


def check_range(page, ktrace, f, name, how, s):
    base = int(page.eval('ktl.meta.base'))
    a, b = int(s['from_ns']), int(s['to_ns'])
    ok_ends = a == base + round(s['from']) and b == base + round(s['to'])
    want_thr, want_ev, total = summary(ktrace, f, a, b)
    got_thr = [(r['tid'], r['cpu_ns']) for r in s['threads_by_cpu_time']]
    got_ev = Counter({r['name']: r['count'] for r in s['events']})
    panel = page.eval('document.getElementById("ktl-sel").textContent')
    top = s['threads_by_cpu_time'][0] if s['threads_by_cpu_time'] else None
    shown = top and top['name'] in panel and fmt_dur(top['cpu_ns']) in panel and \
        page.eval('getComputedStyle(document.getElementById("ktl-sel")).display') != 'none'
    return ok(ok_ends and want_thr and len(want_thr) == total and got_thr == want_thr and want_ev and
              got_ev == want_ev and shown,
              '%s: %s %s - %s (%d threads, %d records): the panel\'s CPU time per thread and events per name '
              'are ktrace summary --from --to\'s, row for row' % (
                  name, how, s['from_s'], s['to_s'], len(want_thr), sum(want_ev.values())),
              'ends %s; threads page %s\nsummary %s\nevents page %s\nsummary %s\npanel shows top: %s' % (
                  ok_ends, got_thr[:6], want_thr[:6], sorted(got_ev.items())[:6], sorted(want_ev.items())[:6],
                  bool(shown)))


def main():
    if sys.argv[1] == '--plan':
        print(NCHECKS)
        return 0
    name, html, ktrace, f, event, thread = sys.argv[1:7]
    try:
        b = cdp.Browser()
    except cdp.NoBrowser as e:
        for k in range(NCHECKS):
            print('ok - %s: selection, markers, search (%d of %d) # SKIP %s' % (name, k + 1, NCHECKS, e))
        return 0
    with b:
        page = b.open('file://' + os.path.abspath(html), 1400, 900, timeout=120)
        page.eval('window.ktlLoaded', timeout=120)
        span = page.eval('ktl.meta.span')
        # 1. a range through the API: the second fifth to the middle
        s = page.eval('ktl.select(%d, %d)' % (span * 0.2, span * 0.5))
        check_range(page, ktrace, f, name, 'ktl.select', s)
        # the whole trace: every lost-events place, the intervals still open at the end
        # (not counted)
        check_range(page, ktrace, f, name, 'ktl.select (all)', page.eval('ktl.select(0, %d)' % (span + 1)))
        # 2. a range dragged with shift held, over the CPU lanes, in a zoomed view
        page.eval('ktl.setView(%d, %d)' % (span * 0.55, span * 0.8))
        top = page.eval('document.getElementById("ktl-canvas").getBoundingClientRect().top')
        y = page.eval('ktl.cpuY(ktl.cpus()[0].cpu)') + top
        x0, x1 = LABEL_W + 700, LABEL_W + 150        # from right to left
        for kind, x, buttons in (('mousePressed', x0, 1), ('mouseMoved', (x0 + x1) // 2, 1), ('mouseMoved', x1, 1),
                                 ('mouseReleased', x1, 0)):
            page.call('Input.dispatchMouseEvent', {'type': kind, 'x': x, 'y': y, 'button': 'left', 'buttons': buttons,
                                                   'modifiers': 8, 'clickCount': 1})
        s2 = page.eval('ktl.selectionSummary()')
        v = page.eval('ktl.view()')
        pw = 1400 - LABEL_W - 10
        want = [v['t0'] + (x - LABEL_W) * (v['t1'] - v['t0']) / pw for x in (x1, x0)]
        near = s2 and all(abs(g - w) <= (v['t1'] - v['t0']) / pw for g, w in zip((s2['from'], s2['to']), want))
        view_kept = abs(v['t0'] - span * 0.55) < 2 and abs(v['t1'] - span * 0.8) < 2
        ok(near and view_kept, '%s: shift+drag selects the range under the pointer (not a pan)' % name,
           'got %s, want %s, view %s' % (s2 and (s2['from'], s2['to']), want, v))
        if s2:
            check_range(page, ktrace, f, name, 'shift+drag', s2)
        else:
            ok(False, '%s: shift+drag: the panel\'s figures are ktrace summary\'s' % name, 'no selection')
        # 3. markers: A through the API, B by alt+click; the time between them
        a = round(v['t0'] + (v['t1'] - v['t0']) * 0.1)
        page.eval('ktl.marker(null); ktl.marker(%d)' % a)
        xb = LABEL_W + 600
        for kind, buttons in (('mousePressed', 1), ('mouseReleased', 0)):
            page.call('Input.dispatchMouseEvent', {'type': kind, 'x': xb, 'y': y, 'button': 'left', 'buttons': buttons,
                                                   'modifiers': 1, 'clickCount': 1})
        m = page.eval('ktl.markers()')
        tb = v['t0'] + (xb - LABEL_W) * (v['t1'] - v['t0']) / pw
        bar = page.eval('document.getElementById("ktl-markers").textContent')
        good = len(m['marks']) == 2 and m['marks'][0] == a and abs(m['marks'][1] - tb) <= 1 and \
            m['delta'] == abs(m['marks'][1] - a) and fmt_dur(m['delta']) in bar
        ok(good, '%s: a marker from ktl.marker and one by alt+click: B - A is the time between them, shown in the '
           'bar' % name, 'markers %s, want B near %s; bar %r' % (m, tb, bar))
        # 4. search: an event name, a thread name, against ktrace sql
        r = page.eval('ktl.search(%s)' % json.dumps(event))
        want_n = int(sql(ktrace, f, "select count(*) from event where instr(name, '%s') > 0" % event)[0][0])
        ok(want_n > 0 and r['records'] == want_n and not r['threads'],
           '%s: search "%s": the records of the event names that contain it (%d) are ktrace sql\'s' % (
               name, event, want_n), 'page %s, sql %d' % ({k: r[k] for k in ('records', 'events')}, want_n))
        r = page.eval('ktl.search(%s)' % json.dumps(thread))
        want_t = sorted(int(x[0]) for x in sql(ktrace, f, "select tid from thread where instr(name, '%s') > 0 "
                                                       "and tid != 0" % thread))
        want_r = int(sql(ktrace, f, "select count(*) from event e left join thread t using(utid) where "
                                    "instr(t.name, '%s') > 0 or instr(e.name, '%s') > 0" % (thread, thread))[0][0])
        got_t = sorted(x['tid'] for x in r['threads'])
        ok(want_t and got_t == want_t and r['records'] == want_r,
           '%s: search "%s": its threads (%d) and their records (%d) are ktrace sql\'s threads of that name and '
           'their events' % (name, thread, len(want_t), want_r),
           'threads page %s\nsql %s\nrecords page %d, sql %d' % (got_t[:10], want_t[:10], r['records'], want_r))
        # typed into the box: Enter jumps to a match, again to the next; the record's line
        # below the lanes names the thread
        page.eval('ktl.setView(%d, %d)' % (span / 2 - span / 40, span / 2 + span / 40))
        page.eval('(() => { const i = document.querySelector("#ktl-find input"); i.value = %s; i.focus(); })()'
                  % json.dumps(thread))
        page.key('Enter', 'Enter', 13)
        st1 = page.eval('ktl.searchState()')
        info1 = page.eval('document.querySelector("#ktl-find .n").textContent')
        page.key('Enter', 'Enter', 13)
        st2 = page.eval('ktl.searchState()')
        info2 = page.eval('document.querySelector("#ktl-find .n").textContent')
        det = page.eval('document.getElementById("ktl-detail").textContent')
        nxt = page.eval('ktl.searchNext()')
        v3 = page.eval('ktl.view()')
        n = r['records']
        # the first at or after the middle (none: the first of all)
        mid = span / 2
        last = page.eval('ktl.searchTime(%d)' % (n - 1))
        prev = page.eval('ktl.searchTime(%d)' % (st1['index'] - 1)) if st1 and st1['index'] > 0 else None
        first = st1 and ((st1['t'] >= mid and (prev is None or prev < mid)) or (last < mid and st1['index'] == 0))
        good = first and st2 and st1['count'] == n and \
            info1.replace(',', '').startswith('%d of ' % (st1['index'] + 1)) and \
            st2['index'] == (st1['index'] + 1) % n and \
            info2.replace(',', '').startswith('%d of ' % (st2['index'] + 1)) and thread in det and \
            nxt['index'] == (st1['index'] + 2) % n and abs((v3['t0'] + v3['t1']) / 2 - nxt['t']) <= 1
        ok(good, '%s: typed "%s", Enter jumps to the first match after the view\'s middle (else the first), Enter again to the '
           'next (its record shown), next centres the view on the one after' % (name, thread),
           'state %s, %s; info %r, %r; detail %r; next %s' % (st1, st2, info1, info2, det[:200], nxt))
        # the lanes of matching threads are marked (their label's background)
        shown = page.eval('ktl.threads().slice(0, ktl.meta.top)')
        hit = [t for t in shown if thread in t['comm']]
        miss = [t for t in shown if thread not in t['comm'] and str(t['tid']) != thread]
        if hit and miss:
            _, _, bpp, rows = cdp.read_png(page.screenshot())
            ctop = int(page.eval('document.getElementById("ktl-canvas").getBoundingClientRect().top'))
            px = lambda t: tuple(rows[int(page.eval('ktl.threadY(%d)' % t['tid'])) + ctop][180 * bpp:180 * bpp + 3])
            yel = (0xff, 0xdd, 0x66)
            ok(px(hit[0]) == yel and px(miss[0]) != yel, '%s: the lane of a matching thread is marked, another '
               'is not' % name, 'matching %s, other %s' % (px(hit[0]), px(miss[0])))
        else:
            ok(True, '%s: the lane of a matching thread is marked # SKIP no shown lane of each kind' % name)
        page.call('Page.close')
    return 0


if __name__ == '__main__':
    sys.exit(main())
