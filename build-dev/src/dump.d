build-dev/src/dump.o: src/dump.c include/ktrace/koff.h \
 include/ktrace/api.h include/ktrace/error.h include/ktrace/input.h \
 src/cli.h include/ktrace/detect.h include/ktrace/out.h \
 include/ktrace/view.h include/ktrace/darwin.h \
 include/ktrace/ktrace_file.h include/ktrace/ring.h \
 include/ktrace/kcdata.h include/ktrace/stream.h include/ktrace/event.h
include/ktrace/koff.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
src/cli.h:
include/ktrace/detect.h:
include/ktrace/out.h:
include/ktrace/view.h:
include/ktrace/darwin.h:
include/ktrace/ktrace_file.h:
include/ktrace/ring.h:
include/ktrace/kcdata.h:
include/ktrace/stream.h:
include/ktrace/event.h:
