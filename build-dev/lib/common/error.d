build-dev/lib/common/error.o: lib/common/error.c include/ktrace/error.h \
 include/ktrace/api.h lib/common/json.h lib/common/outbuf.h
include/ktrace/error.h:
include/ktrace/api.h:
lib/common/json.h:
lib/common/outbuf.h:
