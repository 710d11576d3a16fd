build-dev/lib/common/outbuf.o: lib/common/outbuf.c lib/common/outbuf.h \
 include/ktrace/out.h include/ktrace/api.h
lib/common/outbuf.h:
include/ktrace/out.h:
include/ktrace/api.h:
