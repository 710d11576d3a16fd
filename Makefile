# ktrace: build with `make`, test with `make check`.
#
#   make                 library (static + shared), CLI, pkg-config file into build/
#   make check           every test; ends with "N passed, N failed; M corpus replays passed"
#   make check SAN=1     the same under AddressSanitizer + UndefinedBehaviorSanitizer
#                        (into build-san/)
#   make demo            ktrace report on the bundled sample
#   make fuzz            libFuzzer binaries (clang) into build-fuzz/
#   make bench           benchmarks against the reference tools
#   make robust          a long hostile-input campaign (ROBUST_RUNS, ROBUST_SEED, ROBUST_JOBS,
#                        ROBUST_SAVE; SAN=1 for the sanitizers)
#   make install PREFIX=/usr/local DESTDIR=   (also man pages, bash completion and the
#                        Python module, into PYTHONDIR)

VERSION    := 0.2.0
SOVERSION  := 1
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

CC      ?= cc
OPT     ?= -O2 -g
ifeq ($(SAN),1)
B       ?= build-san
OPT     := -O1 -g -fno-omit-frame-pointer
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
# NEVER()/ALWAYS() of lib/common/check.h assert here
CPPFLAGS += -DKTRACE_DEBUG
else
B       ?= build
SANFLAGS :=
endif

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter
CPPFLAGS += -Iinclude -Ilib -D_GNU_SOURCE -DKTRACE_VERSION='"$(VERSION)"'
CFLAGS   += -std=c11 $(OPT) $(WARN) -fPIC -pthread $(SANFLAGS)
LDFLAGS  += -pthread $(SANFLAGS)
LIBS     := -lzstd -lz -ldeflate -llz4 -lelf -lplist-2.0 -lsqlite3 -laudit -lm

LIB_SRC  := $(sort $(wildcard lib/*/*.c lib/sinks/*/*.c))
# The timeline page's own script and styles, embedded as C strings (see below).
ASSETS   := lib/sinks/timeline/page.css lib/sinks/timeline/page.js
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/timeline_assets.o
# Library objects export only what the public headers mark KTRACE_API.
$(LIB_OBJ): CFLAGS += -fvisibility=hidden -DKTRACE_BUILDING
CLI_SRC  := $(sort $(wildcard src/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/%.o)
HEADERS  := $(wildcard include/ktrace/*.h)

# Unit tests: every tests/<component>/test_*.c is one program linked with libktrace.a.
TEST_SRC := $(sort $(wildcard tests/*/test_*.c))
TEST_BIN := $(TEST_SRC:%.c=$(B)/%)
# Fuzz harnesses: fuzz/<name>.c defines LLVMFuzzerTestOneInput; the regression driver
# replays fuzz/corpus/<name>/* through it.
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_REG := $(FUZZ_SRC:fuzz/%.c=$(B)/fuzz/%_regress)

STATIC   := $(B)/libktrace.a
SHARED   := $(B)/libktrace.so.$(VERSION)
CLI      := $(B)/ktrace
PCFILE   := $(B)/ktrace.pc
# Manual pages from the text of `ktrace help` (and the public headers for libktrace(3)),
# bash completion from `ktrace --help` and the option tables of src/.
MANSTAMP := $(B)/man/.generated
LIBMAN   := $(B)/man/libktrace.3
COMPLETION := $(B)/completion/ktrace

.PHONY: all deps check test-deps demo install uninstall clean fuzz bench robust
all: $(STATIC) $(SHARED) $(CLI) $(PCFILE) $(MANSTAMP) $(LIBMAN) $(COMPLETION)

# Build dependencies are checked (and installed with apt when missing) once.
$(B)/.deps:
	@./scripts/deps.sh build
	@mkdir -p $(B) && touch $@

$(B)/%.o: %.c $(HEADERS) | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

# lib/sinks/timeline/page.{css,js} -> one C string each (tl_asset_page_css/_js): every
# line quoted, backslashes and quotes escaped.
ASSET_SED = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/'
define gen_assets
	@mkdir -p $(dir $(1))
	@{ echo '/* generated from lib/sinks/timeline/ by the Makefile: do not edit */'; \
	  echo 'const char tl_asset_page_css[] ='; $(ASSET_SED) lib/sinks/timeline/page.css; echo ';'; \
	  echo 'const char tl_asset_page_js[] ='; $(ASSET_SED) lib/sinks/timeline/page.js; echo ';'; \
	} > $(1).tmp && mv $(1).tmp $(1)
endef

$(B)/gen/timeline_assets.c: $(ASSETS) Makefile
	$(call gen_assets,$@)

$(B)/gen/timeline_assets.o: $(B)/gen/timeline_assets.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SHARED): $(LIB_OBJ) lib/libktrace.map
	$(CC) -shared -Wl,-soname,libktrace.so.$(SOVERSION) -Wl,--version-script=lib/libktrace.map \
	    $(LDFLAGS) -o $@ $(LIB_OBJ) $(LIBS)
	ln -sf libktrace.so.$(VERSION) $(B)/libktrace.so.$(SOVERSION)
	ln -sf libktrace.so.$(VERSION) $(B)/libktrace.so

# The CLI sees the public headers only (no -Ilib) and links the shared library, found
# beside it (build/) or in LIBDIR once installed.
$(CLI_OBJ): CPPFLAGS := -Iinclude -D_GNU_SOURCE -DKTRACE_VERSION='"$(VERSION)"'
$(CLI): $(CLI_OBJ) $(SHARED)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) -L$(B) -lktrace -Wl,-rpath,'$$ORIGIN:$(LIBDIR)'

$(MANSTAMP): $(CLI) scripts/man.py
	@mkdir -p $(B)/man
	python3 scripts/man.py cli $(CLI) $(B)/man $(VERSION)
	@touch $@

$(LIBMAN): $(HEADERS) scripts/man.py
	@mkdir -p $(B)/man
	python3 scripts/man.py lib include/ktrace $(B)/man $(VERSION)

$(COMPLETION): $(CLI) $(CLI_SRC) src/darwin_cli.h scripts/completion.py scripts/cli_options.py scripts/man.py
	python3 scripts/completion.py $(CLI) src $@

PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	     -e 's|@VERSION@|$(VERSION)|'

$(PCFILE): ktrace.pc.in Makefile
	@mkdir -p $(B)
	$(PC_SED) $< > $@

$(B)/tests/%: tests/%.c tests/testlib.h $(wildcard tests/*/*.h) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -o $@ $< $(STATIC) $(LDFLAGS) $(LIBS) -ldl

$(B)/fuzz/%_regress: fuzz/%.c fuzz/regress_main.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< fuzz/regress_main.c $(STATIC) $(LDFLAGS) $(LIBS)

# Example programs of the public API, built against the shared library as users build
# them (the tests run them too).
EXAMPLE_SRC := $(sort $(wildcard examples/*.c))
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=$(B)/examples/%)

$(B)/examples/%: examples/%.c $(HEADERS) $(SHARED)
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -std=c11 $(OPT) $(WARN) $(SANFLAGS) -o $@ $< -L$(B) -lktrace \
	    -Wl,-rpath,'$$ORIGIN/..' $(LDFLAGS)

# Preloaded into the reference trace-cmd by tests/bin/trace-cmd; never sanitized (it
# goes into a program built without the sanitizers).
TC_PRELOAD := $(B)/tests/tools/malloc0.so
$(TC_PRELOAD): tests/tools/malloc0.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) -shared -fPIC -o $@ $<
# Preloaded into ktrace by tests/timeline/timeline.sh: one open() of a path fails.
FAILOPEN := $(B)/tests/tools/failopen.so
$(FAILOPEN): tests/tools/failopen.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) -shared -fPIC -o $@ $< -ldl

# Preloaded into ktrace by tests/timeline/timeline.sh: fallocate() fails (no range
# insertion or collapse).
NOFALLOC := $(B)/tests/tools/nofalloc.so
$(NOFALLOC): tests/tools/nofalloc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) -shared -fPIC -o $@ $<

# Preloaded into ktrace by tests/cli/writers.sh: the first rename waits for a signal.
HOLDRENAME := $(B)/tests/tools/holdrename.so
$(HOLDRENAME): tests/tools/holdrename.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) -shared -fPIC -o $@ $< -ldl

# Run by tests/common/allocfail.sh: the CLI linked with libktrace.a, every allocation
# function wrapped so that a run can make the N-th allocation fail.
ALLOCFAIL := $(B)/tests/tools/ktrace_allocfail
ALLOCFAIL_WRAP := malloc calloc realloc aligned_alloc strdup strndup asprintf vasprintf
$(B)/tests/tools/cli_main.o: $(B)/src/main.o
	@mkdir -p $(dir $@)
	objcopy --redefine-sym main=ktrace_cli_main $< $@
$(ALLOCFAIL): tests/tools/allocfail.c $(B)/tests/tools/cli_main.o $(filter-out $(B)/src/main.o,$(CLI_OBJ)) $(STATIC)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(foreach f,$(ALLOCFAIL_WRAP),-Wl,--wrap=$(f)) $(LIBS)

# The Python module `ktrace` (python/, docs/python.md), built against Debian's Python
# (/usr/bin/python3, whose python3-numpy and python3-pandas the module uses) even where
# another python3 comes first in PATH, when its headers (python3-dev) and NumPy's are
# there; else skipped with a note (its tests say SKIP). One extension with libktrace.a
# inside (its symbols hidden): build/python/ktrace*.so, found with PYTHONPATH=build/python.
PYTHON   ?= /usr/bin/python3
PYCFG    := $(shell [ -x $(PYTHON) ] && $(PYTHON) -c 'import os, sys, sysconfig as s; \
	    i = s.get_paths()["include"]; \
	    exec("try:\n import numpy; n = numpy.get_include()\nexcept Exception: n = \"\""); \
	    ok = os.path.exists(i + "/Python.h") and n and os.path.exists(n + "/numpy/arrayobject.h"); \
	    print(i, n, s.get_config_var("EXT_SUFFIX"), "%d.%d" % sys.version_info[:2]) if ok else None' 2>/dev/null)
ifneq ($(words $(PYCFG)),4)
PYMOD    :=
PY_NOTE  := ktrace: the Python module is not built: $(PYTHON) with its headers (python3-dev) and NumPy's (python3-numpy) is needed
else
PY_INC   := $(word 1,$(PYCFG))
NP_INC   := $(word 2,$(PYCFG))
PY_EXT   := $(word 3,$(PYCFG))
PY_VER   := $(word 4,$(PYCFG))
PYMOD    := $(B)/python/ktrace$(PY_EXT)
endif
# where `make install` puts it: a directory of the system python3's sys.path
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY_VER)/dist-packages)
PY_SRC   := $(sort $(wildcard python/*.c))
PY_OBJ   := $(PY_SRC:%.c=$(B)/%.o)
$(PY_OBJ): CPPFLAGS := -Iinclude -isystem $(PY_INC) -isystem $(NP_INC) -D_GNU_SOURCE
$(PY_OBJ): CFLAGS += -fvisibility=hidden -fno-strict-aliasing
$(B)/python/%.o: python/%.c python/ktrace_py.h $(HEADERS) | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(PYMOD): $(PY_OBJ) $(STATIC)
	$(CC) -shared $(LDFLAGS) -o $@ $(PY_OBJ) $(STATIC) -Wl,--exclude-libs,ALL $(LIBS)
-include $(PY_OBJ:.o=.d)
.PHONY: python-note
python-note:
	@$(if $(PY_NOTE),echo "$(PY_NOTE)" >&2,:)
all: python-note $(PYMOD)

# Debian's python3 for the test scripts (tests/lib.sh puts $(B)/tests/bin first in
# PATH): a version manager's shim first in PATH (pyenv's here) costs up to a second per
# start, and the scripts start Python hundreds of times. Only the standard library is used.
TEST_PYTHON := $(B)/tests/bin/python3
$(TEST_PYTHON):
	@mkdir -p $(dir $@)
	@if [ -x /usr/bin/python3 ]; then ln -sf /usr/bin/python3 $@; \
	 else ln -sf "$$(command -v python3)" $@; fi

# Everything the test scripts need, built before they run.
TEST_ALL := all $(TEST_BIN) $(FUZZ_REG) $(EXAMPLE_BIN) $(TC_PRELOAD) $(FAILOPEN) $(NOFALLOC) $(HOLDRENAME) $(ALLOCFAIL) \
	    $(TEST_PYTHON)

$(B)/.test-deps:
	@./scripts/deps.sh test
	@mkdir -p $(B) && touch $@

# (built with a job per CPU unless make was given -j)
check: $(B)/.test-deps
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1)) $(TEST_ALL)
	@B=$(B) CC="$(CC)" SANFLAGS="$(SANFLAGS)" ./tests/run.sh

# The hostile-input campaign at length over every input (a short one is part of make
# check): the normal build under an address-space limit, or with SAN=1 the sanitizers.
# make robust [SAN=1] [ROBUST_RUNS=10000] [ROBUST_SEED=N] [ROBUST_JOBS=N] [ROBUST_SAVE=DIR]
ROBUST_RUNS ?= 10000
ROBUST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
robust: $(B)/.test-deps
	@$(MAKE) --no-print-directory all $(B)/tests/darwin/test_stackshot
	@B=$(B) ROBUST_RUNS=$(ROBUST_RUNS) ROBUST_JOBS=$(ROBUST_JOBS) \
	    $(if $(ROBUST_SEED),ROBUST_SEED=$(ROBUST_SEED)) \
	    $(if $(ROBUST_SAVE),ROBUST_SAVE=$(abspath $(ROBUST_SAVE))) sh tests/robust/robust.sh

demo: all
	./$(CLI) report examples/sched_cpu0.trace_pipe_raw | head -40

FUZZ_CC ?= clang
fuzz:
	@mkdir -p build-fuzz
	$(call gen_assets,build-fuzz/gen/timeline_assets.c)
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	    echo "  FUZZ $$n"; \
	    $(FUZZ_CC) $(CPPFLAGS) -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined \
	        -o build-fuzz/$$n $$f $(LIB_SRC) build-fuzz/gen/timeline_assets.c $(LIBS) -pthread || exit 1; done

bench: all
	@./scripts/deps.sh bench
	@$(MAKE) --no-print-directory -C bench B=$(abspath $(B))

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/ktrace \
	    $(DESTDIR)$(BINDIR)
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libktrace.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libktrace.so.$(SOVERSION)
	ln -sf libktrace.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libktrace.so
	install -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/ktrace/
	$(PC_SED) ktrace.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/ktrace.pc
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(COMPLETIONDIR)
	install -m 644 $(B)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(LIBMAN) $(DESTDIR)$(MANDIR)/man3/
	install -m 644 $(COMPLETION) $(DESTDIR)$(COMPLETIONDIR)/ktrace
	$(if $(PYMOD),install -d $(DESTDIR)$(PYTHONDIR) && install -m 644 $(PYMOD) $(DESTDIR)$(PYTHONDIR)/)

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/ktrace
	rm -f $(DESTDIR)$(LIBDIR)/libktrace.* $(DESTDIR)$(LIBDIR)/pkgconfig/ktrace.pc $(DESTDIR)$(BINDIR)/ktrace
	rm -f $(DESTDIR)$(MANDIR)/man1/ktrace.1 $(DESTDIR)$(MANDIR)/man1/ktrace-*.1 \
	    $(DESTDIR)$(MANDIR)/man3/libktrace.3 $(DESTDIR)$(COMPLETIONDIR)/ktrace
	$(if $(PYMOD),rm -f $(DESTDIR)$(PYTHONDIR)/ktrace$(PY_EXT))

clean:
	rm -rf build build-san build-fuzz
