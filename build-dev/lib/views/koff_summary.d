build-dev/lib/views/koff_summary.o: lib/views/koff_summary.c \
 include/ktrace/view.h include/ktrace/api.h include/ktrace/darwin.h \
 include/ktrace/error.h include/ktrace/input.h \
 include/ktrace/ktrace_file.h include/ktrace/ring.h \
 include/ktrace/kcdata.h include/ktrace/koff.h include/ktrace/out.h \
 include/ktrace/stream.h include/ktrace/detect.h include/ktrace/event.h \
 lib/common/json.h lib/common/outbuf.h
include/ktrace/view.h:
include/ktrace/api.h:
include/ktrace/darwin.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/ktrace_file.h:
include/ktrace/ring.h:
include/ktrace/kcdata.h:
include/ktrace/koff.h:
include/ktrace/out.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/event.h:
lib/common/json.h:
lib/common/outbuf.h:
