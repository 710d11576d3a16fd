build-dev/lib/ring/kbuffer.o: lib/ring/kbuffer.c include/ktrace/kbuffer.h \
 include/ktrace/api.h
include/ktrace/kbuffer.h:
include/ktrace/api.h:
