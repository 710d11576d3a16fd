build-dev/lib/tracedat/tracedat_write.o: lib/tracedat/tracedat_write.c \
 include/ktrace/tracedat.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h lib/common/outfile.h lib/tracedat/tracedat_int.h \
 lib/common/grow.h lib/common/cursor.h
include/ktrace/tracedat.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/outfile.h:
lib/tracedat/tracedat_int.h:
lib/common/grow.h:
lib/common/cursor.h:
