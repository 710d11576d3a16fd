build-dev/lib/koff/fmt.o: lib/koff/fmt.c lib/koff/fmt.h
lib/koff/fmt.h:
