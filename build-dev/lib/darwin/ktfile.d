build-dev/lib/darwin/ktfile.o: lib/darwin/ktfile.c \
 include/ktrace/detect.h include/ktrace/api.h \
 include/ktrace/ktrace_file.h include/ktrace/error.h \
 include/ktrace/input.h lib/common/cursor.h lib/common/detect.h
include/ktrace/detect.h:
include/ktrace/api.h:
include/ktrace/ktrace_file.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/cursor.h:
lib/common/detect.h:
