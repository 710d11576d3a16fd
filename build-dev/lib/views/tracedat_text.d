build-dev/lib/views/tracedat_text.o: lib/views/tracedat_text.c \
 include/ktrace/event.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/kbuffer.h include/ktrace/api.h include/ktrace/tracedat.h \
 include/ktrace/input.h include/ktrace/view.h include/ktrace/darwin.h \
 include/ktrace/ktrace_file.h include/ktrace/ring.h \
 include/ktrace/kcdata.h include/ktrace/koff.h include/ktrace/out.h \
 include/ktrace/stream.h include/ktrace/detect.h lib/engine/pipeline.h \
 lib/engine/tdset.h lib/common/grow.h lib/common/outbuf.h
include/ktrace/event.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/kbuffer.h:
include/ktrace/api.h:
include/ktrace/tracedat.h:
include/ktrace/input.h:
include/ktrace/view.h:
include/ktrace/darwin.h:
include/ktrace/ktrace_file.h:
include/ktrace/ring.h:
include/ktrace/kcdata.h:
include/ktrace/koff.h:
include/ktrace/out.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
lib/engine/pipeline.h:
lib/engine/tdset.h:
lib/common/grow.h:
lib/common/outbuf.h:
