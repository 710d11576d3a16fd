build-dev/lib/darwin/kdebug.o: lib/darwin/kdebug.c \
 include/ktrace/detect.h include/ktrace/api.h include/ktrace/darwin.h \
 include/ktrace/error.h include/ktrace/input.h \
 include/ktrace/ktrace_file.h lib/common/cursor.h lib/common/detect.h
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/darwin.h:
include/ktrace/error.h:
include/ktrace/input.h:
include/ktrace/ktrace_file.h:
lib/common/cursor.h:
lib/common/detect.h:
