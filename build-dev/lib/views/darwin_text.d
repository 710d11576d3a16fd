build-dev/lib/views/darwin_text.o: lib/views/darwin_text.c \
 include/ktrace/darwin.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h include/ktrace/ktrace_file.h \
 lib/views/darwin_common.h lib/common/outbuf.h include/ktrace/view.h \
 include/ktrace/ring.h include/ktrace/kcdata.h include/ktrace/koff.h \
 include/ktrace/out.h include/ktrace/stream.h include/ktrace/detect.h \
 include/ktrace/event.h
include/ktrace/darwin.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/ktrace_file.h:
lib/views/darwin_common.h:
lib/common/outbuf.h:
include/ktrace/view.h:
include/ktrace/ring.h:
include/ktrace/kcdata.h:
include/ktrace/koff.h:
include/ktrace/out.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/event.h:
