build-dev/src/report_tracedat.o: src/report_tracedat.c \
 include/ktrace/detect.h include/ktrace/api.h include/ktrace/input.h \
 include/ktrace/error.h include/ktrace/tracedat.h src/cli.h \
 include/ktrace/out.h src/report_tracedat.h include/ktrace/view.h \
 include/ktrace/darwin.h include/ktrace/ktrace_file.h \
 include/ktrace/ring.h include/ktrace/kcdata.h include/ktrace/koff.h \
 include/ktrace/stream.h include/ktrace/event.h
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/input.h:
include/ktrace/error.h:
include/ktrace/tracedat.h:
src/cli.h:
include/ktrace/out.h:
src/report_tracedat.h:
include/ktrace/view.h:
include/ktrace/darwin.h:
include/ktrace/ktrace_file.h:
include/ktrace/ring.h:
include/ktrace/kcdata.h:
include/ktrace/koff.h:
include/ktrace/stream.h:
include/ktrace/event.h:
