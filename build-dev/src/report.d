build-dev/src/report.o: src/report.c include/ktrace/detect.h \
 include/ktrace/api.h include/ktrace/ring.h include/ktrace/input.h \
 include/ktrace/error.h src/cli.h include/ktrace/out.h src/darwin_cli.h \
 include/ktrace/view.h include/ktrace/darwin.h \
 include/ktrace/ktrace_file.h include/ktrace/kcdata.h \
 include/ktrace/koff.h include/ktrace/stream.h include/ktrace/event.h \
 src/report_tracedat.h
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/ring.h:
include/ktrace/input.h:
include/ktrace/error.h:
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
src/report_tracedat.h:
