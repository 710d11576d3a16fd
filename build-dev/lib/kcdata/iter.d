build-dev/lib/kcdata/iter.o: lib/kcdata/iter.c lib/common/cursor.h \
 include/ktrace/error.h include/ktrace/api.h lib/kcdata/kcdata_int.h \
 include/ktrace/kcdata.h include/ktrace/input.h
lib/common/cursor.h:
include/ktrace/error.h:
include/ktrace/api.h:
lib/kcdata/kcdata_int.h:
include/ktrace/kcdata.h:
include/ktrace/input.h:
