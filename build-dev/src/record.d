build-dev/src/record.o: src/record.c include/ktrace/tracefs.h \
 include/ktrace/api.h include/ktrace/error.h include/ktrace/tracedat.h \
 include/ktrace/input.h src/cli.h include/ktrace/detect.h \
 include/ktrace/out.h src/record_cli.h
include/ktrace/tracefs.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/tracedat.h:
include/ktrace/input.h:
src/cli.h:
include/ktrace/detect.h:
include/ktrace/out.h:
src/record_cli.h:
