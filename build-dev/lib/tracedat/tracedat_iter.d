build-dev/lib/tracedat/tracedat_iter.o: lib/tracedat/tracedat_iter.c \
 include/ktrace/kbuffer.h include/ktrace/api.h include/ktrace/tracedat.h \
 include/ktrace/api.h include/ktrace/error.h include/ktrace/input.h \
 lib/common/cursor.h lib/tracedat/tracedat_int.h
include/ktrace/kbuffer.h:
include/ktrace/api.h:
include/ktrace/tracedat.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/cursor.h:
lib/tracedat/tracedat_int.h:
