build-dev/src/cli_input.o: src/cli_input.c src/cli.h \
 include/ktrace/detect.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h include/ktrace/out.h
src/cli.h:
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/out.h:
