build-dev/lib/views/kcdata_summary.o: lib/views/kcdata_summary.c \
 include/ktrace/kcdata.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h lib/common/json.h lib/common/outbuf.h \
 include/ktrace/view.h include/ktrace/darwin.h \
 include/ktrace/ktrace_file.h include/ktrace/ring.h include/ktrace/koff.h \
 include/ktrace/out.h include/ktrace/stream.h include/ktrace/detect.h \
 include/ktrace/event.h
include/ktrace/kcdata.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/json.h:
lib/common/outbuf.h:
include/ktrace/view.h:
include/ktrace/darwin.h:
include/ktrace/ktrace_file.h:
include/ktrace/ring.h:
include/ktrace/koff.h:
include/ktrace/out.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/event.h:
