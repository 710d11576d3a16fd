build-dev/lib/darwin/names.o: lib/darwin/names.c include/ktrace/darwin.h \
 include/ktrace/api.h include/ktrace/error.h include/ktrace/input.h \
 include/ktrace/ktrace_file.h lib/common/grow.h
include/ktrace/darwin.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/ktrace_file.h:
lib/common/grow.h:
