build-dev/src/convert.o: src/convert.c include/ktrace/tracedat.h \
 include/ktrace/api.h include/ktrace/error.h include/ktrace/input.h \
 src/cli.h include/ktrace/detect.h include/ktrace/out.h
include/ktrace/tracedat.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
src/cli.h:
include/ktrace/detect.h:
include/ktrace/out.h:
