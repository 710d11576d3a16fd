#!/usr/bin/env python3
"""Checks `ktrace timeline` pages in headless Chromium (tests/timeline/timeline.sh).

  browser.py NAME,PAGE.html[,report=REPORT.txt][,tracecmd=REPORT_T.txt][,screenshot=OUT.png]
             [,pictures][,zoom]...
  browser.py --plan CASE...     the number of result lines those cases print
  browser.py --load-time PAGE.html

Prints "ok - ..." / "not ok - ..." lines, as many for a case as its flags say (a check
that does not apply to the page is a SKIP line; --plan counts them); when Chromium
cannot be had, a SKIP line for each. The oracles are independent of the page:
`ktrace report`'s output (REPORT.txt: the sched_switch lines per CPU, every record's
line), trace-cmd's (REPORT_T.txt, `trace-cmd report -t` of the same trace: every slice
of every CPU, its start, end and thread, computed from its sched_switch lines) and the
screenshot's pixels.
"""
import argparse
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from pagecheck import ok  # noqa: E402

LABEL_W, CPU_H = 190, 30   # page.js's layout
WIDTH, HEIGHT = 1400, 900


def fmt_ts(base, rel):
    ns = base + int(round(rel))
    us = ns // 1000 + (1 if ns % 1000 >= 500 else 0)
    return '%d.%06d' % (us // 1000000, us % 1000000)


def skip(n, name, why):
    for k in range(n):
        print('ok - %s%s # SKIP %s' % (name, ' (%d of %d)' % (k + 1, n) if n > 1 else '', why))


RECORD = re.compile(r'\[(\d{3,})\]\s*(\d+)(?:\.(\d+))?: ([^:\s]+):\s?(.*)$')


def tracecmd_slices(page, name, path):
    """Every CPU lane's slices (start, end, thread) against those computed from trace-cmd
    report -t by the model's rules (docs/model.md): on each CPU a sched_switch starts a
    slice of next_pid at its time that ends at the next switch there at the latest (the
    last one at the trace's last record): earlier only where the data showed another
    thread running there (rule 3) or a lost-events gap began (rule 4); slices of one
    CPU never overlap."""
    base = int(page.eval('ktl.meta.base'))
    per_cpu, last = {}, None
    for ln in open(path, encoding='utf-8', errors='replace'):
        m = RECORD.search(ln.rstrip('\n'))
        if not m:
            continue
        ts = int(m.group(2)) if m.group(3) is None else int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, '0'))
        last = ts if last is None else max(last, ts)
        if m.group(4) == 'sched_switch':
            n = re.search(r'next_pid=(-?\d+)', m.group(5)) or re.search(r'==> .*:(-?\d+) \[-?\d+\]\s*$', m.group(5))
            if n:
                per_cpu.setdefault(int(m.group(1)), []).append((ts, int(n.group(1))))
    want = {cpu: [(ts, sw[k + 1][0] if k + 1 < len(sw) else last, pid) for k, (ts, pid) in enumerate(sw)]
            for cpu, sw in per_cpu.items()}
    got = {}
    for c, a, b, tid, _, _ in page.eval('ktl.allSlices()', timeout=120):
        got.setdefault(c, []).append((base + int(round(a)), base + int(round(b)), tid))
    diffs, cut = [], 0
    for cpu in sorted(set(want) | set(got)):
        g = got.get(cpu, [])
        by_start = {}
        for x in g:
            by_start.setdefault(x[0], []).append(x)
        for k in range(1, len(g)):
            if g[k][0] < g[k - 1][1]:
                diffs.append('CPU %d: slices %s and %s overlap' % (cpu, g[k - 1], g[k]))
                break
        for ts, end, pid in want.get(cpu, []):
            cand = [x for x in by_start.get(ts, []) if x[2] == pid]
            if not cand:
                diffs.append('CPU %d: no slice of %d from the switch at %d' % (cpu, pid, ts))
            elif cand[0][1] > end:
                diffs.append('CPU %d: the slice of %d from %d ends at %d, after the next switch at %d' % (
                    cpu, pid, ts, cand[0][1], end))
            else:
                cut += cand[0][1] < end
            if len(diffs) > 8:
                break
    ok(want and not diffs, '%s: every switch of each CPU in trace-cmd report -t starts a slice of the thread '
       'switched in, ending at the next switch at the latest (%d earlier), slices never overlap (%s)' % (
           name, cut, ', '.join('CPU %d: %d' % (c, len(v)) for c, v in sorted(want.items()))), '\n'.join(diffs))


def data_checks(page, name, report):
    meta = page.eval('ktl.meta')
    cpus = page.eval('ktl.cpus()')
    text = open(report, encoding='utf-8', errors='replace').read()
    lines = text.split('\n')
    # trace-cmd's lines: "comm-pid [CPU] secs.usecs: event: text"
    # (the report's time: seconds with microseconds, or ns with -t; the page's is made so)
    per_cpu, switches = {}, Counter()
    for ln in lines:
        m = re.search(r'\[(\d{3})\] *(\d+(?:\.\d+)?): sched_switch: ', ln)
        if m:
            per_cpu[int(m.group(1))] = per_cpu.get(int(m.group(1)), 0) + 1
            switches[(int(m.group(1)), m.group(2))] += 1
    got = {c['cpu']: c['slices'] for c in cpus}
    small = all(v < 100000 for v in per_cpu.values())
    if small:
        # the model (docs/model.md): every switch starts a slice of the thread switched
        # in; a thread seen running with no switch to it (rule 3) starts one too
        base = int(meta['base'])
        starts = Counter()
        for c in page.eval('ktl.allSlices()', timeout=120):
            starts[(c[0], str(base + int(round(c[1]))))] += 1     # (report -t, ns)
            starts[(c[0], fmt_ts(base, c[1]))] += 1
        missing = switches - starts
        ok(not missing and all(got.get(c, 0) >= n for c, n in per_cpu.items()),
           '%s: every sched_switch line of ktrace report starts a slice on its CPU at its time %s '
           '(page: %s slices)' % (name, per_cpu, got), 'no slice for %s' % sorted(missing.items())[:6])
    else:
        skip(1, '%s: every sched_switch line starts a slice' % name, '100000 or more on a CPU')
    ok(any(v > 0 for v in got.values()), '%s: the page has slices' % name, got)
    # every record's line, in order, equals the report (after its "cpus=N" line)
    # (after its "cpus=N" line, one per file with the file's label when there are several)
    head = re.match(r'(?:[^\n]*cpus=\d+\n)+', text)
    body = text[head.end():] if head else text
    n = meta['records']
    if n <= 200000:
        page_lines = page.eval('ktl.lines(0, %d).join("\\n") + "\\n"' % n, timeout=120)
        same = page_lines == body
        diff = ''
        if not same:
            a, b = page_lines.split('\n'), body.split('\n')
            for i in range(min(len(a), len(b))):
                if a[i] != b[i]:
                    diff = 'line %d:\npage:   %r\nreport: %r' % (i, a[i], b[i])
                    break
            else:
                diff = 'page %d lines, report %d' % (len(a), len(b))
        ok(same, '%s: the line of each of the %d records equals ktrace report\'s (%d literal)' % (
            name, n, meta['literal_lines']), diff)
    else:
        skip(1, '%s: the line of each record equals ktrace report\'s' % name, 'more than 200000 records')
    return meta, cpus, lines


def tooltip_check(page, name, meta, cpus, lines):
    base = int(meta['base'])
    slices = []
    for c in cpus:
        for i in range(min(c['slices'], 2000)):
            s = page.eval('ktl.slice(%d, %d)' % (c['cpu'], i))
            if s['tid'] > 0:
                slices.append((c['cpu'], s))
    if not slices:
        return ok(False, '%s: a slice to hover' % name)
    # the longest slice that a switch began (one the report has a sched_switch line of;
    # others start at the record that showed the thread running: docs/model.md, rule 3)
    slices.sort(key=lambda cs: cs[1]['start'] - cs[1]['end'])
    for cpu, s in slices:
        # the report's time: seconds with microseconds (" %5lu.%06lu"), or raw ns ("%12lu")
        us = fmt_ts(base, s['start'])
        key = re.compile(r'\[%03d\]( +%s|%12d): sched_switch: ' % (cpu, re.escape(us), base + int(round(s['start']))))
        cands = [ln for ln in lines if key.search(ln)]
        if cands:
            break
    if len(cands) != 1:
        return ok(False, '%s: the chosen slice has one sched_switch line in the report' % name,
                  '%d lines match %r' % (len(cands), key.pattern))
    w = s['end'] - s['start']
    page.eval('ktl.setView(%r, %r)' % (s['start'] - w, s['end'] + w))
    x, y = page.eval('ktl.xOf(%r)' % ((s['start'] + s['end']) / 2)), page.eval('ktl.cpuY(%d)' % cpu)
    y += page.eval('document.getElementById("ktl-canvas").getBoundingClientRect().top')
    page.mouse('mouseMoved', x, y)
    tip = page.eval('(document.querySelector("#ktl-tip .line") || {}).textContent')
    who = page.eval('(document.querySelector("#ktl-tip .who") || {}).textContent') or ''
    visible = page.eval('getComputedStyle(document.getElementById("ktl-tip")).display') == 'block'
    ok(visible and tip == cands[0], '%s: hovering the slice on CPU %d at %s shows its report line' % (
        name, cpu, fmt_ts(base, s['start'])), 'tip: %r\nreport: %r' % (tip, cands[0]))
    # the thread switched in: "next_pid=N", or the sched plugin's "==> comm:N [prio]"
    m = re.search(r'next_pid=(\d+)', cands[0]) or re.search(r'==> .*:(\d+) \[\d+\]$', cands[0])
    ok(m and ('tid %s ' % m.group(1)) in who + ' ' and 'CPU time' in who,
       '%s: the tooltip names the thread switched in (%s) and its CPU time' % (
           name, m.group(1) if m else '?'), who)
    page.key('0', 'Digit0', 48, '0')


def picture_checks(page, name, cpus, shot):
    # the pointer off the lanes: no tooltip over them
    page.mouse('mouseMoved', 5, 5)
    page.eval('document.getElementById("ktl-tip").style.display = "none"')
    png = page.screenshot()
    if shot:
        # the page's content only, for the README
        hgt = page.eval('Math.ceil(document.getElementById("ktl-detail").getBoundingClientRect().bottom)')
        small = page.call('Page.captureScreenshot', {'format': 'png', 'clip': {
            'x': 0, 'y': 0, 'width': WIDTH, 'height': min(hgt, HEIGHT), 'scale': 1}})['data']
        with open(shot, 'wb') as f:
            f.write(__import__('base64').b64decode(small))
    w, h, bpp, rows = cdp.read_png(png)
    top = page.eval('document.getElementById("ktl-canvas").getBoundingClientRect().top')
    white = (255, 255, 255)

    def px(x, y):
        r = rows[int(y)]
        return tuple(r[x * bpp:x * bpp + 3])

    ys = [page.eval('ktl.cpuY(%d)' % c['cpu']) + top for c in cpus]
    # one lane per CPU: runs of non-white pixels down a column clear of the grid
    gap_y = int(ys[0] - 8 + CPU_H - 4 + 2)
    col = next((x for x in range(LABEL_W + 2, LABEL_W + 200) if px(x, gap_y) == white), LABEL_W + 2)
    runs, inside = 0, False
    for y in range(int(ys[0] - 8), int(ys[-1] - 8 + CPU_H - 3)):
        on = px(col, y) != white
        runs += on and not inside
        inside = on
    ok(runs == len(cpus), '%s: the picture has %d CPU lanes, one per CPU' % (name, runs),
       'column %d: %d lanes for %d CPUs' % (col, runs, len(cpus)))
    coloured = {}
    for c, y in zip(cpus, ys):
        if c['slices']:
            coloured[c['cpu']] = sum(1 for x in range(LABEL_W, w - 10, 2)
                                     if px(x, y) not in (white, (246, 246, 246)))
    ok(coloured and all(coloured.values()), '%s: the lanes of the CPUs with slices are not blank '
       '(coloured columns: %s)' % (name, ', '.join('CPU %d: %d' % kv for kv in sorted(coloured.items()))))
    t = page.eval('ktl.threads()[0]')
    rgb = cdp.hsl_rgb(t['hue'], 65, 55)
    # (over the time it ran: a trace's records may reach far beyond its scheduling ones)
    run = [x for x in page.eval('ktl.lane(%d)' % t['i'], timeout=60) if x[2] == 'Running']
    if run:
        page.eval('ktl.setView(%r, %r)' % (min(x[0] for x in run), max(x[1] for x in run)))
        w, h, bpp, rows = cdp.read_png(page.screenshot())
    near = lambda p: all(abs(a - b) <= 4 for a, b in zip(p, rgb))
    in_cpus = sum(1 for y in ys for x in range(LABEL_W, w - 10) if near(px(x, y)))
    ty = page.eval('ktl.threadY(%d)' % t['tid']) + top
    in_lane = sum(1 for x in range(LABEL_W, w - 10) if near(px(x, ty)))
    ok(in_cpus > 0 and in_lane > 0,
       '%s: the thread with most CPU time (%s-%d) shows in its colour rgb%s on the CPU lanes (%d px) '
       'and its own lane (%d px)' % (name, t['comm'], t['tid'], rgb, in_cpus, in_lane))
    page.key('0', 'Digit0', 48, '0')


def zoom_checks(page, name):
    top = page.eval('document.getElementById("ktl-canvas").getBoundingClientRect().top')
    y = page.eval('ktl.cpuY(ktl.cpus()[0].cpu)') + top
    page.key('0', 'Digit0', 48, '0')
    v0 = page.eval('ktl.view()')
    w0 = v0['t1'] - v0['t0']
    x = page.eval('ktl.xOf(%r)' % (v0['t0'] + 0.25 * w0))
    t_at = v0['t0'] + 0.25 * w0
    page.mouse('mouseWheel', x, y, delta_y=-400)
    v = page.eval('ktl.view()')
    w = v['t1'] - v['t0']
    want = w0 * 1.0015 ** -400
    at = v['t0'] + (x - LABEL_W) / (page.eval('ktl.xOf(1) - ktl.xOf(0)') or 1)
    ok(abs(w - want) < want * 0.01 and abs(at - t_at) < w * 0.01,
       '%s: the wheel zooms in around the pointer (window %.0f -> %.0f ns, asked %.0f)' % (name, w0, w, want),
       'view %s' % v)
    page.key('+', 'Equal', 187, '+')
    v2 = page.eval('ktl.view()')
    ok(abs((v2['t1'] - v2['t0']) - w / 2) < w * 0.01, '%s: + halves the window' % name, v2)
    w2 = v2['t1'] - v2['t0']
    page.key('ArrowRight', 'ArrowRight', 39)
    v3 = page.eval('ktl.view()')
    ok(abs((v3['t0'] - v2['t0']) - 0.2 * w2) < w2 * 0.01 and abs((v3['t1'] - v3['t0']) - w2) < w2 * 0.01,
       '%s: the right arrow pans a fifth of the window' % name, v3)
    # drag 100 pixels to the left: the window moves 100 pixels' worth to the right
    per_px = page.eval('1 / (ktl.xOf(1) - ktl.xOf(0))')
    page.mouse('mousePressed', 700, y, 'left', 1)
    for xx in (680, 650, 620, 600):
        page.mouse('mouseMoved', xx, y, 'left', 1)
    page.mouse('mouseReleased', 600, y, 'left', 0)
    v4 = page.eval('ktl.view()')
    ok(abs((v4['t0'] - v3['t0']) - 100 * per_px) < 2 * per_px, '%s: dragging pans with the pointer' % name,
       'moved %.0f ns, asked %.0f' % (v4['t0'] - v3['t0'], 100 * per_px))
    page.key('-', 'Minus', 189, '-')
    v5 = page.eval('ktl.view()')
    ok(abs((v5['t1'] - v5['t0']) - 2 * w2) < w2 * 0.02, '%s: - doubles the window' % name, v5)
    page.key('0', 'Digit0', 48, '0')
    v6 = page.eval('ktl.view()')
    ok(v6['t0'] == 0 and v6['t1'] == page.eval('Math.max(ktl.meta.span, 1)'), '%s: 0 shows everything' % name, v6)
    shown = page.eval('ktl.shownThreads()')
    more = page.eval('ktl.threads().length')
    if more > shown:
        page.eval('document.getElementById("ktl-more").click()')
        ok(page.eval('ktl.shownThreads()') == more, '%s: "more" shows all %d threads' % (name, more))
        page.eval('document.getElementById("ktl-more").click()')
    else:
        print('ok - %s: "more" shows all threads # SKIP all %d threads already shown' % (name, more))


def check_page(b, a):
    # no_stream: a browser without DecompressionStream nor Uint8Array.fromBase64 (the
    # page inflates by itself, decodes base64 with atob)
    page = b.open('file://' + os.path.abspath(a.html), WIDTH, HEIGHT, timeout=120,
                  before='delete window.DecompressionStream; delete Uint8Array.fromBase64;'
                  if a.no_stream else None)
    if a.no_stream:
        ok(page.eval('typeof DecompressionStream + typeof Uint8Array.fromBase64') == 'undefinedundefined',
           '%s: the page runs without DecompressionStream and Uint8Array.fromBase64' % a.name)
    ready = page.eval('(window.ktlLoaded || Promise.resolve(false)).then(r => !!(r && window.ktl && ktl.ready))', timeout=120)
    if not ok(ready, '%s: the page loads and draws (%.2f s)' % (a.name, page.load_seconds),
              page.eval('document.getElementById("ktl").textContent.slice(0, 300)')):
        return
    if a.damage:
        d = page.eval('ktl.meta.damage')
        shown = page.eval('(document.getElementById("ktl-damage") || {}).textContent || ""')
        ok(d and 'Damaged input' in shown and d['message'] in shown,
           '%s: the page marks the damage (%s)' % (a.name, d and d['message']), shown)
    if a.lost:
        cp = page.eval('ktl.cpus()')
        ok(sum(c['lost'] for c in cp) > 0 and page.eval('ktl.meta.lost') > 0,
           '%s: lost events are marked (%d marks, %d events)' % (
               a.name, sum(c['lost'] for c in cp), page.eval('ktl.meta.lost')))
        # the count a mark shows is its report line's
        bad = []
        for c in cp:
            for k in page.eval('ktl.lostMarks(%d, 20)' % c['cpu']):
                m = re.search(r'\[(\d+) EVENTS DROPPED\]', page.eval('ktl.line(%d)' % k))
                if page.eval('ktl.lostCount(%d)' % k) != (int(m.group(1)) if m else 0):
                    bad.append(k)
        ok(not bad, '%s: the count of each lost mark is its line\'s' % a.name, bad)
    if a.threads_only:
        th = page.eval('ktl.threads()')
        ok(len(th) > 0 and page.eval('ktl.shownThreads()') > 0 and not page.eval('ktl.cpus()').__len__(),
           '%s: one lane per thread (%d threads), no CPU lanes' % (a.name, len(th)))
    cpus = page.eval('ktl.cpus()')
    if a.report:
        meta, cpus, lines = data_checks(page, a.name, a.report)
        if any(c['slices'] for c in cpus):
            tooltip_check(page, a.name, meta, cpus, lines)
        else:
            skip(2, '%s: the tooltip of a slice' % a.name, 'no slice')
    if a.tracecmd:
        tracecmd_slices(page, a.name, a.tracecmd)
    if a.pictures:
        if any(c['slices'] for c in cpus):
            picture_checks(page, a.name, cpus, a.screenshot)
        else:
            skip(3, '%s: the picture' % a.name, 'no slice')
    if a.zoom:
        zoom_checks(page, a.name)
    page.call('Page.close')


def planned(a):
    """The result lines check_page prints for case a (when the page loads)."""
    return (1 + bool(a.no_stream) + bool(a.damage) + 2 * bool(a.lost) + bool(a.threads_only) +
            5 * bool(a.report) + bool(a.tracecmd) + 3 * bool(a.pictures) + 7 * bool(a.zoom))


def parse_case(text):
    """NAME,HTML[,key=value|flag...]: report=FILE screenshot=FILE pictures zoom damage lost
    threads_only no_stream"""
    f = text.split(',')
    a = argparse.Namespace(name=f[0], html=f[1], report=None, tracecmd=None, screenshot=None,
                           pictures=False, zoom=False, damage=False, lost=False, threads_only=False,
                           no_stream=False)
    for x in f[2:]:
        k, _, v = x.partition('=')
        setattr(a, k, v if v else True)
    return a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--load-time', help='print the load time of this page only')
    ap.add_argument('--plan', action='store_true', help='print the number of result lines the cases make')
    ap.add_argument('cases', nargs='*', help='NAME,HTML[,report=FILE,screenshot=FILE,pictures,zoom,...]')
    a = ap.parse_args()
    if a.plan:
        print(sum(planned(parse_case(c)) for c in a.cases))
        return
    try:
        b = cdp.Browser()
    except cdp.NoBrowser as e:
        for c in a.cases or ['page']:
            skip(planned(parse_case(c)) if a.cases else 1, '%s: the page in Chromium' % c.split(',')[0], e)
        return
    with b:
        if a.load_time:
            page = b.open('file://' + os.path.abspath(a.load_time), WIDTH, HEIGHT, timeout=300)
            page.eval('window.ktlLoaded', timeout=300)
            # drawn: the script has drawn the picture; first frame: the next frame after
            # it; every line: the line chunks after the script parsed too
            print('drawn %.3f s after navigation, first frame at %.3f s, every line at %.3f s '
                  '(load event at %.3f s); script %.3f s: %s' % (
                      page.eval('ktl.loadMs') / 1000, page.eval('ktl.paintMs') / 1000,
                      page.eval('ktl.linesMs') / 1000, page.load_seconds,
                      page.eval('ktl.scriptMs') / 1000, page.eval('JSON.stringify(ktl.timings)')))
            return
        for c in a.cases:
            check_page(b, parse_case(c))


if __name__ == '__main__':
    main()
