#!/usr/bin/env python3
"""Checks the layering rules of the tree (run by tests/layout/*.sh).

  layering.py includes ROOT
      The include graph: common -> readers -> engine -> sinks -> src. A file may include
      the public headers and internal headers of its own layer or a lower one, never of a
      higher layer; src/ includes public headers only (no lib/ internals). No file of
      lib/ includes another component's internal header (*_int.h; each sink folder
      lib/sinks/<name>/ is a component). A sink includes only <ktrace/*.h>, common/*.h,
      engine/engine.h (the engine's one sink API), headers of its own folder and the
      non-_int headers of readers.
  layering.py exports INCLUDE_DIR MAP [SHARED_LIB]
      Every KTRACE_API declaration of the public headers is in the versioned symbol list
      MAP (no globs), every name in MAP is declared, each name carries the prefix of the
      header that declares it, and SHARED_LIB (when given) exports exactly MAP's names.
  layering.py declared INCLUDE_DIR
      Prints the KTRACE_API names, one per line.
  layering.py map INCLUDE_DIR
      Prints a symbol list naming every KTRACE_API declaration (to write lib/libktrace.map
      after adding public functions; review the difference before committing it).
Each check prints "ok"/one line per violation and exits 1 on any violation.
"""
import os, re, subprocess, sys

# Layers, lowest first. A directory of lib/ belongs to one layer; public headers belong
# to the layer of the component they describe.
LAYERS = {
    'common': 0,
    'ring': 1, 'event': 1, 'tracedat': 1, 'tracefs': 1, 'darwin': 1, 'kcdata': 1, 'koff': 1,
    'engine': 2,
    'sinks': 3,
    'src': 4,
}
READERS = [c for c, l in LAYERS.items() if l == 1]
# The one header of the engine that sinks may include (beside <ktrace/stream.h>).
SINK_API = 'engine/engine.h'
# Public header -> component (and so layer). Headers not named here are common's.
HEADER_COMPONENT = {
    'kbuffer.h': 'ring', 'ring.h': 'ring', 'event.h': 'event', 'tracedat.h': 'tracedat',
    'tracefs.h': 'tracefs', 'darwin.h': 'darwin', 'ktrace_file.h': 'darwin',
    'kcdata.h': 'kcdata', 'koff.h': 'koff', 'stream.h': 'engine', 'view.h': 'sinks', 'sql.h': 'sinks',
    'ktrace.h': 'src',
}
# Public header -> the prefixes of the names it may declare.
HEADER_PREFIX = {
    'api.h': (), 'version.h': ('ktrace_version',), 'error.h': ('ktrace_error_',),
    'input.h': ('ktrace_input_',), 'detect.h': ('ktrace_detect_',), 'out.h': ('ktrace_out_',),
    'kbuffer.h': ('kbuffer_',), 'ring.h': ('ktrace_ring_',), 'event.h': ('ktrace_event_',),
    'tracedat.h': ('tracedat_',), 'tracefs.h': ('ktrace_tracefs_',),
    'darwin.h': ('ktrace_darwin_',), 'ktrace_file.h': ('ktrace_file_',),
    'kcdata.h': ('kcdata_',), 'koff.h': ('koff_',), 'stream.h': ('ktrace_stream_',),
    'view.h': ('ktrace_view_', 'ktrace_report', 'ktrace_info'), 'sql.h': ('ktrace_sql_',), 'ktrace.h': (),
}

INC = re.compile(r'^[ \t]*#[ \t]*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of_path(rel):
    parts = rel.split('/')
    if parts[0] == 'src':
        return 'src', LAYERS['src']
    if parts[0] == 'lib' and len(parts) > 2:
        comp = parts[1]
        if comp not in LAYERS:
            return comp, None
        return comp, LAYERS[comp]
    if parts[0] == 'include':
        comp = HEADER_COMPONENT.get(parts[-1], 'common')
        return comp, LAYERS[comp]
    return None, None


def is_internal(name):
    """An internal header: what only its own component includes."""
    return os.path.basename(name).endswith(('_int.h', '_internal.h', 'internal.h'))


def component_of_include(name):
    """The component a quoted "dir/file.h" include belongs to ("sinks/<name>" for a sink)."""
    parts = name.split('/')
    if parts[0] == 'sinks' and len(parts) > 2:
        return 'sinks/' + parts[1]
    return parts[0]


def sink_of_path(rel):
    """"sinks/<name>" for a file under lib/sinks/<name>/, else None."""
    parts = rel.split('/')
    if len(parts) > 3 and parts[0] == 'lib' and parts[1] == 'sinks':
        return 'sinks/' + parts[2]
    return None


def check_sink_include(rel, line, sink, name):
    """What a sink's file may include with "dir/file.h": a message, or None."""
    tcomp = component_of_include(name)
    if tcomp == 'common' or name == SINK_API or tcomp == sink:
        return None
    # another sink's own header, sinks/<name>/<name>.h: what it offers other components
    if tcomp.startswith('sinks/') and name == '%s/%s.h' % (tcomp, tcomp.split('/')[1]):
        return None
    if tcomp in READERS and not is_internal(name):
        return None
    if tcomp == 'engine':
        why = 'an engine header other than %s' % SINK_API
    elif tcomp.startswith('sinks/'):
        why = 'a header of another sink'
    elif tcomp in READERS:
        why = 'an internal header of a reader'
    else:
        why = 'a header outside what sinks may use'
    return ('%s:%d: sink %s includes %s, %s (sinks use <ktrace/*.h>, common/, %s, '
            'their own folder, another sink\'s <name>.h and readers\' non-_int headers)' % (rel, line, sink, name, why, SINK_API))


def check_includes(root):
    bad = []
    for top in ('lib', 'src', 'include'):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(('.c', '.h')):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root)
                comp, layer = layer_of_path(rel)
                if layer is None:
                    bad.append('%s: lib/%s is not a known component (add it to a layer)' % (rel, comp))
                    continue
                sink = sink_of_path(rel)
                own = sink or comp
                text = open(path, errors='replace').read()
                for m in INC.finditer(text):
                    kind, name = m.groups()
                    line = text.count('\n', 0, m.start()) + 1
                    if kind == '"' and '/' in name and top == 'lib':
                        tcomp = component_of_include(name)
                        if is_internal(name) and tcomp != own:
                            bad.append('%s:%d: %s includes %s, an internal header of %s'
                                       % (rel, line, own, name, tcomp))
                            continue
                        if sink:
                            msg = check_sink_include(rel, line, sink, name)
                            if msg:
                                bad.append(msg)
                                continue
                    if name.startswith('ktrace/'):
                        tcomp = HEADER_COMPONENT.get(name[len('ktrace/'):], 'common')
                    elif kind == '"' and '/' in name:
                        tcomp = name.split('/')[0]
                        if top == 'src' and tcomp in LAYERS and tcomp != 'src':
                            bad.append('%s:%d: src includes the library internal "%s"' % (rel, line, name))
                            continue
                        if tcomp not in LAYERS:
                            continue
                    else:
                        continue        # system header or same-directory header
                    if LAYERS[tcomp] > layer:
                        bad.append('%s:%d: %s (%s) includes %s from the higher layer %s'
                                   % (rel, line, comp, layer, name, tcomp))
    for b in bad:
        print(b)
    if not bad:
        print('ok: include graph follows common -> readers -> engine -> sinks -> src; '
              'sinks see the engine through %s' % SINK_API)
    return 1 if bad else 0


def strip_comments(s):
    s = re.sub(r'/\*.*?\*/', ' ', s, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', s)


def declared(incdir):
    """{name: header} for every KTRACE_API declaration."""
    names = {}
    for f in sorted(os.listdir(incdir)):
        if not f.endswith('.h') or f == 'api.h':
            continue
        text = strip_comments(open(os.path.join(incdir, f)).read())
        text = re.sub(r'^\s*#.*$', ' ', text, flags=re.M)
        for m in re.finditer(r'\bKTRACE_API\b([^;{]*)', text):
            decl = re.sub(r'__attribute__\s*\(\(.*?\)\)', ' ', m.group(1), flags=re.S)
            if re.match(r'\s*extern\b', decl):      # a variable
                name = re.search(r'(\w+)\s*(\[[^\]]*\])?\s*$', decl.strip()).group(1)
            else:                                   # a function: the first name before '('
                name = re.search(r'(\w+)\s*\(', decl).group(1)
            names[name] = f
    return names


def map_names(path):
    text = strip_comments(open(path).read())
    names = []
    bad = []
    for block in re.finditer(r'(\w+)\s*\{(.*?)\}\s*(\w*)\s*;', text, flags=re.S):
        body = block.group(2)
        g = re.search(r'global:(.*?)(local:|$)', body, flags=re.S)
        if not g:
            continue
        for tok in re.findall(r'[^\s;]+', g.group(1)):
            if any(c in tok for c in '*?['):
                bad.append('%s: glob "%s" in the symbol list (name every symbol)' % (path, tok))
            names.append(tok)
    return names, bad


def check_exports(incdir, mapfile, so=None):
    decl = declared(incdir)
    listed, bad = map_names(mapfile)
    for name, hdr in sorted(decl.items()):
        pre = HEADER_PREFIX.get(hdr)
        if pre is None:
            bad.append('%s: public header without a prefix rule' % hdr)
        elif not any(name.startswith(p) for p in pre):
            bad.append('%s declares %s, which lacks its prefix %s' % (hdr, name, '/'.join(pre) or '(none)'))
        if name not in listed:
            bad.append('%s (%s) is not in %s' % (name, hdr, mapfile))
    for name in listed:
        if name not in decl:
            bad.append('%s is in %s but no public header declares it' % (name, mapfile))
    if so:
        out = subprocess.run(['nm', '-D', '--defined-only', so], capture_output=True, text=True).stdout
        exported = set()
        for line in out.split('\n'):
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TDBRVWiu':
                n = parts[2].split('@')[0]
                if not re.match(r'KTRACE_\d', n):
                    exported.add(n)
        for n in sorted(exported - set(listed)):
            bad.append('%s exports %s, which the symbol list does not name' % (so, n))
        for n in sorted(set(listed) - exported):
            bad.append('%s does not export %s' % (so, n))
    for b in bad:
        print(b)
    if not bad:
        print('ok: %d exported symbols, each declared in its public header' % len(listed))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == 'includes':
        return check_includes(argv[1])
    if len(argv) >= 3 and argv[0] == 'exports':
        return check_exports(argv[1], argv[2], argv[3] if len(argv) > 3 else None)
    if len(argv) == 2 and argv[0] == 'map':
        print('/* Exported symbols of libktrace.so, by version: every name is declared KTRACE_API in a')
        print(' * public header (make check compares this list with the headers and the library). */')
        print('KTRACE_0.2 {\n\tglobal:')
        for n in sorted(declared(argv[1])):
            print('\t\t%s;' % n)
        print('\tlocal:\n\t\t*;\n};')
        return 0
    if len(argv) == 2 and argv[0] == 'declared':
        for n in sorted(declared(argv[1])):
            print(n)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
