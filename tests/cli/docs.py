#!/usr/bin/env python3
"""Runs the command examples of the documentation, so that none can go stale.

Usage: docs.py --mode offline|live ROOT BUILD TMP

An example is a fenced block tagged `sh` in README.md, CONTRIBUTING.md, lib/README.md,
bench/README.md or docs/*.md (the rules are in docs/README.md):
- a line `$ CMD` is a command whose output follows it, up to the next `$ ` line or the
  block's end; `...` in the shown output stands for lines left out. Without `...` the
  output must be exactly the lines shown, else the shown parts must appear in order
  (the first at the start, the last at the end);
- any other line is a command whose output is not shown (`#` lines are comments, a line
  ending in `\\` goes on on the next);
- a command must exit 0, or N when its comment says `exit N`; it runs in bash with
  pipefail, so a ktrace that fails at the start of a pipeline fails the example;
- `./workload` (and ./reproducer, ./io-test) stand for the user's program: a short
  script here. A command whose comment says Ctrl-C runs until SIGINT after 2 s.
The commands of a block run one after the other in a directory of their own holding
the inputs the pages name (trace.dat, host.dat, guest.dat, cpu0.raw,
coreprofilesessiontap.bin, stackshot.kcdata, koff-odm, trace.codes: copies of files of
the repository) and links to examples/ and tests/, with build/ first in PATH.

A block that touches tracefs (record, extract, stream, show, start, stop, restart,
clear, reset, list, stat, or a path under /sys/kernel/tracing) is live: it runs only in
--mode live (root, tracefs; the caller holds tracefs_lock), else the offline mode
leaves it to the live one. Every other block runs in --mode offline.

A ktrace command in a fenced block that is not tagged `sh` would escape this test: an
untagged block holding one fails, and so does a `$ ktrace` line in any block but `sh`.
Blocks that show a synopsis or messages, not commands to run, are tagged `text`.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys

LIVE_CMDS = ("record", "extract", "stream", "show", "start", "stop", "restart", "clear",
             "reset", "list", "stat")
KTRACE_LINE = re.compile(r"^\s*(\$ )?([A-Za-z_]+=\S* )*(\S*/)?ktrace [a-z-]")
LIVE_RE = re.compile(r"(^|[|;&(]\s*|\s)(\S*/)?ktrace (%s)\b|/sys/kernel/tracing" %
                     "|".join(LIVE_CMDS))
TIMEOUT = 300


def doc_files(root):
    files = ["README.md", "CONTRIBUTING.md", "lib/README.md", "bench/README.md"]
    files += sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs"))
                    if f.endswith(".md"))
    return [f for f in files if os.path.exists(os.path.join(root, f))]


def comment_of(cmd):
    """The trailing shell comment of a command line ('' when none)."""
    m = re.search(r"\s#\s(.*)$", cmd)
    return m.group(1) if m else ""


class Example:
    def __init__(self, path, line, cmd):
        self.path, self.line, self.cmd = path, line, cmd
        self.shown = None          # list of lines, or None when no output is shown

    def name(self):
        c = self.cmd if len(self.cmd) <= 90 else self.cmd[:87] + "..."
        return "%s:%d: %s" % (self.path, self.line, c)


def parse(root, path):
    """(blocks, problems): blocks are lists of Examples; problems are messages."""
    blocks, problems = [], []
    lines = open(os.path.join(root, path), encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```\s*([A-Za-z0-9_+-]*)", lines[i])
        if not m:
            i += 1
            continue
        tag, start = m.group(1), i + 1
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        body = lines[start:j]
        i = j + 1
        if tag != "sh":
            for k, l in enumerate(body):
                if re.match(r"^\s*\$ ([A-Za-z_]+=\S* )*(\S*/)?ktrace [a-z-]", l) or \
                   (tag == "" and KTRACE_LINE.match(l)):
                    problems.append("%s:%d: a ktrace command in a block tagged '%s': tag it "
                                    "sh to run it, or text when it is no example"
                                    % (path, start + k + 1, tag))
                    break
            continue
        block, console, cur = [], any(l.startswith("$ ") for l in body), None
        k = 0
        while k < len(body):
            l, lineno = body[k], start + k + 1
            k += 1
            if console:
                if l.startswith("$ "):
                    cmd = l[2:]
                    while cmd.endswith("\\") and k < len(body):
                        cmd = cmd[:-1] + " " + body[k].strip()
                        k += 1
                    cur = Example(path, lineno, cmd)
                    cur.shown = []
                    block.append(cur)
                elif cur is None:
                    if l.strip():
                        problems.append("%s:%d: a line before the first '$ ' of its block"
                                        % (path, lineno))
                else:
                    cur.shown.append(l)
                continue
            s = l.strip()
            if not s or s.startswith("#"):
                continue
            while s.endswith("\\") and k < len(body):
                s = s[:-1] + " " + body[k].strip()
                k += 1
            block.append(Example(path, lineno, s))
        for e in block:
            if e.shown is not None:
                while e.shown and not e.shown[-1].strip():
                    e.shown.pop()
                if not e.shown:
                    e.shown = None
        if block:
            blocks.append(block)
    return blocks, problems


def matches(shown, actual):
    """None when the actual output agrees with the shown lines, else why not."""
    if not actual:
        return "printed nothing where output is shown"
    segs, cur = [], []
    for l in shown:
        if l.strip() == "...":
            segs.append(cur)
            cur = []
        else:
            cur.append(l.rstrip())
    segs.append(cur)
    act = [l.rstrip() for l in actual]
    if len(segs) == 1:
        return None if act == segs[0] else "output differs from the lines shown"
    pos = 0
    if segs[0]:
        if act[:len(segs[0])] != segs[0]:
            return "output does not start with the lines shown"
        pos = len(segs[0])
    last = segs[-1]
    end = len(act) - len(last)
    if last and (end < pos or act[end:] != last):
        return "output does not end with the lines shown"
    for seg in segs[1:-1]:
        found = -1
        for p in range(pos, end - len(seg) + 1):
            if act[p:p + len(seg)] == seg:
                found = p
                break
        if found < 0:
            return "the shown line %r is not in the output (in order)" % seg[0]
        pos = found + len(seg)
    return None


def make_fixtures(root, build, d):
    os.makedirs(d)
    ex = os.path.join(root, "examples")
    shutil.copy(os.path.join(ex, "sched_demo.dat"), os.path.join(d, "trace.dat"))
    shutil.copy(os.path.join(ex, "sched_demo.dat"), os.path.join(d, "host.dat"))
    with open(os.path.join(d, "guest.dat"), "wb") as f:
        subprocess.run(["zstd", "-dc", os.path.join(root, "tests/data/tracedat/mixed.v6.dat.zst")],
                       stdout=f, check=True)
    shutil.copy(os.path.join(ex, "sched_cpu0.trace_pipe_raw"), os.path.join(d, "cpu0.raw"))
    shutil.copy(os.path.join(ex, "coreprofilesessiontap.bin"), d)
    shutil.copy(os.path.join(ex, "koff-odm"), d)
    shutil.copy(os.path.join(root, "tests/data/kcdata/compressed-stackshot-sample"),
                os.path.join(d, "stackshot.kcdata"))
    with open(os.path.join(d, "trace.codes"), "w") as f:
        f.write("0x1400000\tMACH_SCHED_here\n0x25000001\tPERF_GEN_EVENT_here\n")
    for prog in ("workload", "reproducer", "io-test"):
        p = os.path.join(d, prog)
        with open(p, "w") as f:
            f.write("#!/bin/sh\n# stands for the user's program in the examples\n"
                    "ls / >/dev/null; cat /proc/self/status >/dev/null; sleep 0.2\n")
        os.chmod(p, 0o755)
    os.symlink(ex, os.path.join(d, "examples"))
    os.symlink(os.path.join(root, "tests"), os.path.join(d, "tests"))


def run_one(e, cwd, env):
    comment = comment_of(e.cmd)
    m = re.search(r"\bexit (\d+)\b", comment)
    want = int(m.group(1)) if m else 0
    ctrlc = "Ctrl-C" in comment
    p = subprocess.Popen(["bash", "-c", "set -o pipefail\n" + e.cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=2 if ctrlc else TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGINT if ctrlc else signal.SIGKILL)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        if not ctrlc:
            return "timed out after %d s" % TIMEOUT, out, err
        if p.returncode in (-signal.SIGINT, 130):
            p.returncode = 0       # sh died of the SIGINT that ktrace handled
    if p.returncode != want:
        return "exit %d, documented %d" % (p.returncode, want), out, err
    if e.shown is not None:
        text = out.decode("utf-8", "replace")
        if want != 0:
            text += err.decode("utf-8", "replace")
        why = matches(e.shown, text.split("\n")[:-1] if text.endswith("\n") else
                      (text.split("\n") if text else []))
        if why:
            return why, out, err
    return None, out, err


def main():
    mode, root, build, tmp = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
    live_ok, why_not = True, ""
    if mode == "live":
        if os.geteuid() != 0:
            live_ok, why_not = False, "not root"
        elif not os.path.exists("/sys/kernel/tracing/tracing_on"):
            live_ok, why_not = False, "tracefs is not mounted at /sys/kernel/tracing"
    todo, problems = [], []
    files = doc_files(root)
    for f in files:
        blocks, probs = parse(root, f)
        problems += probs
        for b in blocks:
            is_live = any(LIVE_RE.search(e.cmd) for e in b)
            if is_live == (mode == "live"):
                todo.append(b)
    n = sum(len(b) for b in todo) + (len(files) if mode == "offline" else 1)
    print("1..%d" % n)
    if mode == "offline":
        for f in files:
            mine = [p for p in problems if p.startswith(f + ":")]
            if mine:
                print("not ok - %s: every ktrace command is in an sh block" % f)
                for p in mine:
                    print("#   " + p)
            else:
                print("ok - %s: every ktrace command is in an sh block" % f)
    if mode == "live" and not live_ok:
        for b in todo:
            for e in b:
                print("ok - %s # SKIP %s" % (e.name(), why_not))
        print("ok - tracefs as found after the live examples # SKIP %s" % why_not)
        return 0
    env = dict(os.environ)
    env["PATH"] = build + os.pathsep + env.get("PATH", "")
    env["TMPDIR"] = tmp
    if mode == "live":
        env["KTRACE_STATE_DIR"] = os.path.join(tmp, "state")
        env["KTRACE_INSTANCE_REGISTRY"] = os.path.join(tmp, "registry")
    fixtures = os.path.join(tmp, "fixtures")
    make_fixtures(root, build, fixtures)
    ktrace = os.path.join(build, "ktrace")

    def tracefs_state():
        # every setting of every buffer; not the kernel's error_log, which only grows
        r = subprocess.run([ktrace, "stat", "-a", "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env)
        try:
            st = json.loads(r.stdout)
            for buf in st.get("buffers", []):
                buf.pop("error_log", None)
            return json.dumps(st, indent=1, sort_keys=True).encode()
        except ValueError:
            return r.stdout

    before = tracefs_state() if mode == "live" else None
    for bi, b in enumerate(todo):
        cwd = os.path.join(tmp, "block%d" % bi)
        shutil.copytree(fixtures, cwd, symlinks=True)
        for e in b:
            why, out, err = run_one(e, cwd, env)
            if why:
                print("not ok - %s (%s)" % (e.name(), why))
                for l in (out + err).decode("utf-8", "replace").split("\n")[:15]:
                    print("#   " + l)
            else:
                print("ok - %s" % e.name())
        shutil.rmtree(cwd, ignore_errors=True)
    if mode == "live":
        after = tracefs_state()
        if before == after and before:
            print("ok - tracefs as found after the live examples")
        else:
            print("not ok - tracefs as found after the live examples")
            import difflib
            for l in list(difflib.unified_diff(before.decode("utf-8", "replace").split("\n"),
                                               after.decode("utf-8", "replace").split("\n"),
                                               "before", "after", lineterm=""))[:30]:
                print("#   " + l)
    return 0


if __name__ == "__main__":
    sys.exit(main())
