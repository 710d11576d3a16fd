build-dev/lib/kcdata/types.o: lib/kcdata/types.c lib/kcdata/kcdata_int.h \
 include/ktrace/kcdata.h include/ktrace/api.h include/ktrace/error.h \
 include/ktrace/input.h
lib/kcdata/kcdata_int.h:
include/ktrace/kcdata.h:
include/ktrace/api.h:
include/ktrace/error.h:
include/ktrace/input.h:
