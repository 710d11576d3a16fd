"""Headless Chromium driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4), and a small
PNG reader for checking screenshots. Standard library only.

    with Browser() as b:              # raises NoBrowser when chromium cannot start
        page = b.open('file:///tmp/x.html', 1400, 900)
        page.eval('1 + 1')            # -> 2
        page.mouse('mouseMoved', 300, 120)
        png = page.screenshot()       # bytes
"""
import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--hide-scrollbars', '--mute-audio', '--remote-debugging-pipe']


class NoBrowser(Exception):
    pass


def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, timeout=60):
        self.exe = find_chromium()
        if not self.exe:
            raise NoBrowser('no chromium (Debian package chromium)')
        self.timeout = timeout
        self.dir = tempfile.mkdtemp(prefix='ktrace-chromium.')
        to_r, to_w = os.pipe()      # our commands -> chromium's fd 3
        from_r, from_w = os.pipe()  # chromium's fd 4 -> our replies
        # the child's ends away from 3 and 4 first (dup2 onto the same fd would keep
        # close-on-exec, and one end could sit where the other must go)
        hi_r = fcntl.fcntl(to_r, fcntl.F_DUPFD_CLOEXEC, 10)
        hi_w = fcntl.fcntl(from_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_r)
        os.close(from_w)
        to_r, from_w = hi_r, hi_w

        def child_fds():
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen([self.exe] + FLAGS + ['--user-data-dir=' + self.dir, 'about:blank'],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=child_fds, close_fds=False)
        os.close(to_r)
        os.close(from_w)
        self.w, self.r = to_w, from_r
        self.buf = b''
        self.next_id = 0
        self.events = []
        try:
            self.call('Browser.getVersion')
        except Exception as e:
            self.close()
            raise NoBrowser('chromium did not answer: %s' % e)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def close(self):
        if self.proc:
            try:
                os.write(self.w, json.dumps({'id': 999999, 'method': 'Browser.close'}).encode() + b'\0')
            except OSError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
            for fd in (self.w, self.r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.dir, ignore_errors=True)

    def _read_message(self, deadline):
        while b'\0' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('no answer from chromium')
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise EOFError('chromium closed the pipe')
                self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=None):
        self.next_id += 1
        mid = self.next_id
        m = {'id': mid, 'method': method, 'params': params or {}}
        if session:
            m['sessionId'] = session
        os.write(self.w, json.dumps(m).encode() + b'\0')
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            msg = self._read_message(deadline)
            if msg.get('id') == mid:
                if 'error' in msg:
                    raise RuntimeError('%s: %s' % (method, msg['error'].get('message')))
                return msg.get('result', {})
            if 'method' in msg:
                self.events.append(msg)

    def wait_event(self, method, session, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e.get('method') == method and e.get('sessionId') == session:
                    del self.events[i]
                    return e
            msg = self._read_message(deadline)
            if 'method' in msg:
                self.events.append(msg)

    def open(self, url, width, height, timeout=None, before=None):
        """before: a script run in the page before its own (Page.addScriptToEvaluateOnNewDocument)"""
        t = self.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        s = self.call('Target.attachToTarget', {'targetId': t, 'flatten': True})['sessionId']
        page = Page(self, s)
        page.call('Page.enable')
        if before:
            page.call('Page.addScriptToEvaluateOnNewDocument', {'source': before})
        page.call('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False})
        t0 = time.monotonic()
        page.call('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired', s, timeout)
        page.load_seconds = time.monotonic() - t0
        return page


class Page:
    def __init__(self, browser, session):
        self.b = browser
        self.s = session

    def call(self, method, params=None, timeout=None):
        return self.b.call(method, params, self.s, timeout)

    def eval(self, expr, timeout=None):
        r = self.call('Runtime.evaluate', {'expression': expr, 'returnByValue': True,
                                           'awaitPromise': True}, timeout)
        if 'exceptionDetails' in r:
            d = r['exceptionDetails']
            raise RuntimeError('page: %s' % (d.get('exception', {}).get('description') or d.get('text')))
        return r['result'].get('value')

    def mouse(self, kind, x, y, button='none', buttons=0, delta_y=0):
        p = {'type': kind, 'x': x, 'y': y, 'button': button, 'buttons': buttons}
        if kind == 'mousePressed' or kind == 'mouseReleased':
            p['clickCount'] = 1
        if kind == 'mouseWheel':
            p['deltaX'] = 0
            p['deltaY'] = delta_y
        self.call('Input.dispatchMouseEvent', p)

    def key(self, key, code, keycode, text=None):
        d = {'type': 'keyDown', 'key': key, 'code': code, 'windowsVirtualKeyCode': keycode}
        if text:
            d['text'] = text
        self.call('Input.dispatchKeyEvent', d)
        self.call('Input.dispatchKeyEvent', {'type': 'keyUp', 'key': key, 'code': code,
                                             'windowsVirtualKeyCode': keycode})

    def screenshot(self):
        return base64.b64decode(self.call('Page.captureScreenshot', {'format': 'png'})['data'])


def read_png(data):
    """(width, height, rows): rows[y] is a bytes object of RGB(A) pixels (8-bit truecolour
    PNGs, as Chromium writes them)."""
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, w = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError('PNG type %d/%d not handled' % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def hsl_rgb(h, s, l):
    """CSS hsl() to 0..255 RGB."""
    s /= 100.0
    l /= 100.0
    c = (1 - abs(2 * l - 1)) * s
    x = c * (1 - abs((h / 60.0) % 2 - 1))
    m = l - c / 2
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(h // 60) % 6]
    return tuple(int(round((v + m) * 255)) for v in (r, g, b))
