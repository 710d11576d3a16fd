// ktrace timeline page: reads the data blocks that lib/sinks/timeline/timeline_html.c wrote into
// this page (layout described there) and draws them on a canvas: the records as ticks and
// lost marks, the lanes of threads and CPUs as the engine's model's intervals (the state
// chunks; docs/model.md), unknown stretches (missing data) hatched. No network, no other
// file.
"use strict";
let ktlResolve;
window.ktlLoaded = new Promise(r => { ktlResolve = r; });
(async function () {
const T0 = performance.now();
const meta = JSON.parse(document.getElementById("meta").textContent);
const SWITCH = 1, LOST = 3;
// how a lane draws a state of the model (meta.states: "Running", "R", "R+", "S", "?"...)
const RUNNING = 1, RUNNABLE = 2, BLOCKED = 3, UNKNOWN = 4;
const stDraw = Uint8Array.from(meta.states || [], s => s === "Running" ? RUNNING : s === "?" ? UNKNOWN :
  s[0] === "R" ? RUNNABLE : BLOCKED);
const LABEL_W = 190, AXIS_H = 28, CPU_H = 30, THREAD_H = 15, GAP = 10;

// ---- raw inflate (RFC 1951), synchronous so that the page is drawn when it loads ----
const LBASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83,
  99, 115, 131, 163, 195, 227, 258];
const LEXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DBASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
  1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DEXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12,
  12, 13, 13];
const CLORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

function huffman(lengths, n) {
  const counts = new Uint16Array(16), offs = new Uint16Array(16), syms = new Uint16Array(n);
  for (let i = 0; i < n; i++) counts[lengths[i]]++;
  counts[0] = 0;
  for (let i = 1; i < 16; i++) offs[i] = offs[i - 1] + counts[i - 1];
  for (let i = 0; i < n; i++) if (lengths[i]) syms[offs[lengths[i]]++] = i;
  const fast = new Int32Array(1024).fill(-1);
  let code = 0, k = 0;
  for (let len = 1; len <= 15; len++) {
    for (let j = 0; j < counts[len]; j++) {
      const sym = syms[k++];
      if (len <= 10) {
        let r = 0, c = code;
        for (let b = 0; b < len; b++) { r = (r << 1) | (c & 1); c >>= 1; }
        for (let i = r; i < 1024; i += 1 << len) fast[i] = (sym << 4) | len;
      }
      code++;
    }
    code <<= 1;
  }
  return { counts, syms, fast };
}

let FIXED = null;
// One function, its state in locals (closures over them are slow in V8); n: the output's
// size when known.
function inflate(src, n) {
  let out = new Uint8Array(n || Math.max(4096, src.length * 6)), op = 0;
  let bp = 0, buf = 0, cnt = 0, last = 0;
  do {
    while (cnt < 3) { buf |= (src[bp++] | 0) << cnt; cnt += 8; }
    last = buf & 1; const type = (buf >>> 1) & 3; buf >>>= 3; cnt -= 3;
    if (type === 0) {
      const drop = cnt & 7; buf >>>= drop; cnt -= drop;
      bp -= cnt >> 3; buf = 0; cnt = 0;
      const len = src[bp] | (src[bp + 1] << 8); bp += 4;
      if (bp + len > src.length) throw new Error("corrupt data (stored block)");
      if (op + len > out.length) out = grow(out, op + len);
      out.set(src.subarray(bp, bp + len), op); op += len; bp += len;
      continue;
    }
    let lt, dt;
    if (type === 1) {
      if (!FIXED) {
        const l = new Uint8Array(288);
        l.fill(8, 0, 144); l.fill(9, 144, 256); l.fill(7, 256, 280); l.fill(8, 280, 288);
        FIXED = [huffman(l, 288), huffman(new Uint8Array(30).fill(5), 30)];
      }
      lt = FIXED[0]; dt = FIXED[1];
    } else if (type === 2) {
      while (cnt < 14) { buf |= (src[bp++] | 0) << cnt; cnt += 8; }
      const hlit = (buf & 31) + 257, hdist = ((buf >>> 5) & 31) + 1, hclen = ((buf >>> 10) & 15) + 4;
      buf >>>= 14; cnt -= 14;
      const cl = new Uint8Array(19);
      for (let i = 0; i < hclen; i++) {
        while (cnt < 3) { buf |= (src[bp++] | 0) << cnt; cnt += 8; }
        cl[CLORDER[i]] = buf & 7; buf >>>= 3; cnt -= 3;
      }
      const ct = huffman(cl, 19);
      const lens = new Uint8Array(hlit + hdist);
      for (let i = 0; i < hlit + hdist;) {
        while (cnt < 15) { buf |= (src[bp++] | 0) << cnt; cnt += 8; }
        const e = ct.fast[buf & 1023];
        if (e < 0) throw new Error("corrupt data (lengths)");
        buf >>>= e & 15; cnt -= e & 15;
        const sy = e >> 4;
        if (sy < 16) { lens[i++] = sy; continue; }
        let rep = 0, val = 0;
        while (cnt < 7) { buf |= (src[bp++] | 0) << cnt; cnt += 8; }
        if (sy === 16) { if (!i) throw new Error("corrupt data (lengths)"); val = lens[i - 1]; rep = 3 + (buf & 3); buf >>>= 2; cnt -= 2; }
        else if (sy === 17) { rep = 3 + (buf & 7); buf >>>= 3; cnt -= 3; }
        else { rep = 11 + (buf & 127); buf >>>= 7; cnt -= 7; }
        if (i + rep > hlit + hdist) throw new Error("corrupt data (lengths)");
        while (rep--) lens[i++] = val;
      }
      lt = huffman(lens.subarray(0, hlit), hlit);
      dt = huffman(lens.subarray(hlit), hdist);
    } else {
      throw new Error("corrupt data (block type)");
    }
    const lf = lt.fast, df = dt.fast;
    for (;;) {
      if (cnt < 15) { buf |= (src[bp++] | 0) << cnt; cnt += 8; if (cnt < 15) { buf |= (src[bp++] | 0) << cnt; cnt += 8; } }
      let e = lf[buf & 1023], sy;
      if (e >= 0) { sy = e >> 4; buf >>>= e & 15; cnt -= e & 15; }
      else { e = slowSym(lt, buf); sy = e >> 4; buf >>>= e & 15; cnt -= e & 15; }
      if (sy < 256) {
        if (op >= out.length) out = grow(out, op + 1);
        out[op++] = sy;
        continue;
      }
      if (sy === 256) break;
      sy -= 257;
      if (sy >= 29) throw new Error("corrupt data (length)");
      let len = LBASE[sy];
      const lx = LEXTRA[sy];
      if (lx) { while (cnt < lx) { buf |= (src[bp++] | 0) << cnt; cnt += 8; } len += buf & ((1 << lx) - 1); buf >>>= lx; cnt -= lx; }
      while (cnt < 15) { buf |= (src[bp++] | 0) << cnt; cnt += 8; }
      e = df[buf & 1023];
      if (e < 0) e = slowSym(dt, buf);
      const d = e >> 4; buf >>>= e & 15; cnt -= e & 15;
      if (d >= 30) throw new Error("corrupt data (distance)");
      let dist = DBASE[d];
      const dx = DEXTRA[d];
      if (dx) { while (cnt < dx) { buf |= (src[bp++] | 0) << cnt; cnt += 8; } dist += buf & ((1 << dx) - 1); buf >>>= dx; cnt -= dx; }
      if (dist > op) throw new Error("corrupt data (distance)");
      if (op + len > out.length) out = grow(out, op + len);
      if (dist >= len) { out.copyWithin(op, op - dist, op - dist + len); op += len; }
      else for (let i = 0; i < len; i++, op++) out[op] = out[op - dist];
    }
  } while (!last);
  return op === out.length ? out : out.subarray(0, op);
}
// a typed array with room for need elements (twice the old size at least), the old
// ones copied
function grow(a, need) {
  const b = new a.constructor(Math.max(16, a.length * 2, need));
  b.set(a);
  return b;
}
// a code longer than the fast table's 10 bits: symbol << 4 | length
function slowSym(t, buf) {
  let code = 0, first = 0, index = 0;
  for (let len = 1; len <= 15; len++) {
    code |= (buf >>> (len - 1)) & 1;
    const c = t.counts[len];
    if (code - first < c) return (t.syms[index + code - first] << 4) | len;
    index += c; first = (first + c) << 1; code <<= 1;
  }
  throw new Error("corrupt data (Huffman code)");
}

// base64 text to bytes: the browser's own decoder where it has one (a third of atob's
// time with the copy loop)
const b64bytes = typeof Uint8Array.fromBase64 === "function" ? s => Uint8Array.fromBase64(s) : s => {
  const bin = atob(s), u = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
  return u;
};
function block(id) {
  const el = document.getElementById(id);
  if (!el) return new Uint8Array(0);
  const tb = performance.now();
  try { return block2(el); } finally { INFL += performance.now() - tb; }
}
// the same, inflated by the browser where it can (the state chunks: several times the
// speed of inflate() here)
async function blockAsync(id) {
  const el = document.getElementById(id);
  if (!el) return new Uint8Array(0);
  if (el.dataset.c === "lz4" || typeof DecompressionStream !== "function") return block(id);
  const tb = performance.now();
  const n = Number(el.dataset.n) || 0;
  const ds = new DecompressionStream("deflate-raw"), w = ds.writable.getWriter();
  w.write(b64bytes(el.textContent)).catch(() => {}); w.close().catch(() => {});
  const rd = ds.readable.getReader(), out = new Uint8Array(n);
  let have = 0;
  for (;;) {
    const { done, value } = await rd.read();
    if (done) break;
    if (have + value.length > n) throw new Error("corrupt data (states)");
    out.set(value, have); have += value.length;
  }
  INFL += performance.now() - tb;
  if (have !== n) throw new Error("corrupt data (states)");
  return out;
}
function block2(el) {
  const u = b64bytes(el.textContent);
  const n = Number(el.dataset.n) || 0;
  return el.dataset.c === "lz4" ? unlz4(u, n) : inflate(u, n);
}
// An LZ4 block (timeline_encode.h) of n bytes: sequences of a token (literal count in
// its high 4 bits, match length - 4 in its low 4; 15 continues in bytes up to one below
// 255), the literals, a 2-byte little-endian offset back into the output, the match.
// The last sequence has literals only. into: a buffer to decode into when it has room
// (the column chunks share one: less fresh memory and garbage).
function unlz4(src, n, into) {
  const out = into && into.length >= n ? into.subarray(0, n) : new Uint8Array(n), end = src.length;
  let ip = 0, op = 0;
  const more = v => {
    let b;
    do {
      if (ip >= end) throw new Error("corrupt data (lz4 length)");
      b = src[ip++]; v += b;
    } while (b === 255);
    return v;
  };
  while (ip < end) {
    const tok = src[ip++];
    let lit = tok >>> 4;
    if (lit === 15) lit = more(lit);
    if (ip + lit > end || op + lit > n) throw new Error("corrupt data (lz4 literals)");
    if (lit < 16) { for (let i = 0; i < lit; i++) out[op++] = src[ip++]; }
    else { out.set(src.subarray(ip, ip + lit), op); ip += lit; op += lit; }
    if (ip === end) break;
    if (ip + 2 > end) throw new Error("corrupt data (lz4 offset)");
    const off = src[ip] | (src[ip + 1] << 8);
    ip += 2;
    let len = tok & 15;
    if (len === 15) len = more(len);
    len += 4;
    if (off === 0 || off > op || op + len > n) throw new Error("corrupt data (lz4 match)");
    if (off >= len) { out.copyWithin(op, op - off, op - off + len); op += len; }
    else for (let i = 0; i < len; i++, op++) out[op] = out[op - off];
  }
  if (op !== n) throw new Error("corrupt data (lz4 size)");
  return out;
}

// varints, arithmetic (values up to 2^53)
function reader(u8, pos) {
  return {
    p: pos,
    v() {
      let b = u8[this.p++];
      if (b < 128) return b;
      let v = b & 127, m = 128;
      for (;;) {
        b = u8[this.p++];
        v += (b & 127) * m;
        if (b < 128) return v;
        m *= 128;
      }
    },
  };
}

// ---- the records ----
// Everything is filled in one pass over the columns, into arrays sized from the counts
// the metadata gives (grown should a count fall short): a record's columns, each CPU
// lane's ticks and lost marks, each thread's ticks; then from the state chunks each
// thread's intervals and each CPU lane's slices (its Running intervals).
const N = meta.records;
const names = meta.names, threads = meta.threads, tasks = meta.tasks;
// per record: time, CPU + 1, event name, task + 1 (0: none), in the smallest arrays that
// hold them (writing fresh memory is much of the page's load time)
function smallest(max) { return max < 256 ? Uint8Array : max < 65536 ? Uint16Array : Uint32Array; }
// the time of record k is T(k): the first record's of its group of 4096 and an offset
// (Float64 for all when an offset does not fit 32 bits)
const TS_SHIFT = 12, TS_MASK = (1 << TS_SHIFT) - 1;
const tsBase = new Float64Array((N >>> TS_SHIFT) + 1), tsOff = new Uint32Array(N);
let tsWide = null;
function wideTs(k, t) {
  if (!tsWide) { tsWide = new Float64Array(N); for (let i = 0; i < k; i++) tsWide[i] = tsBase[i >>> TS_SHIFT] + tsOff[i]; }
  tsWide[k] = t;
}
function T(k) { return tsWide ? tsWide[k] : tsBase[k >>> TS_SHIFT] + tsOff[k]; }
const rcpu = new (smallest(meta.cpus.reduce((m, c) => Math.max(m, c[0] + 1), 0)))(N),
  rev = new (smallest(names.length))(N), rtask = new (smallest(tasks.length))(N);
const span = Math.max(meta.span, 1);
const NONE = -1;
const thr = threads.map((t, i) => ({ i, tid: t[0], pid: t[1], comm: t[2], cpu_ns: t[3], nrecs: t[4],
  input: t[5] || 0, nst: 0, ivs: new Float64Array(0), ive: new Float64Array(0), ivst: new Uint8Array(0),
  ivcpu: new Int16Array(0), ticks: null }));
const cpuLanes = meta.cpus.map(c => ({ cpu: c[0], nswitch: c[1], nevents: c[2], lost: c[3],
  nrec: 0, start: new Float64Array(c[1] + 1), end: new Float64Array(c[1] + 1), thread: new Int32Array(c[1] + 1),
  open: new Uint8Array(c[1] + 1),
  nticks: 0, ticks: new Int32Array(Math.max(0, c[2] - c[1])), nlost: 0, lostRecs: new Int32Array(c[4]) }));
const laneOf = new Map(cpuLanes.map(l => [l.cpu, l]));
const maxCpu = cpuLanes.reduce((m, l) => Math.max(m, l.cpu), -1);
const laneIdx = new Int32Array(maxCpu + 2).fill(-1);
cpuLanes.forEach((l, i) => { laneIdx[l.cpu] = i; });
const clsOf = Uint8Array.from(names.map(n => n[1]));
// an event name as ktrace summary and `ktrace sql` say it ("sched:sched_switch"), and its
// input (the metadata's names are per input and system)
const evName = names.map(n => n[2] ? n[2] + ":" + n[0] : n[0]);
const evInput = Int32Array.from(names, n => n[3] || 0);
const isWake = Uint8Array.from(names, n => /^(sched_waking|sched_wakeup|sched_wakeup_new|MACH_MAKE_RUNNABLE)$/.test(n[0]) ? 1 : 0);
const threadOfTask = Int32Array.from(tasks.map(t => t[0]));
function idle(th) { return th === NONE || thr[th].tid === 0; }
function addSlice(l, t, e, th, open) {
  const n = l.nrec;
  if (n === l.start.length) { l.start = grow(l.start, n + 1); l.end = grow(l.end, n + 1); l.thread = grow(l.thread, n + 1); l.open = grow(l.open, n + 1); }
  l.start[n] = t; l.end[n] = e; l.thread[n] = th; l.open[n] = open; l.nrec = n + 1;
}
// the count of each lost-events record (its arguments column), by record
const lostN = new Map();
function addLost(l, k) {
  if (l.nlost === l.lostRecs.length) l.lostRecs = grow(l.lostRecs, l.nlost + 1);
  l.lostRecs[l.nlost++] = k;
}
// thread lanes: CPU time, then records; the idle thread and silent threads left out
// (the metadata has both: known before the records are read)
const order = thr.filter(x => x.tid !== 0 && (x.cpu_ns > 0 || x.nrecs > 0))
  .sort((a, b) => b.cpu_ns - a.cpu_ns || b.nrecs - a.nrecs || a.tid - b.tid);
// the ticks of the lanes shown first are gathered while the records are read (the
// others' when "more" shows them: ensureTicks)
const firstShown = order.slice(0, meta.top);
const topOfTask = new Int32Array(tasks.length).fill(-1);
{
  const slot = new Int32Array(thr.length).fill(-1);
  firstShown.forEach((x, i) => { slot[x.i] = i; x.nticks = 0; x.ticks = new Int32Array(Math.max(0, Math.min(N, x.nrecs | 0))); });
  tasks.forEach((t, i) => { topOfTask[i] = t[0] >= 0 && t[0] < thr.length ? slot[t[0]] : -1; });
}
const TM = { start: performance.now() - T0 };
let INFL = 0;
// One column chunk (layout in timeline_html.c) from u[p]: its records from k on, after
// time t; returns the time of its last record.
let K = 0;
function decodeChunk(u, p, k, t) {
  let b, v, m;
  const head = [];
  for (let i = 0; i < 6; i++) {
    b = u[p++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
    head.push(v);
  }
  const n = Math.min(head[0], N - k);
  let p0 = p, p1 = p0 + head[1], p2 = p1 + head[2], p3 = p2 + head[3], p4 = p3 + head[4];
  let tb = k & TS_MASK ? tsBase[k >>> TS_SHIFT] : t;
  for (let i = 0; i < n; i++, k++) {
    // the five columns, varints inline (almost every value fits one byte)
    b = u[p0++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p0++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
    t += v;
    b = u[p1++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p1++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
    const cpu = v - 1;
    b = u[p2++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p2++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
    const ev = v;
    b = u[p3++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p3++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
    const task = v - 1;
    if (!(k & TS_MASK)) { tb = t; tsBase[k >>> TS_SHIFT] = t; }
    if (t - tb < 4294967296 && !tsWide) tsOff[k] = t - tb; else wideTs(k, t);
    rcpu[k] = cpu + 1; rev[k] = ev; rtask[k] = task + 1;
    const cls = clsOf[ev], li = cpu >= 0 && cpu <= maxCpu ? laneIdx[cpu] : -1;
    if (cls === SWITCH) continue;
    if (cls === LOST) {
      b = u[p4++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p4++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      lostN.set(k, v);
      if (li >= 0) addLost(cpuLanes[li], k);
      continue;
    }
    if (li >= 0) {
      const l = cpuLanes[li];
      if (l.nticks === l.ticks.length) l.ticks = grow(l.ticks, l.nticks + 1);
      l.ticks[l.nticks++] = k;
    }
    if (task >= 0) {
      const si = topOfTask[task];
      if (si >= 0) {
        const x = firstShown[si];
        if (x.nticks === x.ticks.length) x.ticks = grow(x.ticks, x.nticks + 1);
        x.ticks[x.nticks++] = k;
      }
    }
  }
  K = k;
  return t;
}
await (async function decode() {
  // the column chunks: LZ4 blocks each (data-c="lz4"), else parts of one deflate
  // stream, each of the sizes their tags give
  const parts = [], sizes = [];
  let total = 0, outLen = 0, lz4 = false;
  for (let c = 0; c < meta.echunks; c++) {
    const el = document.getElementById("e" + c), u = b64bytes(el.textContent);
    parts.push(u); total += u.length; sizes.push(Number(el.dataset.n) || 0); outLen += sizes[c];
    lz4 = el.dataset.c === "lz4";
  }
  if (lz4) {
    const ti = performance.now();
    let t = 0;
    const into = new Uint8Array(Math.max(0, ...sizes));
    for (let c = 0; c < meta.echunks - 1; c++) t = decodeChunk(unlz4(parts[c], sizes[c], into), 0, K, t);
    INFL = performance.now() - ti;
    return;
  }
  const all = new Uint8Array(total);
  total = 0;
  for (const u of parts) { all.set(u, total); total += u.length; }
  const ti = performance.now();
  let t = 0, c = 0;
  if (typeof DecompressionStream === "function") {
    // the browser's inflate, each chunk decoded as soon as it is out, in one buffer the
    // size of the biggest chunk (not one for the whole stream)
    const ds = new DecompressionStream("deflate-raw"), w = ds.writable.getWriter();
    w.write(all).catch(() => {}); w.close().catch(() => {});
    const rd = ds.readable.getReader();
    let buf = new Uint8Array(Math.max(65536, ...sizes)), have = 0;
    for (;;) {
      const { done, value } = await rd.read();
      if (done) break;
      if (have + value.length > buf.length) buf = grow(buf, have + value.length);
      buf.set(value, have); have += value.length;
      let at = 0;
      while (c < meta.echunks - 1 && have - at >= sizes[c] && sizes[c] > 0) {
        t = decodeChunk(buf, at, K, t);
        at += sizes[c++];
      }
      if (at) { buf.copyWithin(0, at, have); have -= at; }
    }
  } else {
    const u = inflate(all, outLen);
    for (let at = 0; c < meta.echunks - 1 && at < u.length; at += sizes[c++]) t = decodeChunk(u, at, K, t);
  }
  INFL = performance.now() - ti;
  if (c < meta.echunks - 1) throw new Error("corrupt data (columns)");
})();
TM.decode = performance.now() - T0; TM.inflate = INFL;
// The model's intervals (state chunks, timeline_html.c): each thread's, in the order they
// end (so each thread's and each CPU's in time order); the Running ones are the CPU
// lanes' slices. One still open at the input's end is drawn to the input's end (its
// last event: meta.inputs[i].end; the thread ran until then), and openIv marks it.
const openIv = new Set();
const inEnd = meta.inputs.map(i => i.end || 0);
await (async function decodeStates() {
  const RUN = meta.states ? meta.states.indexOf("Running") : -1;
  // the state chunks' threads are the model thread's: smap gives the page's
  const smap = Int32Array.from(meta.smap || []);
  for (const th of smap) if (th < 0 || th >= thr.length) throw new Error("corrupt data (states)");
  const prevEnd = new Float64Array(smap.length);   // each thread's last closed interval's end
  const chunks = [];
  // first the intervals per thread (their arrays made once, of their size)
  const count = new Int32Array(thr.length);
  for (let c = 0; c < (meta.schunks || 0); c++) {
    const u = await blockAsync("s" + c);
    let p = 0, b, v, m;
    const len = [];
    for (let i = 0; i < 6; i++) {
      b = u[p++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      len.push(v);
    }
    const n = len[0];
    if (p + len[1] + len[2] + len[3] + len[4] + len[5] !== u.length) throw new Error("corrupt data (states)");
    let p0 = p;
    for (let i = 0; i < n; i++) {
      b = u[p0++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p0++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      if (v < 1 || v > smap.length) throw new Error("corrupt data (states)");
      count[smap[v - 1]]++;
    }
    chunks.push({ u, p, n, len });
  }
  for (const x of thr) {
    const k = x.tid === 0 ? 0 : count[x.i];
    x.ivs = new Float64Array(k); x.ive = new Float64Array(k); x.ivst = new Uint8Array(k); x.ivcpu = new Int16Array(k);
  }
  let t = 0;
  for (const { u, p, n, len } of chunks) {
    let b, v, m;
    let p0 = p, p1 = p0 + len[1], p2 = p1 + len[2], p3 = p2 + len[3], p4 = p3 + len[4];
    for (let i = 0; i < n; i++) {
      // the five columns, varints inline
      b = u[p0++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p0++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      const sth = v - 1, th = smap[sth];
      b = u[p1++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p1++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      const st = v;
      b = u[p2++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p2++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      const cpu = v - 1;
      b = u[p3++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p3++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      t += v % 2 ? -(v + 1) / 2 : v / 2;       // the end (the start when still open)
      b = u[p4++]; if (b < 128) v = b; else { v = b & 127; m = 128; for (;;) { b = u[p4++]; v += (b & 127) * m; if (b < 128) break; m *= 128; } }
      const d1 = v;
      let s0 = t;
      if (d1) { s0 = prevEnd[sth] + (d1 % 2 ? (d1 - 1) / 2 : -d1 / 2); prevEnd[sth] = t; }
      const x = thr[th];
      const e = d1 ? t : Math.max(inEnd[x.input] || 0, s0);
      if (st === RUN) {
        const li = cpu >= 0 && cpu <= maxCpu ? laneIdx[cpu] : -1;
        if (li >= 0) addSlice(cpuLanes[li], s0, e, th, d1 ? 0 : 1);
      }
      if (x.tid === 0) continue;    // the idle thread: slices, no lane
      const k = x.nst++;
      if (!d1) openIv.add(th + ":" + k);
      x.ivs[k] = s0; x.ive[k] = e; x.ivst[k] = st; x.ivcpu[k] = cpu;
    }
  }
})();
TM.states = performance.now() - T0;
(function finishLanes() {
  for (const l of cpuLanes) {
    let n = l.nrec;
    l.start = l.start.subarray(0, n); l.end = l.end.subarray(0, n); l.thread = l.thread.subarray(0, n);
    l.open = l.open.subarray(0, n);
    l.ticks = l.ticks.subarray(0, l.nticks); l.lostRecs = l.lostRecs.subarray(0, l.nlost);
    // several inputs share CPU numbers: their slices in one lane, in time order
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = l.start[i - 1] <= l.start[i];
    if (!sorted) {
      const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => l.start[a] - l.start[b]);
      l.start = Float64Array.from(idx, i => l.start[i]); l.end = Float64Array.from(idx, i => l.end[i]);
      l.thread = Int32Array.from(idx, i => l.thread[i]); l.open = Uint8Array.from(idx, i => l.open[i]);
    }
    l.rec = new Int32Array(n).fill(-2);   // the record each slice starts at, found when asked
  }
  for (const x of thr) {
    x.ivs = x.ivs.subarray(0, x.nst); x.ive = x.ive.subarray(0, x.nst); x.ivst = x.ivst.subarray(0, x.nst);
    x.ivcpu = x.ivcpu.subarray(0, x.nst);
  }
  for (const x of firstShown) x.ticks = x.ticks.subarray(0, x.nticks);
})();
// The model's wakeup latencies (wakeup chunks, timeline_html.c), in the order they end:
// the thread woken (wTh), its waker (wBy, NONE unknown), the wakeup's time (wTs), the
// wait (wDur) and the CPU it was switched in on (wCpu), the last three from the
// thread's intervals. Per thread when first asked.
const NW = meta.wakeups || 0;
const wTh = new Int32Array(NW), wBy = new Int32Array(NW), wCpu = new Int16Array(NW);
const wTs = new Float64Array(NW), wDur = new Float64Array(NW);
await (async function decodeWakeups() {
  const smap = meta.smap || [];
  let n = 0, t = 0;
  for (let c = 0; c < (meta.wchunks || 0); c++) {
    const u = await blockAsync("w" + c), r = reader(u, 0);
    const cnt = r.v(), len = [r.v(), r.v(), r.v()];
    if (r.p + len[0] + len[1] + len[2] !== u.length || n + cnt > NW) throw new Error("corrupt data (wakeups)");
    const c0 = reader(u, r.p), c1 = reader(u, r.p + len[0]), c2 = reader(u, r.p + len[0] + len[1]);
    for (let i = 0; i < cnt; i++, n++) {
      const th0 = c0.v() - 1, by = c1.v() - 1, d = c2.v();
      if (th0 < 0 || th0 >= smap.length || by >= smap.length) throw new Error("corrupt data (wakeups)");
      t += d % 2 ? -(d + 1) / 2 : d / 2;
      const th = smap[th0], x = thr[th];
      // the thread's Running interval that starts at the end (the switch-in), and the R
      // interval before it, which is the wait (none: a wait of 0)
      let k = lowerBound(x.ivs, t);
      while (k < x.ivs.length && x.ivs[k] === t && stDraw[x.ivst[k]] !== RUNNING) k++;
      const run = k < x.ivs.length && x.ivs[k] === t && stDraw[x.ivst[k]] === RUNNING;
      const wait = run && k > 0 && x.ive[k - 1] === t && meta.states[x.ivst[k - 1]] === "R";
      wTh[n] = th; wBy[n] = by >= 0 ? smap[by] : NONE; wCpu[n] = run ? x.ivcpu[k] : -1;
      wTs[n] = wait ? x.ivs[k - 1] : t; wDur[n] = wait ? t - x.ivs[k - 1] : 0;
    }
  }
  if (n !== NW) throw new Error("corrupt data (wakeups)");
})();
TM.wakeups = performance.now() - T0;
let wakesBy = null;
function wakesOf(th) {
  if (!wakesBy) {
    wakesBy = new Map();
    for (let j = 0; j < NW; j++) { let a = wakesBy.get(wTh[j]); if (!a) wakesBy.set(wTh[j], a = []); a.push(j); }
    for (const a of wakesBy.values()) a.sort((p, q) => wTs[p] - wTs[q]);
  }
  return wakesBy.get(th) || [];
}
// the CPU the waker woke it from: its wakeup record's (sched_waking, sched_wakeup...:
// the record at the wakeup's time of the waker, else any wakeup record then), else the
// CPU the waker was running on; -1 unknown
function wakerCpu(j) {
  const t = wTs[j], by = wBy[j];
  let any = -1, own = -1;
  for (let k = recLower(t); k < N && T(k) === t; k++) {
    const mine = by !== NONE && threadOf(k) === by;
    if (isWake[rev[k]] && mine) return rcpu[k] - 1;
    if (isWake[rev[k]] && any < 0) any = rcpu[k] - 1;
    if (mine && own < 0) own = rcpu[k] - 1;
  }
  if (any >= 0) return any;
  if (own >= 0) return own;
  if (by !== NONE) {
    const x = thr[by], i = lowerBound(x.ive, t);
    if (i < x.ivs.length && x.ivs[i] <= t && stDraw[x.ivst[i]] === RUNNING) return x.ivcpu[i];
  }
  return -1;
}
// the record a CPU's slice starts at: the first on that CPU at its start (the switch,
// or the record that showed the thread running), -1 none
function sliceRec(l, i) {
  if (l.rec[i] !== -2) return l.rec[i];
  const t = l.start[i];
  let lo = 0, hi = N;
  while (lo < hi) { const m = (lo + hi) >> 1; if (T(m) < t) lo = m + 1; else hi = m; }
  let k = -1;
  for (let j = lo; j < N && T(j) === t; j++) if (rcpu[j] - 1 === l.cpu) { k = j; if (clsOf[rev[j]] === SWITCH) break; }
  l.rec[i] = k;
  return k;
}
// the hatching of unknown stretches
let hatch = null;

let showAll = false;

function hue(tid) { return ((Math.imul(tid >>> 0, 0x9E3779B1 | 0) >>> 0) >>> 8) % 360; }
function colour(th, light) { return "hsl(" + hue(thr[th].tid) + ",65%," + (light ? 85 : 55) + "%)"; }

// ---- report lines ----
const DICTS = new Map();
const lineCache = new Map();
const enc = new TextEncoder(), dec = new TextDecoder("utf-8");
// the skeleton dictionary of the line thread that made a chunk (its data-d)
function dict(id) {
  let d = DICTS.get(id);
  if (d) return d;
  const u = block("dict" + id), r = reader(u, 0);
  d = [];
  while (r.p < u.length) { const n = r.v(); d.push(u.subarray(r.p, r.p + n)); r.p += n; }
  DICTS.set(id, d);
  return d;
}
const BASE = BigInt(meta.base);
function absTs(k) { return BASE + BigInt(Math.round(T(k))); }
function pad(s, w, left) { return s.length >= w ? s : (left ? s + " ".repeat(w - s.length) : " ".repeat(w - s.length) + s); }
function prefix(st, k) {
  const task = tasks[rtask[k] - 1];
  let comm = enc.encode(task[1]);
  const tid = String(thr[task[0]].tid), cpu = rcpu[k] - 1;
  const name = enc.encode(names[rev[k]][0]);
  const t = absTs(k);
  if (st === 3 && !comm.length) comm = enc.encode("<...>");
  const parts = [];
  const sp = n => enc.encode(" ".repeat(Math.max(0, n)));
  parts.push(sp(16 - comm.length), comm, enc.encode("-" + pad(tid, 5, true) + " ["));
  parts.push(enc.encode(cpu < 0 && st === 3 ? "---" : String(cpu).padStart(3, "0")));
  parts.push(enc.encode("]"));
  if (st === 2) {
    parts.push(enc.encode(pad(t.toString(), 12, false)));
  } else {
    const us = t / 1000n + (t % 1000n >= 500n ? 1n : 0n);
    parts.push(enc.encode(" " + pad((us / 1000000n).toString(), 5, false) + "." +
      (us % 1000000n).toString().padStart(6, "0")));
  }
  parts.push(enc.encode(": "));
  if (st === 3) {
    parts.push(name, sp(20 - name.length), enc.encode(" "));
  } else {
    parts.push(name, enc.encode(": "), sp(20 - name.length));
  }
  return parts;
}
function decodeLines(c) {
  const el = document.getElementById("l" + c);
  const u = block("l" + c), r = reader(u, 0), d = dict(el ? Number(el.dataset.d) || 0 : 0), lines = [];
  const first = c * meta.lchunk;
  // per skeleton, the last value of each of its hex holes in this chunk (high, low,
  // digits); the line's tag (its prefix style) when it is the line before's
  const prevHex = new Map();
  let sl = 0;
  for (let k = first; r.p < u.length; k++) {
    const head = r.v(), id = Math.floor(head / 2);
    if (head % 2) sl = r.v();
    const st = sl & 3, lab = sl >> 2;
    const parts = st ? prefix(st, k) : [];
    if (lab) parts.unshift(enc.encode(meta.labels[lab - 1]));
    if (!id) {
      const n = r.v(); parts.push(u.subarray(r.p, r.p + n)); r.p += n;
    } else {
      const sk = d[id - 1];
      let prev = prevHex.get(id), hx = 0;
      if (!prev) { prev = []; prevHex.set(id, prev); }
      let lit = [];
      const flush = () => { if (lit.length) { parts.push(Uint8Array.from(lit)); lit = []; } };
      for (let i = 0; i < sk.length; i++) {
        const b = sk[i];
        if (b === 1) { flush(); parts.push(enc.encode(String(r.v()))); }
        else if (b === 2) {
          flush();
          const x = r.v(), f = x % 4;
          const lo = ((x - f) / 4 ^ (prev[hx + 1] | 0)) >>> 0;
          const hi = ((f & 2 ? r.v() : 0) ^ (prev[hx] | 0)) >>> 0;
          const w = f & 1 ? r.v() : (prev[hx + 2] | 0);
          prev[hx++] = hi; prev[hx++] = lo; prev[hx++] = w;
          const s = hi ? hi.toString(16) + lo.toString(16).padStart(8, "0") : lo.toString(16);
          parts.push(enc.encode(s.padStart(w, "0")));
        } else if (b === 3) lit.push(sk[++i]);
        else lit.push(b);
      }
      flush();
    }
    let n = 0;
    for (const p of parts) n += p.length;
    const all = new Uint8Array(n);
    n = 0;
    for (const p of parts) { all.set(p, n); n += p.length; }
    lines.push(dec.decode(all));
  }
  return lines;
}
// The line chunks come after this script in the page (timeline_html.c): until the
// browser has parsed them, a line not there yet is null and describe() says so.
let linesHere = document.readyState !== "loading";
const linesReady = linesHere ? Promise.resolve() : new Promise(r => {
  document.addEventListener("DOMContentLoaded", () => { linesHere = true; TM.lines = performance.now() - T0; r(); });
});
function line(k) {
  const c = Math.floor(k / meta.lchunk);
  let lines = lineCache.get(c);
  if (!lines) {
    if (!linesHere && !document.getElementById("l" + c)) return null;
    if (lineCache.size > 64) lineCache.delete(lineCache.keys().next().value);
    lines = decodeLines(c);
    lineCache.set(c, lines);
  }
  return lines[k - c * meta.lchunk];
}

// ---- the page ----
const root = document.getElementById("ktl");
root.textContent = "";
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const a in attrs || {}) e.setAttribute(a, attrs[a]);
  if (text !== undefined) e.textContent = text;
  return e;
}
const bar = el("div", { id: "ktl-bar" });
bar.append(el("h1", {}, "ktrace timeline: " + meta.title));
const inp = meta.inputs.map(i => i.format + (i.system.trim() ? ", " + i.system.trim() : "") +
  (i.clock ? ", clock " + i.clock : "")).join("; ");
bar.append(el("span", { class: "info" }, inp + " · " + N.toLocaleString("en") + " records · " +
  cpuLanes.length + " CPUs · " + order.length + " threads" +
  (meta.lost ? " · " + meta.lost.toLocaleString("en") + " events lost" : "")));
const winEl = el("span", { id: "ktl-window" });
bar.append(winEl);
const reset = el("button", { type: "button" }, "all");
bar.append(reset);
{
  // the thread lanes' states (the engine's model, docs/model.md)
  const lg = el("span", { id: "ktl-legend" }, "threads:");
  for (const [c, t] of [["run", "running"], ["rbl", "runnable"], ["blk", "sleeping or blocked"], ["unk", "unknown (missing data)"],
    ["wake", "woken by (click a thread)"]])
    lg.append(el("i", { class: c }), t);
  bar.append(lg);
}
const findBox = el("span", { id: "ktl-find" });
const findIn = el("input", { type: "search", placeholder: "thread, pid or event", size: "18", "aria-label": "search" });
const findPrev = el("button", { type: "button", title: "previous match (shift+Enter)" }, "◀");
const findNext = el("button", { type: "button", title: "next match (Enter)" }, "▶");
const findInfo = el("span", { class: "n" });
findBox.append(findIn, findPrev, findNext, findInfo);
bar.append(findBox);
const markEl = el("span", { id: "ktl-markers" });
bar.append(markEl);
bar.append(el("span", { id: "ktl-help" }, "wheel or +/− zoom · drag or ←/→ pan · 0 all · hover or click for the record · " +
  "click a thread for its wakeups · shift+drag select a range · alt+click (or ctrl+click) a marker · Esc clears"));
root.append(bar);
if (meta.damage) {
  root.append(el("div", { id: "ktl-damage" }, "Damaged input, drawn up to the damage (red dashed line): " +
    meta.damage.message));
}
const box = el("div", { id: "ktl-canvas-box" });
const canvas = el("canvas", { id: "ktl-canvas", tabindex: "0" });
const tip = el("div", { id: "ktl-tip" });
box.append(canvas, tip);
root.append(box);
const more = el("button", { id: "ktl-more", type: "button" });
root.append(more);
const selPanel = el("div", { id: "ktl-sel" });
selPanel.style.display = "none";
root.append(selPanel);
const detail = el("div", { id: "ktl-detail" }, "Click a slice or a tick to keep its record here.");
root.append(detail);

let t0 = 0, t1 = span;
if (meta.from !== undefined || meta.to !== undefined) {
  t0 = Math.max(0, meta.from || 0); t1 = Math.min(span, meta.to !== undefined ? meta.to : span);
  if (t1 <= t0) { t0 = 0; t1 = span; }
}
let rows = [], W = 800, H = 100;
const ctx = canvas.getContext("2d");

// A thread's ticks (its records other than switches), found when its lane is first shown:
// one pass over the records for all the threads that need them.
function ensureTicks(list) {
  const want = list.filter(x => !x.ticks);
  if (!want.length) return;
  const slot = new Int32Array(thr.length).fill(-1), out = [], fill = new Int32Array(want.length);
  want.forEach((x, i) => { slot[x.i] = i; out.push(new Int32Array(Math.max(0, Math.min(N, x.nrecs | 0)))); });
  const taskSlot = Int32Array.from(tasks, t => slot[t[0]]);
  for (let k = 0; k < N; k++) {
    const tk = rtask[k];
    if (!tk) continue;
    const i = taskSlot[tk - 1];
    if (i < 0) continue;
    const cls = clsOf[rev[k]];
    if (cls === SWITCH || cls === LOST) continue;
    if (fill[i] === out[i].length) out[i] = grow(out[i], fill[i] + 1);
    out[i][fill[i]++] = k;
  }
  want.forEach((x, i) => { x.ticks = out[i].subarray(0, fill[i]); });
}
function layout() {
  rows = [];
  let y = AXIS_H;
  for (const l of cpuLanes) { rows.push({ kind: "cpu", l, y, h: CPU_H }); y += CPU_H; }
  y += GAP;
  const shown = showAll ? order.length : Math.min(order.length, meta.top);
  for (let i = 0; i < shown; i++) { rows.push({ kind: "thread", x: order[i], y, h: THREAD_H }); y += THREAD_H; }
  ensureTicks(order.slice(0, shown));
  H = y + 10;
  more.style.display = order.length > meta.top ? "" : "none";
  more.textContent = showAll ? "fewer threads" : "more: " + (order.length - meta.top) + " threads";
}
function fmtTs(rel) {
  const t = BASE + BigInt(Math.round(rel));
  const us = t / 1000n + (t % 1000n >= 500n ? 1n : 0n);
  return (us / 1000000n).toString() + "." + (us % 1000000n).toString().padStart(6, "0");
}
function fmtDur(ns) {
  if (ns >= 1e9) return (ns / 1e9).toFixed(3) + " s";
  if (ns >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
  if (ns >= 1e3) return (ns / 1e3).toFixed(1) + " µs";
  return ns + " ns";
}
function lowerBound(a, v) { let lo = 0, hi = a.length; while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] < v) lo = m + 1; else hi = m; } return lo; }
function tickLower(recs, v) { let lo = 0, hi = recs.length; while (lo < hi) { const m = (lo + hi) >> 1; if (T(recs[m]) < v) lo = m + 1; else hi = m; } return lo; }

function drawTicks(recs, y, h, pw, dt, colourOf) {
  const a = tickLower(recs, t0), b = tickLower(recs, t1 + 1);
  if (b - a <= pw / 2) {
    for (let i = a; i < b; i++) {
      const x = LABEL_W + Math.floor((T(recs[i]) - t0) / dt);
      ctx.fillStyle = colourOf ? colourOf(recs[i]) : "#222";
      ctx.fillRect(x, y, 1, h);
    }
    return;
  }
  // density strip: events per pixel column
  let i = a;
  for (let x = 0; x < pw && i < b; x++) {
    const end = t0 + (x + 1) * dt;
    const j = tickLower(recs, end);
    const n = j - i;
    if (n) {
      ctx.fillStyle = n >= 16 ? "rgba(0,0,0,.9)" : "rgba(0,0,0," + (0.25 + 0.65 * n / 16).toFixed(2) + ")";
      ctx.fillRect(LABEL_W + x, y, 1, h);
    }
    i = j;
  }
}

function draw() {
  const dpr = window.devicePixelRatio || 1;
  if (!hatch) {
    const c = document.createElement("canvas"); c.width = c.height = 6;
    const g = c.getContext("2d");
    g.fillStyle = "#eee"; g.fillRect(0, 0, 6, 6);
    g.strokeStyle = "#999"; g.lineWidth = 1.5; g.beginPath(); g.moveTo(-1, 7); g.lineTo(7, -1); g.stroke();
    hatch = ctx.createPattern(c, "repeat");
  }
  W = Math.max(400, document.documentElement.clientWidth);
  layout();
  canvas.width = W * dpr; canvas.height = H * dpr;
  canvas.style.width = W + "px"; canvas.style.height = H + "px";
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
  const pw = W - LABEL_W - 10, dt = (t1 - t0) / pw;
  // axis
  let step = 1;
  for (;;) {
    if ((t1 - t0) / step <= 10) break;
    if ((t1 - t0) / (step * 2) <= 10) { step *= 2; break; }
    if ((t1 - t0) / (step * 5) <= 10) { step *= 5; break; }
    step *= 10;
  }
  ctx.font = "11px sans-serif"; ctx.textAlign = "center";
  const baseMod = Number(BigInt(meta.base) % BigInt(step));
  for (let t = Math.ceil((t0 + baseMod) / step) * step - baseMod; t <= t1; t += step) {
    const x = LABEL_W + (t - t0) / dt;
    ctx.fillStyle = "#ddd"; ctx.fillRect(Math.round(x), AXIS_H - 6, 1, H - AXIS_H);
    ctx.fillStyle = "#333"; ctx.fillText(fmtTs(t), x, AXIS_H - 10);
  }
  ctx.textAlign = "left";
  for (const r of rows) {
    ctx.fillStyle = "#222";
    if (r.kind === "cpu") {
      const l = r.l;
      ctx.font = "12px sans-serif";
      ctx.fillText("CPU " + l.cpu, 8, r.y + 16);
      ctx.fillStyle = "#f6f6f6"; ctx.fillRect(LABEL_W, r.y, pw, CPU_H - 4);
      const n = l.start.length;
      let a = lowerBound(l.start, t0); if (a > 0) a--;
      const b = lowerBound(l.start, t1);
      if (b - a <= pw * 2) {
        for (let i = a; i < b; i++) {
          if (idle(l.thread[i]) || l.end[i] <= t0) continue;
          const x0 = Math.max(0, (l.start[i] - t0) / dt), x1 = Math.min(pw, (l.end[i] - t0) / dt);
          ctx.fillStyle = colour(l.thread[i]);
          ctx.fillRect(LABEL_W + x0, r.y + 2, Math.max(1, x1 - x0), CPU_H - 14);
        }
      } else {
        for (let x = 0; x < pw; x++) {
          const t = t0 + (x + 0.5) * dt;
          const i = lowerBound(l.start, t + 1e-9) - 1;
          if (i < 0 || i >= n || l.end[i] <= t || idle(l.thread[i])) continue;
          ctx.fillStyle = colour(l.thread[i]);
          ctx.fillRect(LABEL_W + x, r.y + 2, 1, CPU_H - 14);
        }
      }
      drawTicks(l.ticks, r.y + CPU_H - 11, 6, pw, dt);
      const la = tickLower(l.lostRecs, t0), lb = tickLower(l.lostRecs, t1 + 1);
      ctx.fillStyle = "#d00";
      for (let i = la; i < lb; i++) {
        const k = l.lostRecs[i], x = LABEL_W + (T(k) - t0) / dt;
        ctx.beginPath(); ctx.moveTo(x, r.y + 10); ctx.lineTo(x + 5, r.y); ctx.lineTo(x - 5, r.y); ctx.fill();
        if (lb - la < 40) { ctx.font = "10px sans-serif"; ctx.fillText(String(lostCount(k) || "?"), x + 6, r.y + 9); }
      }
    } else {
      const x = r.x;
      ctx.font = "11px sans-serif";
      if (found && found.thMatch[x.i]) { ctx.fillStyle = "#fd6"; ctx.fillRect(4, r.y, LABEL_W - 8, THREAD_H - 2); ctx.fillStyle = "#222"; }
      if (x.i === selTh) { ctx.fillStyle = "#e4d4f4"; ctx.fillRect(4, r.y, LABEL_W - 8, THREAD_H - 2); ctx.fillStyle = "#222"; }
      ctx.fillText(x.comm + "-" + x.tid + inputTag(x), 8, r.y + 11);
      const a0 = lowerBound(x.ive, t0), b0 = lowerBound(x.ivs, t1);
      for (let i = a0; i < b0; i++) {
        const s = x.ivst[i];
        const x0 = Math.max(0, (x.ivs[i] - t0) / dt), x1 = Math.min(pw, (x.ive[i] - t0) / dt);
        const d = stDraw[s];
        if (x1 - x0 < 0.3 && d !== RUNNING) continue;
        if (d === BLOCKED) { ctx.fillStyle = "#bbb"; ctx.fillRect(LABEL_W + x0, r.y + 5, Math.max(1, x1 - x0), 2); }
        else if (d === UNKNOWN) { ctx.fillStyle = hatch; ctx.fillRect(LABEL_W + x0, r.y, Math.max(1, x1 - x0), 12); }
        else { ctx.fillStyle = colour(x.i, d === RUNNABLE); ctx.fillRect(LABEL_W + x0, r.y, Math.max(1, x1 - x0), 12); }
      }
      // ticks below the state bar's middle, so that a thread busy with events still
      // shows its state's colour (KOFF threads, with no states, use the whole lane)
      if (x.ivs.length) drawTicks(x.ticks, r.y + 8, 4, pw, dt, () => "rgba(0,0,0,.55)");
      else drawTicks(x.ticks, r.y, 12, pw, dt, () => "rgba(0,0,0,.55)");
    }
  }
  if (meta.damage) {
    const x = LABEL_W + (meta.damage.at - t0) / dt;
    ctx.strokeStyle = "#d00"; ctx.setLineDash([4, 3]); ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(x, AXIS_H); ctx.lineTo(x, H); ctx.stroke(); ctx.setLineDash([]);
  }
  drawOverlays(pw, dt);
  winEl.textContent = fmtTs(t0) + " – " + fmtTs(t1) + " (" + fmtDur(t1 - t0) + ")";
}
function lostCount(k) { return lostN.get(k) || 0; }

function setView(a, b) {
  const minw = 100;
  if (b - a < minw) { const c = (a + b) / 2; a = c - minw / 2; b = c + minw / 2; }
  const w = Math.min(b - a, span * 1.2);
  if (a < -span * 0.1) { a = -span * 0.1; b = a + w; }
  if (b > span * 1.1) { b = span * 1.1; a = b - w; }
  t0 = a; t1 = b;
  draw();
}
function zoom(f, atX) {
  const pw = W - LABEL_W - 10;
  const fx = atX === undefined ? 0.5 : Math.min(1, Math.max(0, (atX - LABEL_W) / pw));
  const c = t0 + fx * (t1 - t0), w = (t1 - t0) * f;
  setView(c - fx * w, c - fx * w + w);
}
function pan(frac) { const w = t1 - t0; setView(t0 + frac * w, t1 + frac * w); }

// ---- what is under the pointer ----
function hit(px, py) {
  const r = rows.find(q => py >= q.y && py < q.y + q.h);
  if (!r || px < LABEL_W) return null;
  const pw = W - LABEL_W - 10, dt = (t1 - t0) / pw, t = t0 + (px - LABEL_W) * dt, tol = 3 * dt;
  const near = recs => {
    const i = tickLower(recs, t - tol);
    let best = -1, bd = Infinity;
    for (let j = i; j < recs.length && T(recs[j]) <= t + tol; j++) {
      const d = Math.abs(T(recs[j]) - t);
      if (d < bd) { bd = d; best = recs[j]; }
    }
    return best;
  };
  if (r.kind === "cpu") {
    const l = r.l, y = py - r.y;
    if (y < 12) { const k = near(l.lostRecs); if (k >= 0) return { rec: k, thread: NONE }; }
    if (y >= CPU_H - 12) { const k = near(l.ticks); if (k >= 0) return { rec: k, thread: threadOf(k) }; }
    const i = lowerBound(l.start, t + 1e-9) - 1;
    if (i >= 0 && l.end[i] > t) return { rec: sliceRec(l, i), thread: l.thread[i], slice: [l.start[i], l.end[i]] };
    const k = near(l.ticks);
    return k >= 0 ? { rec: k, thread: threadOf(k) } : null;
  }
  const k = near(r.x.ticks);
  if (k >= 0) return { rec: k, thread: r.x.i };
  const i = lowerBound(r.x.ive, t);
  if (i < r.x.ivs.length && r.x.ivs[i] <= t)
    return { rec: -1, thread: r.x.i, state: r.x.ivst[i], cpu: r.x.ivcpu[i], slice: [r.x.ivs[i], r.x.ive[i]],
      open: openIv.has(r.x.i + ":" + i) };
  return null;
}
// with several inputs a thread's lane says whose it is (each input's threads are its own)
function inputTag(x) { return meta.inputs.length > 1 ? " (" + (x.input + 1) + ")" : ""; }
// a state of the model, as the tooltip and the legend say it
function stateText(st, cpu) {
  const s = meta.states[st];
  switch (stDraw[st]) {
    case RUNNING: return "running" + (cpu >= 0 ? " on CPU " + cpu : "");
    case RUNNABLE: return "runnable (" + s + ")";
    case UNKNOWN: return "unknown (missing data)";
    default: return (s === "S" ? "sleeping" : s === "D" ? "uninterruptible" : "blocked") + " (" + s + ")";
  }
}
function threadOf(k) { return rtask[k] ? tasks[rtask[k] - 1][0] : NONE; }
function describe(h, into) {
  into.textContent = "";
  into.ktlHit = h;
  if (h.rec >= 0) {
    const text = line(h.rec);
    if (text === null) {
      into.append(el("div", { class: "line" }, "(the record's line is still being read)"));
      // shown again with its line unless the pointer has moved on since
      linesReady.then(() => { if (into.ktlHit === h && into.style.display !== "none") describe(h, into); });
    } else {
      into.append(el("div", { class: "line" }, text));
    }
  }
  let who = "";
  if (h.thread !== NONE && h.thread !== undefined) {
    const x = thr[h.thread];
    who = x.comm + " · tid " + x.tid + (x.pid >= 0 ? " · pid " + x.pid : "") + " · CPU time " + fmtDur(x.cpu_ns) +
      (meta.inputs.length > 1 ? " · " + (meta.inputs[x.input] || {}).path : "");
  }
  if (h.state !== undefined) who += (who ? " · " : "") + stateText(h.state, h.cpu);
  if (h.slice) who += (who ? " · " : "") + fmtTs(h.slice[0]) + " – " + (h.open ? "the end (still open)" :
    fmtTs(h.slice[1]) + " (" + fmtDur(h.slice[1] - h.slice[0]) + ")");
  if (who) into.append(el("div", { class: "who" }, who));
}

// ---- a selected range, markers, search ----
// All computed when asked, from what the page already holds (nothing per record at load).
let sel = null, selSum = null;          // the range [a, b) in page time, its figures
const marks = [];                       // at most two markers, page time
let found = null;                       // the last search: {text, recs, threads, at}
let selTh = NONE;                       // the selected thread (its wakeup arrows)
const RUN_ST = meta.states ? meta.states.indexOf("Running") : -1;
// the first record at or after time t (records are in time order)
function recLower(t) { let lo = 0, hi = N; while (lo < hi) { const m = (lo + hi) >>> 1; if (T(m) < t) lo = m + 1; else hi = m; } return lo; }
function absText(rel) {
  const t = BASE + BigInt(Math.round(rel));
  return (t / 1000000000n).toString() + "." + (t % 1000000000n).toString().padStart(9, "0");
}
// summary's latency histogram (docs/summary.md): a value's bucket, 1/256 of it wide at
// most (exact below 256 ns), stands for its middle
function bucketMid(v) {
  if (v < 256) return v;
  let e = 0, m = v;
  while (m >= 256) { m = Math.floor(m / 2); e++; }
  return m * 2 ** e + 2 ** (e - 1);
}
// nearest rank of sorted values, as summary gives it (its bucket's middle, at most max)
function quantile(sorted, pct) {
  const n = sorted.length, rank = Math.max(1, Math.floor((n * pct + 99) / 100));
  return Math.min(bucketMid(sorted[rank - 1]), sorted[n - 1]);
}
// The figures of [a, b), as `ktrace summary --from --to` counts them (docs/summary.md),
// one block per input as summary's: each thread's CPU time is its Running intervals
// cut to the range (one still open at the end up to the input's end, as drawn; the idle
// thread left out), threads with none left out, biggest first, then by tid; its wakeup latencies
// are the model's that start in the range (count, p50, p90, p99 as summary's histogram
// gives them, max; by p99, then max, then tid); events are the records whose time is in
// [a, b), lost events marks left out, per system and name, by count, then name.
function summarize(a, b) {
  const ins = meta.inputs.map((x, i) => ({ input: i, path: x.path, records: 0, busy_ns: 0,
    threads_by_cpu_time: [], threads_by_wakeup_latency: [], events: [] }));
  const inOf = i => ins[i] || ins[0];
  let busy = 0;
  for (const x of thr) {
    if (x.tid === 0 || !x.ivs.length) continue;
    let ns = 0;
    for (let j = lowerBound(x.ive, a); j < x.ivs.length && x.ivs[j] < b; j++) {
      if (x.ivst[j] !== RUN_ST || x.ivcpu[j] < 0) continue;
      const s0 = Math.max(a, x.ivs[j]), e0 = Math.min(b, x.ive[j]);
      if (e0 > s0) ns += e0 - s0;
    }
    if (ns > 0) { const q = inOf(x.input); q.threads_by_cpu_time.push({ tid: x.tid, pid: x.pid >= 0 ? x.pid : x.tid, name: x.comm, input: x.input, cpu_ns: ns }); q.busy_ns += ns; busy += ns; }
  }
  // wakeup latencies that start in [a, b)
  const lat = new Map();
  for (let j = 0; j < NW; j++) {
    if (wTs[j] < a || wTs[j] >= b || thr[wTh[j]].tid === 0) continue;
    let l = lat.get(wTh[j]); if (!l) lat.set(wTh[j], l = []);
    l.push(wDur[j]);
  }
  for (const [th, l] of lat) {
    const x = thr[th];
    l.sort((p, q) => p - q);
    inOf(x.input).threads_by_wakeup_latency.push({ tid: x.tid, pid: x.pid >= 0 ? x.pid : x.tid, name: x.comm, input: x.input,
      count: l.length, p50_ns: quantile(l, 50), p90_ns: quantile(l, 90), p99_ns: quantile(l, 99), max_ns: l[l.length - 1] });
  }
  const count = new Float64Array(names.length);
  const k0 = recLower(a), k1 = recLower(b);
  let nrec = 0;
  for (let k = k0; k < k1; k++) count[rev[k]]++;
  names.forEach((nm, i) => {
    if (!count[i] || clsOf[i] === LOST) return;
    const q = inOf(evInput[i]);
    q.events.push({ system: nm[2] || "", name: nm[0], count: count[i] }); q.records += count[i]; nrec += count[i];
  });
  for (const q of ins) {
    q.threads_by_cpu_time.sort((p, r) => r.cpu_ns - p.cpu_ns || p.tid - r.tid);
    q.threads_by_wakeup_latency.sort((p, r) => r.p99_ns - p.p99_ns || r.max_ns - p.max_ns || p.tid - r.tid);
    q.events.sort((p, r) => r.count - p.count || (p.name < r.name ? -1 : p.name > r.name ? 1 : 0));
  }
  return { from: a, to: b, from_ns: (BASE + BigInt(Math.round(a))).toString(), to_ns: (BASE + BigInt(Math.round(b))).toString(),
    from_s: absText(a), to_s: absText(b), dur_ns: b - a, records: nrec, busy_ns: busy, inputs: ins };
}
function select(a, b) {
  if (a === null || a === undefined) { sel = null; selSum = null; showSel(); draw(); return null; }
  const lo = Math.round(Math.min(a, b)), hi = Math.round(Math.max(a, b));
  a = lo; b = hi;
  if (b <= a) b = a + 1;
  sel = { a, b };
  selSum = summarize(a, b);
  showSel();
  draw();
  return selSum;
}
const SEL_TOP = 10;
function showSel() {
  selPanel.textContent = "";
  if (!selSum) { selPanel.style.display = "none"; return; }
  selPanel.style.display = "";
  const s = selSum;
  const head = el("div", { class: "head" }, "Selected " + fmtTs(s.from) + " – " + fmtTs(s.to) + " (" + fmtDur(s.dur_ns) + "): " +
    s.records.toLocaleString("en") + " records; threads' CPU time " + fmtDur(s.busy_ns) +
    " (as ktrace summary --from " + s.from_s + " --to " + s.to_s + ")");
  const close = el("button", { type: "button" }, "clear");
  close.addEventListener("click", () => select(null));
  head.append(" ", close);
  selPanel.append(head);
  const table = (title, cols, rows, total) => {
    const t = el("table");
    const cap = el("caption", {}, title + (total > rows.length ? " (top " + rows.length + " of " + total + ")" : ""));
    t.append(cap);
    const hr = el("tr");
    for (const c of cols) hr.append(el("th", {}, c));
    t.append(hr);
    for (const r of rows) { const tr = el("tr"); for (const v of r) tr.append(el("td", {}, String(v))); t.append(tr); }
    return t;
  };
  const multi = meta.inputs.length > 1;
  for (const q of s.inputs) {
    // one block per input, as summary gives them
    if (multi) selPanel.append(el("div", { class: "input" }, "input " + (q.input + 1) + ": " + q.path + " · " +
      q.records.toLocaleString("en") + " records · threads' CPU time " + fmtDur(q.busy_ns)));
    selPanel.append(table("CPU time per thread", ["thread", "tid", "pid", "CPU time", "share"],
      q.threads_by_cpu_time.slice(0, SEL_TOP).map(r => [r.name, r.tid, r.pid,
        fmtDur(r.cpu_ns), (100 * r.cpu_ns / s.dur_ns).toFixed(1) + "%"]), q.threads_by_cpu_time.length));
    selPanel.append(table("Wakeup latency per thread", ["thread", "tid", "count", "p50", "p90", "p99", "max"],
      q.threads_by_wakeup_latency.slice(0, SEL_TOP).map(r => [r.name, r.tid, r.count.toLocaleString("en"),
        fmtDur(r.p50_ns), fmtDur(r.p90_ns), fmtDur(r.p99_ns), fmtDur(r.max_ns)]), q.threads_by_wakeup_latency.length));
    selPanel.append(table("Events per name", ["event", "count"],
      q.events.slice(0, SEL_TOP).map(r => [(r.system ? r.system + ":" : "") + r.name, r.count.toLocaleString("en")]), q.events.length));
  }
}
// The selected thread: its wakeups drawn as arrows from the waker (its lane, else the
// CPU lane it woke the thread from) at the wakeup to the thread's lane (else the CPU
// lane it ran on) where it starts running.
function wakeups(th) {
  return wakesOf(th).map(j => ({ ts: wTs[j], dur: wDur[j], cpu: wCpu[j], waker: wBy[j],
    waker_tid: wBy[j] === NONE ? -1 : thr[wBy[j]].tid, waker_comm: wBy[j] === NONE ? "" : thr[wBy[j]].comm, waker_cpu: wakerCpu(j) }));
}
function selectThread(th) {
  selTh = th === null || th === undefined || th < 0 || th >= thr.length ? NONE : th;
  draw();
  for (const w of detail.querySelectorAll(".wake")) w.remove();
  if (selTh === NONE) return null;
  const x = thr[selTh], n = wakesOf(selTh).length;
  detail.append(el("div", { class: "wake" }, "selected " + x.comm + "-" + x.tid + inputTag(x) + ": " +
    n.toLocaleString("en") + " wakeups (violet arrows: from the waker, on the CPU it woke it from, to where it ran)"));
  return { thread: selTh, tid: x.tid, wakeups: n };
}
function drawArrows(pw, dt) {
  if (selTh === NONE) return;
  const ws = wakesOf(selTh);
  let j0 = 0, hi = ws.length;
  // the wakeups whose wait ends in the view or spans it (starts sorted; waits short)
  while (j0 < hi) { const m = (j0 + hi) >> 1; if (wTs[ws[m]] + wDur[ws[m]] < t0) j0 = m + 1; else hi = m; }
  const thY = new Map(), cpuY = new Map();
  for (const r of rows) { if (r.kind === "thread") thY.set(r.x.i, r.y + 6); else cpuY.set(r.l.cpu, r.y + 8); }
  ctx.strokeStyle = ctx.fillStyle = "#92c";
  ctx.lineWidth = 1.5;
  for (let i = j0, drawn = 0; i < ws.length && drawn < 2000; i++) {
    const j = ws[i];
    if (wTs[j] > t1) break;
    if (wTs[j] + wDur[j] < t0) continue;
    const x0 = LABEL_W + (wTs[j] - t0) / dt, x1 = LABEL_W + (wTs[j] + wDur[j] - t0) / dt;
    let y0 = wBy[j] !== NONE ? thY.get(wBy[j]) : undefined;
    if (y0 === undefined) y0 = cpuY.get(wakerCpu(j));
    let y1 = thY.get(selTh);
    if (y1 === undefined) y1 = cpuY.get(wCpu[j]);
    if (y0 === undefined || y1 === undefined) continue;
    drawn++;
    ctx.beginPath(); ctx.arc(x0, y0, 2.5, 0, 2 * Math.PI); ctx.fill();
    ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
    const ang = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath(); ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 7 * Math.cos(ang - 0.4), y1 - 7 * Math.sin(ang - 0.4));
    ctx.lineTo(x1 - 7 * Math.cos(ang + 0.4), y1 - 7 * Math.sin(ang + 0.4));
    ctx.fill();
  }
  ctx.lineWidth = 1;
}
function marker(t) {
  if (t === null || t === undefined) marks.length = 0;
  else { if (marks.length === 2) marks.shift(); marks.push(Math.round(t)); }
  showMarks();
  draw();
  return markers();
}
function markers() {
  const m = marks.slice();
  return { marks: m, abs: m.map(absText), delta: m.length === 2 ? Math.abs(m[1] - m[0]) : null };
}
function showMarks() {
  if (!marks.length) { markEl.textContent = ""; return; }
  const m = markers();
  markEl.textContent = "A " + fmtTs(marks[0]) + (marks.length === 2 ? " · B " + fmtTs(marks[1]) + " · B−A " +
    (marks[1] < marks[0] ? "−" : "") + fmtDur(m.delta) : " (alt+click B)");
}
// Search: a thread matches when its name contains the text or its tid or pid is the
// number; an event name when it contains the text. The matches are the records of an
// event name that matches or of a thread that matches (lost events marks too, by name).
function search(text) {
  text = String(text || "").trim();
  if (!text) { found = null; findInfo.textContent = ""; draw(); return null; }
  const num = /^-?\d+$/.test(text) ? Number(text) : NaN;
  const thMatch = new Uint8Array(thr.length), evMatch = new Uint8Array(names.length);
  const threadsFound = [], eventsFound = [];
  for (const x of thr) {
    if (x.comm.includes(text) || x.tid === num || x.pid === num) {
      thMatch[x.i] = 1;
      threadsFound.push({ i: x.i, tid: x.tid, pid: x.pid, comm: x.comm, input: x.input, by: x.comm.includes(text) ? "name" : x.tid === num ? "tid" : "pid" });
    }
  }
  evName.forEach((nm, i) => { if (nm.includes(text)) { evMatch[i] = 1; if (!eventsFound.includes(nm)) eventsFound.push(nm); } });
  const thOfTask = Uint8Array.from(tasks, t => t[0] >= 0 && t[0] < thr.length ? thMatch[t[0]] : 0);
  let recs = new Int32Array(1024), n = 0;
  for (let k = 0; k < N; k++) {
    if (evMatch[rev[k]] || (rtask[k] && thOfTask[rtask[k] - 1])) {
      if (n === recs.length) recs = grow(recs, n + 1);
      recs[n++] = k;
    }
  }
  found = { text, recs: recs.subarray(0, n), thMatch, at: -1 };
  findInfo.textContent = n.toLocaleString("en") + " records · " + threadsFound.length + " threads";
  draw();
  return { text, records: n, threads: threadsFound, events: eventsFound };
}
// the next (dir 1) or previous (-1) match from the last one jumped to, else from the
// view's middle (past either end: round to the other), the view centred on it, its
// record shown below the lanes
function jump(dir) {
  if (!found || !found.recs.length) return null;
  const r = found.recs;
  let i;
  if (found.at >= 0) i = found.at + dir;
  else { const mid = (t0 + t1) / 2; i = tickLower(r, mid); if (dir < 0) i--; }
  i = (i % r.length + r.length) % r.length;   // past the last: the first again
  found.at = i;
  const k = r[i], t = T(k), w = t1 - t0;
  setView(t - w / 2, t + w / 2);
  describe({ rec: k, thread: threadOf(k) }, detail);
  findInfo.textContent = (i + 1).toLocaleString("en") + " of " + r.length.toLocaleString("en") + " records";
  return { index: i, rec: k, t, ts: fmtTs(t) };
}
findIn.addEventListener("keydown", e => {
  if (e.key !== "Enter") return;
  e.preventDefault();
  if (!found || found.text !== findIn.value.trim()) { search(findIn.value); if (found) jump(1); }
  else jump(e.shiftKey ? -1 : 1);
});
findNext.addEventListener("click", () => { if (!found || found.text !== findIn.value.trim()) search(findIn.value); jump(1); });
findPrev.addEventListener("click", () => { if (!found || found.text !== findIn.value.trim()) search(findIn.value); jump(-1); });
function timeAt(px) { return t0 + (px - LABEL_W) * (t1 - t0) / (W - LABEL_W - 10); }
// drawn over the lanes: the search's matches, the selection, the markers, the match
// jumped to
function drawOverlays(pw, dt) {
  if (found && found.recs.length) {
    // a strip above the lanes: where the matching records are
    drawTicks(found.recs, AXIS_H - 4, 4, pw, dt, () => "#f80");
    if (found.at >= 0) {
      const x = LABEL_W + (T(found.recs[found.at]) - t0) / dt;
      if (x >= LABEL_W && x <= LABEL_W + pw) { ctx.fillStyle = "rgba(255,128,0,.8)"; ctx.fillRect(Math.round(x), AXIS_H, 1, H - AXIS_H); }
    }
  }
  if (sel) {
    const x0 = Math.max(LABEL_W, LABEL_W + (sel.a - t0) / dt), x1 = Math.min(LABEL_W + pw, LABEL_W + (sel.b - t0) / dt);
    if (x1 > x0) { ctx.fillStyle = "rgba(40,110,230,.15)"; ctx.fillRect(x0, AXIS_H, Math.max(1, x1 - x0), H - AXIS_H); }
    ctx.fillStyle = "rgba(40,110,230,.8)";
    for (const t of [sel.a, sel.b]) { const x = LABEL_W + (t - t0) / dt; if (x >= LABEL_W && x <= LABEL_W + pw) ctx.fillRect(Math.round(x), AXIS_H, 1, H - AXIS_H); }
  }
  drawArrows(pw, dt);
  marks.forEach((t, i) => {
    const x = LABEL_W + (t - t0) / dt;
    if (x < LABEL_W || x > LABEL_W + pw) return;
    ctx.fillStyle = "#0a0"; ctx.fillRect(Math.round(x), AXIS_H - 4, 1, H - AXIS_H + 4);
    ctx.font = "bold 11px sans-serif"; ctx.fillText(i ? "B" : "A", Math.round(x) + 3, AXIS_H + 10);
  });
}

// ---- input ----
let drag = null;
canvas.addEventListener("wheel", e => {
  e.preventDefault();
  const rect = canvas.getBoundingClientRect();
  zoom(Math.pow(1.0015, e.deltaY), e.clientX - rect.left);
}, { passive: false });
canvas.addEventListener("mousedown", e => {
  const rect = canvas.getBoundingClientRect();
  drag = { x: e.clientX, t0, t1, moved: false, sel: e.shiftKey, at: timeAt(e.clientX - rect.left) };
  if (!drag.sel) canvas.classList.add("dragging");
});
window.addEventListener("mouseup", e => {
  const rect = canvas.getBoundingClientRect();
  if (drag && drag.sel && drag.moved) {
    select(drag.at, timeAt(e.clientX - rect.left));
  } else if (drag && !drag.moved && (e.altKey || e.ctrlKey || e.metaKey)) {
    if (e.clientX - rect.left >= LABEL_W) marker(timeAt(e.clientX - rect.left));
  } else if (drag && !drag.moved) {
    const h = hit(e.clientX - rect.left, e.clientY - rect.top);
    if (h) {
      describe(h, detail);
      if (h.thread !== NONE && h.thread !== undefined && !idle(h.thread)) selectThread(h.thread);
    }
  }
  drag = null; canvas.classList.remove("dragging");
});
canvas.addEventListener("mousemove", e => {
  const rect = canvas.getBoundingClientRect();
  const px = e.clientX - rect.left, py = e.clientY - rect.top;
  if (drag) {
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 2) drag.moved = true;
    if (drag.moved && drag.sel) {
      // the range follows the pointer; its figures when the button is let go
      const a = drag.at, b = timeAt(px);
      sel = { a: Math.min(a, b), b: Math.max(a, b) };
      draw();
    } else if (drag.moved) {
      const dt = (drag.t1 - drag.t0) / (W - LABEL_W - 10);
      setView(drag.t0 - dx * dt, drag.t1 - dx * dt);
    }
    tip.style.display = "none";
    return;
  }
  const h = hit(px, py);
  if (!h) { tip.style.display = "none"; return; }
  describe(h, tip);
  tip.style.display = "block";
  tip.style.left = Math.min(px + 14, Math.max(0, W - tip.offsetWidth - 4)) + "px";
  tip.style.top = (py + 16) + "px";
});
canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
window.addEventListener("keydown", e => {
  if (e.target && e.target.tagName === "INPUT") return;
  if (e.key === "+" || e.key === "=") zoom(0.5);
  else if (e.key === "-" || e.key === "_") zoom(2);
  else if (e.key === "ArrowLeft") pan(-0.2);
  else if (e.key === "ArrowRight") pan(0.2);
  else if (e.key === "0") setView(0, span);
  else if (e.key === "Escape") { select(null); marker(null); selectThread(null); }
  else if (e.key === "/") findIn.focus();
  else return;
  e.preventDefault();
});
reset.addEventListener("click", () => setView(0, span));
more.addEventListener("click", () => { showAll = !showAll; draw(); });
window.addEventListener("resize", draw);

TM.built = performance.now() - T0;
draw();
TM.drawn = performance.now() - T0;

// what tests and programs may ask the page (window.ktl)
window.ktl = {
  meta,
  loadMs: performance.now(),   // the picture drawn
  scriptMs: performance.now() - T0,
  timings: TM,
  view: () => ({ t0, t1, from: fmtTs(t0), to: fmtTs(t1) }),
  setView,
  zoom,
  pan,
  cpus: () => cpuLanes.map(l => ({ cpu: l.cpu, slices: l.start.length, ticks: l.ticks.length, lost: l.lostRecs.length })),
  slice: (cpu, i) => {
    const l = laneOf.get(cpu);
    return { start: l.start[i], end: l.end[i], rec: sliceRec(l, i), tid: l.thread[i] >= 0 ? thr[l.thread[i]].tid : -1,
      comm: l.thread[i] >= 0 ? thr[l.thread[i]].comm : "", input: l.thread[i] >= 0 ? thr[l.thread[i]].input : -1 };
  },
  // every CPU's slices at once: [cpu, start, end, tid, input, open] each
  allSlices: () => { const r = []; for (const l of cpuLanes) for (let i = 0; i < l.start.length; i++) r.push([l.cpu, l.start[i], l.end[i], thr[l.thread[i]].tid, thr[l.thread[i]].input, l.open[i]]); return r; },
  // a thread lane's intervals, as the page draws them: [start, end, state, cpu, open]
  lane: i => { const x = thr[i], r = []; for (let j = 0; j < x.ivs.length; j++) r.push([x.ivs[j], x.ive[j], meta.states[x.ivst[j]], x.ivcpu[j], openIv.has(i + ":" + j)]); return r; },
  // what the tooltip of a thread lane says at time t (relative), "" when nothing
  laneText: (i, t) => { const x = thr[i], j = lowerBound(x.ive, t); if (j >= x.ivs.length || x.ivs[j] > t) return ""; const d = el("div"); describe({ rec: -1, thread: i, state: x.ivst[j], cpu: x.ivcpu[j], slice: [x.ivs[j], x.ive[j]], open: openIv.has(i + ":" + j) }, d); return d.textContent; },
  // x (page pixels in the canvas) of a time, y of a CPU lane's slices or a thread's lane
  xOf: t => LABEL_W + (t - t0) / ((t1 - t0) / (W - LABEL_W - 10)),
  cpuY: cpu => { const r = rows.find(q => q.kind === "cpu" && q.l.cpu === cpu); return r ? r.y + 8 : -1; },
  threadY: tid => { const r = rows.find(q => q.kind === "thread" && q.x.tid === tid); return r ? r.y + 6 : -1; },
  threads: () => order.map(x => ({ i: x.i, tid: x.tid, input: x.input, comm: x.comm, cpu_ns: x.cpu_ns, hue: hue(x.tid) })),
  shownThreads: () => rows.filter(q => q.kind === "thread").length,
  hue,
  line,
  lostMarks: (cpu, n) => Array.from(laneOf.get(cpu).lostRecs.subarray(0, n)),
  lostCount,
  // a range [a, b) in page time (ns after meta.base, as setView): selected, its figures
  select,
  selectionSummary: () => selSum,
  // a marker at page time t (a third replaces the first; null clears): both and B-A
  marker,
  markers,
  // the selected thread (its index in ktl.threads()' i; null clears): its wakeup
  // arrows; a thread's wakeups [{ts, dur, cpu, waker_tid, waker_comm, waker_cpu}]
  selectThread,
  wakeups,
  // thread, pid or event name: what matches (records, threads, event names)
  search,
  searchNext: () => jump(1),
  searchPrev: () => jump(-1),
  // the match jumped to last: its index among the matches, their count, record, time
  searchState: () => found && { text: found.text, index: found.at, count: found.recs.length,
    rec: found.at >= 0 ? found.recs[found.at] : -1, t: found.at >= 0 ? T(found.recs[found.at]) : null },
  searchTime: i => found && i >= 0 && i < found.recs.length ? T(found.recs[i]) : null,
  lines: (a, b) => { const r = []; for (let k = a; k < Math.min(b, N); k++) r.push(line(k)); return r; },
  ready: true,
};
// the first frame with the picture, and when every line is there too
requestAnimationFrame(() => setTimeout(() => { window.ktl.paintMs = performance.now(); }, 0));
await linesReady;
window.ktl.linesMs = performance.now();
document.documentElement.setAttribute("data-ktl-ready", "1");
ktlResolve(true);
})().catch(e => {
  const r = document.getElementById("ktl");
  if (r) r.textContent = "The timeline could not be drawn: " + e;
  ktlResolve(false);
});
