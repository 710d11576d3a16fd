build-dev/lib/views/darwin_common.o: lib/views/darwin_common.c \
 lib/views/darwin_common.h include/ktrace/darwin.h include/ktrace/api.h \
 include/ktrace/error.h include/ktrace/input.h \
 include/ktrace/ktrace_file.h lib/common/outbuf.h
lib/views/darwin_common.h:
include/ktrace/darwin.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/ktrace_file.h:
lib/common/outbuf.h:
