build-dev/lib/engine/source_tracedat.o: lib/engine/source_tracedat.c \
 lib/common/grow.h lib/engine/stream_int.h include/ktrace/error.h \
 include/ktrace/api.h include/ktrace/input.h include/ktrace/stream.h \
 include/ktrace/detect.h include/ktrace/event.h lib/engine/tdset.h \
 include/ktrace/tracedat.h
lib/common/grow.h:
lib/engine/stream_int.h:
include/ktrace/error.h:
include/ktrace/api.h:
include/ktrace/input.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/event.h:
lib/engine/tdset.h:
include/ktrace/tracedat.h:
