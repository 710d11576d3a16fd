build-dev/lib/darwin/ktfile_write.o: lib/darwin/ktfile_write.c \
 include/ktrace/ktrace_file.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h lib/common/cursor.h lib/common/grow.h \
 lib/common/outfile.h
include/ktrace/ktrace_file.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/cursor.h:
lib/common/grow.h:
lib/common/outfile.h:
