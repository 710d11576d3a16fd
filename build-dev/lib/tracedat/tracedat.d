build-dev/lib/tracedat/tracedat.o: lib/tracedat/tracedat.c \
 include/ktrace/detect.h include/ktrace/api.h include/ktrace/tracedat.h \
 include/ktrace/error.h include/ktrace/input.h lib/common/cursor.h \
 lib/common/detect.h lib/tracedat/tracedat_int.h lib/common/grow.h
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/tracedat.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/cursor.h:
lib/common/detect.h:
lib/tracedat/tracedat_int.h:
lib/common/grow.h:
