build-dev/lib/tracedat/tracedat_codec.o: lib/tracedat/tracedat_codec.c \
 lib/tracedat/tracedat_int.h include/ktrace/error.h include/ktrace/api.h \
 include/ktrace/input.h include/ktrace/tracedat.h lib/common/grow.h
lib/tracedat/tracedat_int.h:
include/ktrace/error.h:
include/ktrace/api.h:
include/ktrace/input.h:
include/ktrace/tracedat.h:
lib/common/grow.h:
