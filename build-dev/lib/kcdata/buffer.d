build-dev/lib/kcdata/buffer.o: lib/kcdata/buffer.c \
 include/ktrace/detect.h include/ktrace/api.h lib/common/cursor.h \
 include/ktrace/error.h lib/common/detect.h lib/kcdata/kcdata_int.h \
 include/ktrace/kcdata.h include/ktrace/input.h
include/ktrace/detect.h:
include/ktrace/api.h:
lib/common/cursor.h:
include/ktrace/error.h:
lib/common/detect.h:
lib/kcdata/kcdata_int.h:
include/ktrace/kcdata.h:
include/ktrace/input.h:
