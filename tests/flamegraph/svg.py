#!/usr/bin/env python3
"""Checks an SVG of `ktrace flamegraph` against its folded lines (written by the same
run, each read here on its own): as XML, and in headless Chromium (tests/timeline/cdp.py)
its hover text and zoom.

    svg.py --plan            the number of checks
    svg.py SVG FOLDED        "ok"/"not ok" lines

The hover text expected for the heaviest thread is made here from the folded weights
and docs/flamegraph.md's rules: "NAME: TIME (P% of all)", TIME in ns below 1 us, else
us, ms or s with 3 decimals, P with 2.
"""
import collections
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'timeline'))
import cdp  # noqa: E402

NS = '{http://www.w3.org/2000/svg}'
PLAN = 6


def ok(cond, name, detail=''):
    print('%s - %s' % ('ok' if cond else 'not ok', name))
    if not cond and detail:
        print('#   %s' % str(detail)[:300])


def time_text(v):
    if v < 1000:
        return '%d ns' % v
    if v < 10**6:
        return '%.3f us' % (v / 1e3)
    if v < 10**9:
        return '%.3f ms' % (v / 1e6)
    return '%.3f s' % (v / 1e9)


def main():
    if sys.argv[1] == '--plan':
        print(PLAN)
        return
    svg, folded = sys.argv[1], sys.argv[2]
    roots = collections.Counter()
    for line in open(folded):
        p, v = line.rstrip('\n').rsplit(' ', 1)
        roots[p.split(';')[0]] += int(v)
    total = sum(roots.values())
    try:
        doc = ET.parse(svg).getroot()
        ok(doc.tag == NS + 'svg', 'svg: parses as XML (python3 xml.etree), root <svg>')
    except ET.ParseError as e:
        ok(False, 'svg: parses as XML (python3 xml.etree), root <svg>', e)
        doc = None
    frames = [g for g in doc.iter(NS + 'g') if g.get('class') == 'f'] if doc is not None else []
    text = open(svg).read()
    outside = [w for w in ('href', '<image', 'url(', '@import', 'http://', 'https://')
               if w in text.replace('xmlns="http://www.w3.org/2000/svg"', '')]
    depth1 = {g.find(NS + 'title').text.split('\n')[0]: int(g.get('data-w'))
              for g in frames if g.get('data-d') == '1'}
    ok(frames and not outside and all(g.find(NS + 'title') is not None and g.find(NS + 'rect') is not None
                                     for g in frames),
       'svg: %d frames, each with a title and a box; nothing outside the file' % len(frames), outside)
    # (frames under 1/20000 of the whole are not drawn)
    drawn = {k: v for k, v in roots.items() if v * 20000 >= total}
    ok(depth1 == drawn and len(drawn) > 1,
       'svg: the %d thread frames weigh what the folded lines give them' % len(drawn),
       sorted(set(depth1.items()) ^ set(drawn.items()))[:4])
    if not roots:
        cdp_skip('no frames')
        return
    name, v = roots.most_common(1)[0]
    want = '%s: %s (%.2f%% of all)' % (name, time_text(v), v * 100.0 / total)
    try:
        with cdp.Browser() as b:
            height = int(float(doc.get('height')))
            page = b.open('file://' + os.path.abspath(svg), 1200, height)
            find = ('(function(){var gs=document.querySelectorAll("g.f");for(var i=0;i<gs.length;i++)'
                    'if(gs[i].querySelector("title").textContent.split("\\n")[0]==%r)return gs[i];})()' % name)
            box = page.eval('(function(g){var r=g.querySelector("rect").getBoundingClientRect();'
                            'return [r.left,r.top,r.width,r.height];})(%s)' % find)
            x, y = box[0] + min(box[2] / 2, 20), box[1] + box[3] / 2
            page.mouse('mouseMoved', x, y)
            got = page.eval('document.getElementById("details").textContent')
            ok(got == want, 'chromium: hovering the heaviest thread shows "%s"' % want, 'shows %r' % got)
            page.mouse('mousePressed', x, y, 'left', 1)
            page.mouse('mouseReleased', x, y, 'left', 0)
            w = page.eval('%s.querySelector("rect").getBoundingClientRect().width' % find)
            shown = page.eval('document.getElementById("reset").style.display')
            ok(abs(w - 1180) < 2 and shown == '', 'chromium: a click zooms the frame to the whole width',
               'width %s, reset %r' % (w, shown))
            page.eval('document.getElementById("reset").dispatchEvent(new MouseEvent("click", {bubbles: true}))')
            w2 = page.eval('%s.querySelector("rect").getBoundingClientRect().width' % find)
            ok(abs(w2 - box[2]) < 1, 'chromium: "Reset zoom" gives the frame its width back',
               'width %s, was %s' % (w2, box[2]))
    except cdp.NoBrowser as e:
        cdp_skip(str(e))


def cdp_skip(why):
    for n in ('hover', 'zoom', 'reset'):
        print('ok - chromium: %s # SKIP %s' % (n, why))


main()
