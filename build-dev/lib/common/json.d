build-dev/lib/common/json.o: lib/common/json.c lib/common/json.h \
 lib/common/outbuf.h
lib/common/json.h:
lib/common/outbuf.h:
