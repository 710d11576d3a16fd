#!/usr/bin/env python3
"""The lanes of a `ktrace timeline` page and SVG against the engine's model as `ktrace
sql` gives it for the same inputs (issue 32: the timeline had a model of its own, and
its lanes said "running" where the CPU lanes and sched_slice said otherwise).

  lanes.py --plan
  lanes.py NAME PAGE.html PAGE.svg KTRACE FILE...

The page is read as it decodes itself, in headless Chromium (window.ktl): every
interval of every thread lane and every slice of every CPU lane. Checks:
  - every Running stretch a thread lane draws is a sched_slice row of that thread (same
    input, tid, start, duration, CPU; open ones dur -1), and every row of a thread
    other than the idle one is one: the lanes draw running where sched_slice has a row,
    nowhere else;
  - the CPU lanes' slices are the sched_slice rows (the idle thread's too);
  - the unknown stretches (drawn hatched) are the "?" rows of thread_state, and the
    other stretches are its other rows, state for state;
  - the trace has lost events and unknown stretches (else the test proves little);
  - in the picture, the longest unknown stretch of a lane shown is hatched grey, never
    the thread's colour, and the longest Running one is the colour;
  - the tooltip of the longest Running stretch says "running on CPU n" and its
    duration, that of an unknown one "unknown (missing data)";
  - the SVG: each thread lane's bins drawn running overlap a sched_slice row of that
    thread, and those drawn unknown a "?" row (the bins' times from the SVG's
    data-origin and data-binw).
Prints "ok - ..." / "not ok - ..." lines; SKIP lines when Chromium cannot be had.
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from pagecheck import fmt_dur, ok, sql  # noqa: E402

NCHECKS = 8


def diff(name, a, b):
    """Multisets a (page) and b (sql): a few of each side's extras."""
    pa, pb = a - b, b - a
    return '%s: page only %s; sql only %s' % (name, sorted(pa.items())[:4], sorted(pb.items())[:4])


def sec(ns):
    """--from/--to: seconds with microseconds (rounded down: the window holds the row)."""
    us = max(0, ns) // 1000
    return '%d.%06d' % (us // 1000000, us % 1000000)


def svg_bins(svg, by_thread, ends):
    """The bins of an SVG's thread lanes drawn running and unknown, and those with no row
    of that thread under them."""
    root = ET.parse(svg).getroot()
    ns = '{http://www.w3.org/2000/svg}'
    origin, binw = int(root.get('data-origin')), int(root.get('data-binw'))
    nbins = int(root.get('data-bins'))
    label_w, plot_w = 200, 1200                    # timeline_svg.c's layout
    bad, nrun, nunk = [], 0, 0
    for g in root.iter(ns + 'g'):
        if g.get('class') != 'thread':
            continue
        tid, inpt = int(g.get('data-tid')), int(g.get('data-input'))
        for r in g.iter(ns + 'rect'):
            cls = r.get('class')
            if cls not in ('run', 'unk'):
                continue
            i = round((float(r.get('x')) - label_w) * nbins / plot_w)
            b0, b1 = origin + i * binw, origin + (i + 1) * binw
            ivs = by_thread.get((cls, inpt, tid), [])
            hit = any(ts < b1 and (ends[inpt] if dur < 0 else ts + dur) > b0 for ts, dur in ivs)
            nrun += cls == 'run'
            nunk += cls == 'unk'
            if not hit:
                bad.append('%s: tid %d (input %d): bin %d drawn %s, no such row over it' % (
                    os.path.basename(svg), tid, inpt, i, cls))
    return nrun, nunk, bad


def main():
    if sys.argv[1] == '--plan':
        print(NCHECKS)
        return 0
    name, html, svg, ktrace, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    # the model as ktrace sql gives it: per input (trace_id, mapped by path), tid
    slices = sql(ktrace, files, 'select s.trace_id, t.tid, s.ts, s.dur, s.cpu from sched_slice s '
                 'join thread t using(utid)')
    states = sql(ktrace, files, 'select s.trace_id, t.tid, s.ts, s.dur, s.state from thread_state s '
                 'join thread t using(utid)')
    traces = sql(ktrace, files, 'select trace_id, path, lost from trace')
    try:
        b = cdp.Browser()
    except cdp.NoBrowser as e:
        for k in range(NCHECKS):
            print('ok - %s: the lanes against ktrace sql (%d of %d) # SKIP %s' % (name, k + 1, NCHECKS, e))
        return 0
    with b:
        page = b.open('file://' + os.path.abspath(html), 1400, 900, timeout=120)
        page.eval('window.ktlLoaded', timeout=120)
        meta = page.eval('ktl.meta')
        base = int(meta['base'])
        paths = [i['path'] for i in meta['inputs']]
        inp = {t[0]: paths.index(t[1]) for t in traces}
        # the page's: every thread's lane (the idle thread has none), every CPU slice
        nthr = len(meta['threads'])
        lanes = page.eval('(() => { const r = []; for (let i = 0; i < %d; i++) r.push(ktl.lane(i)); return r; })()'
                          % nthr, timeout=300)
        cpu_slices = page.eval('ktl.allSlices()', timeout=300)
        run_page, other_page, unk_page = Counter(), Counter(), Counter()
        for i, lane in enumerate(lanes):
            tid, inpt = meta['threads'][i][0], meta['threads'][i][5]
            for s, e, st, cpu, opened in lane:
                key = (inpt, tid, base + int(round(s)), -1 if opened else int(round(e - s)))
                if st == 'Running':
                    run_page[key + (cpu,)] += 1
                else:
                    other_page[key + (st,)] += 1
                    if st == '?':
                        unk_page[key] += 1
        run_sql, cpu_sql, other_sql, unk_sql = Counter(), Counter(), Counter(), Counter()
        for tr, tid, ts, dur, cpu in slices:
            key = (inp[tr], int(tid), int(ts), int(dur), int(cpu))
            cpu_sql[key] += 1
            if int(tid) != 0:
                run_sql[key] += 1
        for tr, tid, ts, dur, st in states:
            if st == 'Running':
                continue
            key = (inp[tr], int(tid), int(ts), int(dur))
            other_sql[key + (st,)] += 1
            if st == '?':
                unk_sql[key] += 1
        ok(run_sql and run_page == run_sql,
           '%s: every Running stretch of the thread lanes (%d) is a sched_slice row of its thread, and '
           'every row is one' % (name, sum(run_page.values())), diff('Running', run_page, run_sql))
        # the CPU lanes (a slice still open at the input's end: drawn to its last record)
        cpu_page = Counter()
        for c, s, e, tid, inpt, opened in cpu_slices:
            cpu_page[(inpt, tid, base + int(round(s)), -1 if opened else int(round(e - s)), c)] += 1
        ok(cpu_sql and cpu_page == cpu_sql,
           '%s: the CPU lanes\' slices (%d) are the sched_slice rows, the idle thread\'s too' % (
               name, sum(cpu_page.values())), diff('CPU slices', cpu_page, cpu_sql))
        ok(other_page == other_sql, '%s: the other stretches of the thread lanes (%d) are the other rows of '
           'thread_state, state for state' % (name, sum(other_page.values())), diff('states', other_page, other_sql))
        ok(unk_page == unk_sql, '%s: the unknown stretches the lanes draw hatched (%d) are the "?" rows of '
           'thread_state' % (name, sum(unk_page.values())), diff('unknown', unk_page, unk_sql))
        lost = sum(int(t[2] or 0) for t in traces)
        ok(lost > 0 and unk_sql and page.eval('ktl.meta.lost') > 0,
           '%s: the trace has lost events (%d) and unknown stretches (%d)' % (name, lost, sum(unk_sql.values())))
        # tooltips of a lane: the longest Running stretch (closed), an unknown one
        best, unk = None, None
        for i, lane in enumerate(lanes):
            for s, e, st, cpu, opened_ in lane:
                if st == 'Running' and not opened_ and (best is None or e - s > best[2] - best[1]):
                    best = (i, s, e, cpu)
                if st == '?' and unk is None and e > s:
                    unk = (i, s, e)
        t1 = page.eval('ktl.laneText(%d, %r)' % (best[0], (best[1] + best[2]) / 2)) if best else ''
        t2 = page.eval('ktl.laneText(%d, %r)' % (unk[0], (unk[1] + unk[2]) / 2)) if unk else ''
        ok(best and unk and ('running on CPU %d' % best[3]) in t1 and '(%s)' % fmt_dur(best[2] - best[1]) in t1 and
           'unknown (missing data)' in t2 and 'running' not in t2,
           '%s: the tooltips say "running on CPU n" and the slice\'s duration, and "unknown (missing data)"' % name,
           'running: %r\nunknown: %r' % (t1, t2))
        # the picture: an unknown stretch of a lane shown is hatched grey, not the
        # thread's colour; a Running one is the thread's colour
        shown = page.eval('ktl.threads().slice(0, ktl.meta.top)')
        pick = {}
        for t in shown:
            for s, e, st, cpu, opened_ in lanes[t['i']]:
                k = 'run' if st == 'Running' else 'unk' if st == '?' else None
                if k and (k not in pick or e - s > pick[k][2] - pick[k][1]):
                    pick[k] = (t, s, e)
        seen = {}
        for k, (t, s, e) in sorted(pick.items()):
            w = e - s
            page.eval('ktl.setView(%r, %r)' % (s + w / 4, e - w / 4))    # inside the stretch
            top = page.eval('document.getElementById("ktl-canvas").getBoundingClientRect().top')
            y = int(page.eval('ktl.threadY(%d)' % t['tid']) + top)
            x0, x1 = int(page.eval('ktl.xOf(%r)' % (s + w / 4))), int(page.eval('ktl.xOf(%r)' % (e - w / 4)))
            _, _, bpp, rows = cdp.read_png(page.screenshot())
            px = [tuple(rows[y][x * bpp:x * bpp + 3]) for x in range(x0 + 1, x1 - 1)]
            rgb = cdp.hsl_rgb(t['hue'], 65, 55)
            colour = sum(1 for p in px if all(abs(a - b) <= 4 for a, b in zip(p, rgb)))
            grey = sum(1 for p in px if p[0] == p[1] == p[2] and 0x90 <= p[0] <= 0xf0)
            seen[k] = (len(px), colour, grey, t['comm'], t['tid'])
        r, u = seen.get('run'), seen.get('unk')
        ok(r and u and r[0] and r[1] == r[0] and u[0] and u[1] == 0 and u[2] > u[0] // 2,
           '%s: in the picture a Running stretch is the thread\'s colour and an unknown one hatched grey, '
           'never the colour (pixels, colour, grey: %s)' % (name, seen))
        page.call('Page.close')
    # the SVG: the whole trace, and windows around the longest Running and "?" rows
    # (every thread lane: --top 1024), which some bins must show
    by_thread = {}
    for k in run_sql:
        by_thread.setdefault(('run', k[0], k[1]), []).append((k[2], k[3]))
    for k in unk_sql:
        by_thread.setdefault(('unk', k[0], k[1]), []).append((k[2], k[3]))
    ends = {i: base + int(x.get('end', 0)) for i, x in enumerate(meta['inputs'])}
    res = [svg_bins(svg, by_thread, ends)]
    for what, rows in (('run', run_sql), ('unk', unk_sql)):
        closed = [k for k in rows if k[3] > 0]
        if not closed:
            res.append((0, 0, ['no closed %s row for a window' % what]))
            continue
        k = max(closed, key=lambda k: k[3])
        w = svg + '.' + what + '.svg'
        subprocess.run([ktrace, 'timeline', '-q', '--top', '1024', '--from', sec(k[2] - k[3]), '--to',
                        sec(k[2] + 2 * k[3])] + files + ['-o', w], check=True)
        res.append(svg_bins(w, by_thread, ends))
    bad = res[0][2] + res[1][2] + res[2][2]
    ok(res[1][0] > 0 and res[2][1] > 0 and not bad,
       '%s: the SVG\'s thread lanes draw running only over sched_slice rows of the thread and unknown only '
       'over "?" rows (bins running, unknown: whole %s, around a long slice %s, a long "?" %s)' % (
           name, res[0][:2], res[1][:2], res[2][:2]), '\n'.join(bad[:8]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
