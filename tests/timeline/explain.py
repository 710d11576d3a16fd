#!/usr/bin/env python3
"""The page's selection, markers and search (issue 33, "the timeline explains"), driven
in headless Chromium through the DevTools protocol, against ktrace's other commands.

  explain.py --plan
  explain.py NAME PAGE.html KTRACE FILE[,FILE...] EVENT THREAD [SHOT.png]

SHOT.png: a picture of the page explaining (a thread's wakeup arrows, a selected range
and its figures), for the README (docs/timeline-demo.png is the demo's).

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
from pagecheck import fmt_dur, ok, sql  # noqa: E402

NCHECKS = 12
LABEL_W = 190          # page.js's layout


def summary(ktrace, files, a=None, b=None):
    """ktrace summary's figures of [a, b) (absolute ns), per input: threads (tid, cpu_ns)
    in its order, wakeup latency rows (tid, count, p50, p90, p99, max) in its order,
    events per (system, name); the whole trace without a and b."""
    sec = lambda ns: '%d.%09d' % (ns // 10**9, ns % 10**9)
    win = ['--from', sec(a), '--to', sec(b)] if a is not None else []
    out = subprocess.run([ktrace, 'summary', '--json', '--top', '100000'] + win + files,
                         check=True, capture_output=True, text=True).stdout
    res = []
    for i in json.loads(out)['inputs']:
        thr = [(r['tid'], r['cpu_ns']) for r in i['threads_by_cpu_time']['rows']]
        lat = [(r['tid'], r['count'], r['p50_ns'], r['p90_ns'], r['p99_ns'], r['max_ns'])
               for r in i['threads_by_wakeup_latency']['rows']]
        ev = Counter()
        for r in i['events']['rows']:
            ev[(r['system'], r['name'])] += r['count']
        res.append({'threads': thr, 'latency': lat, 'events': ev, 'total': i['threads_by_cpu_time']['total'],
                    'start': i['start_ns'], 'end': i['end_ns']})
    return res


def input_of(files, path):
    """The index of sql's trace.path among the inputs."""
    return [os.path.abspath(f) for f in files].index(os.path.abspath(path))


def sql_latencies(ktrace, files, a, b):
    """`ktrace sql`'s wakeup latencies starting in [a, b), per (trace order, tid): durations."""
    rows = sql(ktrace, files, 'select t.path, th.tid, w.dur '
                              'from wakeup_latency w join thread th using(utid) join trace t on t.trace_id = w.trace_id '
                              'where w.ts >= %d and w.ts < %d and th.tid != 0' % (a, b))
    lat = {}
    for path, tid, dur in rows:
        lat.setdefault((input_of(files, path), int(tid)), []).append(int(dur))
    return lat


def check_range(page, ktrace, files, name, how, s):
    base = int(page.eval('ktl.meta.base'))
    a, b = int(s['from_ns']), int(s['to_ns'])
    ok_ends = a == base + round(s['from']) and b == base + round(s['to'])
    want = summary(ktrace, files, a, b)
    got = s['inputs']
    panel = page.eval('document.getElementById("ktl-sel").textContent')
    shown = page.eval('getComputedStyle(document.getElementById("ktl-sel")).display') != 'none'
    bad = []
    if len(got) != len(want):
        bad.append('inputs: page %d, summary %d' % (len(got), len(want)))
    nthr = nev = nlat = 0
    for k, (g, w) in enumerate(zip(got, want)):
        got_thr = [(r['tid'], r['cpu_ns']) for r in g['threads_by_cpu_time']]
        got_lat = [(r['tid'], r['count'], r['p50_ns'], r['p90_ns'], r['p99_ns'], r['max_ns'])
                   for r in g['threads_by_wakeup_latency']]
        got_ev = Counter({(r['system'], r['name']): r['count'] for r in g['events']})
        nthr += len(w['threads'])
        nev += sum(w['events'].values())
        nlat += sum(x[1] for x in w['latency'])
        if got_thr != w['threads'] or len(w['threads']) != w['total']:
            bad.append('input %d threads page %s\nsummary %s' % (k, got_thr[:5], w['threads'][:5]))
        if got_lat != w['latency']:
            bad.append('input %d latency page %s\nsummary %s' % (k, got_lat[:3], w['latency'][:3]))
        if got_ev != w['events']:
            bad.append('input %d events page %s\nsummary %s' % (k, sorted(got_ev.items())[:4],
                                                                  sorted(w['events'].items())[:4]))
        # the panel shows the input's top thread and event (system:name)
        if g['threads_by_cpu_time']:
            top = g['threads_by_cpu_time'][0]
            if top['name'] not in panel or fmt_dur(top['cpu_ns']) not in panel:
                bad.append('input %d: the panel lacks its top thread' % k)
        if g['events']:
            e = g['events'][0]
            if (e['system'] + ':' if e['system'] else '') + e['name'] not in panel:
                bad.append('input %d: the panel lacks its top event' % k)
        if g['threads_by_wakeup_latency']:
            r = g['threads_by_wakeup_latency'][0]
            if fmt_dur(r['p99_ns']) not in panel:
                bad.append('input %d: the panel lacks its top latency' % k)
    # independent of summary: ktrace sql's wakeup_latency rows (count, max exact; the
    # quantiles within summary's 0.4% of the exact nearest rank)
    lat = sql_latencies(ktrace, files, a, b)
    for k, g in enumerate(got):
        for r in g['threads_by_wakeup_latency']:
            d = sorted(lat.get((k, r['tid']), []))
            if len(d) != r['count'] or not d or d[-1] != r['max_ns']:
                bad.append('input %d tid %d: sql has %d latencies (max %s), the page %d (max %d)' % (
                    k, r['tid'], len(d), d[-1] if d else None, r['count'], r['max_ns']))
                continue
            for q in (50, 90, 99):
                exact = d[max(1, -(-len(d) * q // 100)) - 1]
                if abs(r['p%d_ns' % q] - exact) > exact * 0.004 + 1:
                    bad.append('input %d tid %d: p%d %d, exact %d' % (k, r['tid'], q, r['p%d_ns' % q], exact))
    if sum(len(v) for v in lat.values()) != sum(r['count'] for g in got for r in g['threads_by_wakeup_latency']):
        bad.append('sql has %d latencies in the range, the page %d' % (
            sum(len(v) for v in lat.values()), sum(r['count'] for g in got for r in g['threads_by_wakeup_latency'])))
    return ok(ok_ends and nthr and nev and shown and not bad,
              '%s: %s %s - %s (%d threads, %d records, %d wakeups): the panel\'s CPU time per thread, wakeup '
              'latency per thread and events per name are ktrace summary --from --to\'s per input, row for row, '
              'the latencies ktrace sql\'s' % (name, how, s['from_s'], s['to_s'], nthr, nev, nlat),
              'ends %s, shown %s\n%s' % (ok_ends, shown, '\n'.join(bad)))


def check_wakeups(page, ktrace, files, name):
    """The selected thread's wakeups (the one with most): ktrace sql's wakeup_latency rows
    of it (time, wait, CPU, waker), the waker's CPU that of its wakeup record in sql's
    event table; an arrow drawn from the waker's point to the thread's lane."""
    first = "t.path = '%s'" % files[0].replace("'", "''")
    rows = sql(ktrace, files, 'select th.tid, count(*) from wakeup_latency w join thread th using(utid) '
                              'join trace t on t.trace_id = w.trace_id where %s '
                              'and th.tid != 0 group by w.utid order by 2 desc, 1 limit 1' % first)
    if not rows:
        ok(False, '%s: wakeup arrows: sql has no wakeup latency' % name)
        ok(False, '%s: wakeup arrows drawn' % name)
        return
    tid = int(rows[0][0])
    lats = sql(ktrace, files, 'select w.ts, w.dur, w.cpu, coalesce(wt.tid, -1), coalesce(w.waker_utid, -1) '
               'from wakeup_latency w join thread th using(utid) left join thread wt on wt.utid = w.waker_utid '
               'join trace t on t.trace_id = w.trace_id where %s and th.tid = %d order by w.ts' % (first, tid))
    # the wakeup records at those times: the waker's, else the first
    recs = {}
    for ts, cpu, utid in sql(ktrace, files, 'select e.ts, e.cpu, e.utid from event e join trace t using(trace_id) '
                                            "where %s and e.name in ('sched_waking', 'sched_wakeup', "
                                            "'sched_wakeup_new') and e.ts in (select w.ts from wakeup_latency w "
                                            'join thread th using(utid) where th.tid = %d) order by e.id' % (first, tid)):
        recs.setdefault(int(ts), []).append((int(cpu), int(utid) if utid else -1))
    want = []
    for ts, dur, cpu, wtid, wutid in lats:
        r = recs.get(int(ts), [])
        mine = [c for c, u in r if u == int(wutid)]
        want.append((int(ts), int(dur), int(cpu), int(wtid), mine[0] if mine else r[0][0] if r else -1))
    base = int(page.eval('ktl.meta.base'))
    th = [x for x in page.eval('ktl.threads()') if x['tid'] == tid and x['input'] == 0][0]
    sel = page.eval('ktl.selectThread(%d)' % th['i'])
    got = [(base + int(w['ts']), int(w['dur']), w['cpu'], w['waker_tid'], w['waker_cpu'])
           for w in page.eval('ktl.wakeups(%d)' % th['i'])]
    ok(got == want and sel['wakeups'] == len(want),
       '%s: the wakeups of %s-%d (%d): when, how long, the CPU it ran on, the waker and the CPU it woke it from are '
       'ktrace sql\'s wakeup_latency rows and their wakeup records' % (name, th['comm'], tid, len(want)),
       'page %s\nsql  %s' % (got[:4], want[:4]))
    # the longest wait in the view: an arrow from the waker's point to the lane
    w = max(page.eval('ktl.wakeups(%d)' % th['i']), key=lambda x: x['dur'])
    page.eval('ktl.select(null); ktl.marker(null); ktl.search(""); ktl.setView(%f, %f)' % (
        w['ts'] - w['dur'] * 0.5 - 1000, w['ts'] + w['dur'] * 1.5 + 1000))
    top = page.eval('document.getElementById("ktl-canvas").getBoundingClientRect().top')
    x0 = page.eval('ktl.xOf(%f)' % w['ts'])
    x1 = page.eval('ktl.xOf(%f)' % (w['ts'] + w['dur']))
    y1 = page.eval('ktl.threadY(%d)' % tid) if page.eval('ktl.threadY(%d)' % tid) >= 0 else \
        page.eval('ktl.cpuY(%d)' % w['cpu'])
    _, _, bpp, rows = cdp.read_png(page.screenshot())
    px = lambda x, y: tuple(rows[int(y + top)][int(x) * bpp:int(x) * bpp + 3])
    violet = lambda c: c[2] > 150 and c[1] < 120 and c[0] > 100
    # the arrow's line, a quarter and three quarters of the way (the slope's pixel row)
    yw = page.eval('ktl.threadY(%d)' % w['waker_tid']) if w['waker_tid'] >= 0 else -1
    y0 = yw if yw >= 0 else page.eval('ktl.cpuY(%d)' % w['waker_cpu'])
    pts = [(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f) for f in (0.25, 0.75)]
    hits = [any(violet(px(x + dx, y + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)) for x, y in pts]
    page.eval('ktl.selectThread(null)')
    _, _, bpp, rows = cdp.read_png(page.screenshot())
    gone = [not any(violet(px(x + dx, y + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)) for x, y in pts]
    ok(all(hits) and all(gone), '%s: the arrow of its longest wait is drawn (violet) from the waker\'s point to '
       'where it runs, and goes with the selection' % name, 'drawn %s, gone %s at %s' % (hits, gone, pts))


def picture(page, shot):
    """The page explaining: the busiest thread selected (its wakeup arrows), a range
    selected in a zoomed view (its figures below the lanes)."""
    span = page.eval('ktl.meta.span')
    th = page.eval('ktl.threads()')
    busy = max(th[:16], key=lambda x: len(page.eval('ktl.wakeups(%d)' % x['i'])))
    page.eval('document.querySelector("#ktl-find input").value = ""; ktl.search("")')
    page.eval('ktl.setView(%d, %d)' % (span * 0.40, span * 0.52))
    page.eval('ktl.selectThread(%d)' % busy['i'])
    page.eval('ktl.select(%d, %d)' % (span * 0.44, span * 0.47))
    page.mouse('mouseMoved', 5, 5)
    hgt = page.eval('Math.ceil(document.getElementById("ktl-detail").getBoundingClientRect().bottom)')
    page.call('Emulation.setDeviceMetricsOverride', {'width': 1400, 'height': hgt, 'deviceScaleFactor': 1,
                                                    'mobile': False})
    data = page.call('Page.captureScreenshot', {'format': 'png', 'clip': {
        'x': 0, 'y': 0, 'width': 1400, 'height': hgt, 'scale': 1}})['data']
    with open(shot, 'wb') as out:
        out.write(__import__('base64').b64decode(data))


def main():
    if sys.argv[1] == '--plan':
        print(NCHECKS)
        return 0
    name, html, ktrace, f, event, thread = sys.argv[1:7]
    files = f.split(',')
    shot = sys.argv[7] if len(sys.argv) > 7 else None
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
        base = int(page.eval('ktl.meta.base'))
        # 1. a range through the API: the second fifth to the middle (of each input's
        # span: with several inputs, the others have nothing in it)
        for k, w in enumerate(summary(ktrace, files)):
            a0, b0 = w['start'] - base, w['end'] - base
            s = page.eval('ktl.select(%d, %d)' % (a0 + (b0 - a0) * 0.2, a0 + (b0 - a0) * 0.5))
            check_range(page, ktrace, files, name, 'ktl.select' + (' (input %d)' % (k + 1) if len(files) > 1 else ''), s)
        if len(files) == 1:
            ok(True, '%s: a range of the second input # SKIP one input' % name)
        # the whole trace: every lost-events place, the intervals still open at the end
        # (not counted)
        check_range(page, ktrace, files, name, 'ktl.select (all)', page.eval('ktl.select(0, %d)' % (span + 1)))
        # 2. a range dragged with shift held, over the CPU lanes, in a zoomed view (the
        # last input's: its first half)
        w = summary(ktrace, files)[-1]
        va, vb = w['start'] - base + (w['end'] - w['start']) * 0.1, w['start'] - base + (w['end'] - w['start']) * 0.6
        page.eval('ktl.setView(%d, %d)' % (va, vb))
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
        view_kept = abs(v['t0'] - int(va)) < 2 and abs(v['t1'] - int(vb)) < 2
        ok(near and view_kept, '%s: shift+drag selects the range under the pointer (not a pan)' % name,
           'got %s, want %s, view %s' % (s2 and (s2['from'], s2['to']), want, v))
        if s2:
            check_range(page, ktrace, files, name, 'shift+drag', s2)
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
        # (the page names events system:name, as summary does)
        want_n = int(sql(ktrace, files, "select count(*) from event where instr(case when subsystem != '' then "
                         "subsystem || ':' || name else name end, '%s') > 0" % event)[0][0])
        ok(want_n > 0 and r['records'] == want_n and not r['threads'],
           '%s: search "%s": the records of the event names that contain it (%d) are ktrace sql\'s' % (
               name, event, want_n), 'page %s, sql %d' % ({k: r[k] for k in ('records', 'events')}, want_n))
        r = page.eval('ktl.search(%s)' % json.dumps(thread))
        want_t = sorted(int(x[0]) for x in sql(ktrace, files, "select tid from thread where instr(name, '%s') > 0 "
                                                       "and tid != 0" % thread))
        want_r = int(sql(ktrace, files, "select count(*) from event e left join thread t using(utid) where "
                                        "instr(t.name, '%s') > 0 or instr(case when e.subsystem != '' then e.subsystem "
                                        "|| ':' || e.name else e.name end, '%s') > 0" % (thread, thread))[0][0])
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
        # 5. the wakeups of a thread: arrows, against ktrace sql
        check_wakeups(page, ktrace, files, name)
        if shot:
            picture(page, shot)
        page.call('Page.close')
    return 0


if __name__ == '__main__':
    sys.exit(main())
