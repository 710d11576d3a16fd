build-dev/lib/kcdata/writer.o: lib/kcdata/writer.c \
 lib/kcdata/kcdata_int.h include/ktrace/kcdata.h include/ktrace/api.h \
 include/ktrace/error.h include/ktrace/input.h lib/common/cursor.h \
 lib/common/grow.h lib/common/outfile.h
lib/kcdata/kcdata_int.h:
include/ktrace/kcdata.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
lib/common/cursor.h:
lib/common/grow.h:
lib/common/outfile.h:
