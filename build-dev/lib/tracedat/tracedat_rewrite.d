build-dev/lib/tracedat/tracedat_rewrite.o: \
 lib/tracedat/tracedat_rewrite.c include/ktrace/tracedat.h \
 include/ktrace/api.h include/ktrace/error.h include/ktrace/input.h \
 lib/tracedat/tracedat_int.h
include/ktrace/tracedat.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/tracedat/tracedat_int.h:
