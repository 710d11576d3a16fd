# ktrace: build with `make`, test with `make check`.
#
#   make                 library (static + shared), CLI, pkg-config file into build/
#   make check           every test; ends with "N passed, N failed"
#   make check SAN=1     the same under AddressSanitizer + UndefinedBehaviorSanitizer
#                        (into build-san/)
#   make demo            ktrace report on the bundled sample
#   make fuzz            libFuzzer binaries (clang) into build-fuzz/
#   make bench           benchmarks against the reference tools
#   make install PREFIX=/usr/local DESTDIR=

VERSION    := 0.2.0
SOVERSION  := 1
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin

CC      ?= cc
OPT     ?= -O2 -g
ifeq ($(SAN),1)
B       ?= build-san
OPT     := -O1 -g -fno-omit-frame-pointer
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
else
B       ?= build
SANFLAGS :=
endif

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter
CPPFLAGS += -Iinclude -Ilib -D_GNU_SOURCE -DKTRACE_VERSION='"$(VERSION)"'
CFLAGS   += -std=c11 $(OPT) $(WARN) -fPIC -pthread $(SANFLAGS)
LDFLAGS  += -pthread $(SANFLAGS)
LIBS     := -lzstd -lz -lelf -lplist-2.0

LIB_SRC  := $(sort $(wildcard lib/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
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

.PHONY: all deps check test-deps demo install uninstall clean fuzz bench
all: $(STATIC) $(SHARED) $(CLI) $(PCFILE)

# Build dependencies are checked (and installed with apt when missing) once.
$(B)/.deps:
	@./scripts/deps.sh build
	@mkdir -p $(B) && touch $@

$(B)/%.o: %.c $(HEADERS) | $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

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

# Everything the test scripts need, built before they run.
TEST_ALL := all $(TEST_BIN) $(FUZZ_REG) $(EXAMPLE_BIN)

$(B)/.test-deps:
	@./scripts/deps.sh test
	@mkdir -p $(B) && touch $@

check: $(B)/.test-deps
	@$(MAKE) --no-print-directory $(TEST_ALL)
	@B=$(B) CC="$(CC)" SANFLAGS="$(SANFLAGS)" ./tests/run.sh

demo: all
	./$(CLI) report examples/sched_cpu0.trace_pipe_raw | head -40

FUZZ_CC ?= clang
fuzz:
	@mkdir -p build-fuzz
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	    echo "  FUZZ $$n"; \
	    $(FUZZ_CC) $(CPPFLAGS) -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined \
	        -o build-fuzz/$$n $$f $(LIB_SRC) $(LIBS) -pthread || exit 1; done

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

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/ktrace
	rm -f $(DESTDIR)$(LIBDIR)/libktrace.* $(DESTDIR)$(LIBDIR)/pkgconfig/ktrace.pc $(DESTDIR)$(BINDIR)/ktrace

clean:
	rm -rf build build-san build-fuzz
