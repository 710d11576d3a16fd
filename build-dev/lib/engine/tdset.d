build-dev/lib/engine/tdset.o: lib/engine/tdset.c lib/engine/tdset.h \
 include/ktrace/error.h include/ktrace/api.h include/ktrace/event.h \
 include/ktrace/input.h include/ktrace/stream.h include/ktrace/detect.h \
 include/ktrace/tracedat.h lib/common/grow.h
lib/engine/tdset.h:
include/ktrace/error.h:
include/ktrace/api.h:
include/ktrace/event.h:
include/ktrace/input.h:
include/ktrace/stream.h:
include/ktrace/detect.h:
include/ktrace/tracedat.h:
lib/common/grow.h:
