#!/usr/bin/env python3
"""The options each ktrace subcommand accepts, read from its source (src/*.c): the long
options of its getopt_long tables and the letters of its short-option strings.

  cli_options.py SRC_DIR          prints "COMMAND OPTION" lines (-x or --name)

Options a command refuses on purpose (trace-cmd report's, marked O_UNSUPPORTED*) and
letters handled as "not supported" are left out. Used by tests/cli/manual.sh (every
option in the manual) and by the bash completion generator (scripts/completion.py)."""
import os
import re
import sys

# source file -> subcommand (report_tracedat.c and darwin_cli.h add to report/info)
FILES = {
    'report.c': 'report', 'report_tracedat.c': 'report', 'info.c': 'info', 'dump.c': 'dump',
    'record.c': 'record', 'extract.c': 'extract', 'convert.c': 'convert',
    # trace-cmd record's options, parsed for record, stream and start (record_args_parse)
    'record_opts.c': ('record', 'stream', 'start'),
    # stop, restart and clear share one parser (start's options are record's)
    'control.c': ('stop', 'restart', 'clear'),
}
# options of record_opts.c only some of its commands accept (record_args_parse's allow)
ONLY_FOR = {
    '-o': ('record',), '--output': ('record',), '--file-version': ('record',),
    '--compression': ('record',), '-m': ('record',), '--max-kb': ('record',),
    '-F': ('record', 'stream'), '--trace-self': ('record', 'stream'),
}
# short letters trace-cmd report takes that ktrace refuses as not supported
REFUSED_SHORT = {'report': set('nOHNL')}


def tables(text):
    """(name, val) of every { "name", ..., VAL } entry of struct option tables."""
    out = []
    for m in re.finditer(r'static const struct option \w+\[\] = \{(.*?)\n\};', text, re.S):
        body = m.group(1)
        for e in re.finditer(r'\{\s*"([\w-]+)",\s*\w+,\s*NULL,\s*([\w\']+)\s*\}', body):
            out.append((e.group(1), e.group(2)))
        if 'DARWIN_CLI_LONG_OPTIONS' in body:
            out.extend(darwin_long)
    return out


def shorts(text):
    letters = set()
    for m in re.finditer(r'getopt_long\(argc, argv, ("(?:[^"\\]|\\.)*"|\w+)', text):
        s = m.group(1)
        if not s.startswith('"'):
            d = re.search(r'static const char %s\[\] = "([^"]*)"' % s, text)
            s = '"%s"' % d.group(1) if d else '""'
        letters |= {c for c in s.strip('"') if c.isalnum()}
    return letters


def hand_parsed(text):
    """Options of a parser without getopt (list.c, as trace-cmd list parses): the words
    compared with strcmp and the letters of its switch on the option's second byte."""
    if 'getopt_long(' in text:
        return set()
    opts = set(re.findall(r'strcmp\(\w+, "(--?[\w-]+)"\)', text))
    m = re.search(r'switch \(a\[1\]\) \{(.*?)\n\t\t\}', text, re.S)
    if m:
        opts |= {'-' + c for c in re.findall(r"case '(\w)':", m.group(1))}
    return opts


def collect(src):
    """Sorted (command, option) pairs."""
    global darwin_long
    h = open(os.path.join(src, 'darwin_cli.h')).read()
    darwin_long = re.findall(r'\{\s*"([\w-]+)",\s*\w+,\s*NULL,\s*(\w+)\s*\}', h)
    seen = set()
    files = dict(FILES)
    # every other file that defines a subcommand (.name = "X" of a struct cli_command)
    for f in sorted(os.listdir(src)):
        if f.endswith('.c') and f not in files:
            m = re.search(r'const struct cli_command cli_\w+ = \{\s*\.name = "(\w+)"',
                          open(os.path.join(src, f)).read())
            if m:
                files[f] = m.group(1)
    for f, cmds in files.items():
        text = open(os.path.join(src, f)).read()
        for cmd in (cmds if isinstance(cmds, tuple) else (cmds,)):
            def add(opt):
                if f != 'record_opts.c' or cmd in ONLY_FOR.get(opt, (cmd,)):
                    seen.add((cmd, opt))
            for name, val in tables(text):
                if 'UNSUPPORTED' in val:
                    continue
                add('--' + name)
            for c in shorts(text):
                if c not in REFUSED_SHORT.get(cmd, ()):
                    add('-' + c)
            for opt in hand_parsed(text):
                add(opt)
    return sorted(seen)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for cmd, opt in collect(sys.argv[1]):
        print(cmd, opt)


if __name__ == '__main__':
    main()
