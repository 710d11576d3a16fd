build-dev/src/info.o: src/info.c include/ktrace/detect.h \
 include/ktrace/api.h include/ktrace/input.h include/ktrace/error.h \
 include/ktrace/ring.h include/ktrace/tracedat.h src/cli.h \
 include/ktrace/out.h src/darwin_cli.h include/ktrace/view.h \
 include/ktrace/darwin.h include/ktrace/ktrace_file.h \
 include/ktrace/kcdata.h include/ktrace/koff.h include/ktrace/stream.h \
 include/ktrace/event.h
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/input.h:
include/ktrace/error.h:
include/ktrace/ring.h:
include/ktrace/tracedat.h:
src/cli.h:
include/ktrace/out.h:
src/darwin_cli.h:
include/ktrace/view.h:
include/ktrace/darwin.h:
include/ktrace/ktrace_file.h:
include/ktrace/kcdata.h:
include/ktrace/koff.h:
include/ktrace/stream.h:
include/ktrace/event.h:
