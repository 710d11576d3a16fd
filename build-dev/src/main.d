build-dev/src/main.o: src/main.c include/ktrace/version.h \
 include/ktrace/api.h src/cli.h include/ktrace/detect.h \
 include/ktrace/error.h include/ktrace/input.h include/ktrace/out.h
include/ktrace/version.h:
include/ktrace/api.h:
src/cli.h:
include/ktrace/detect.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/out.h:
