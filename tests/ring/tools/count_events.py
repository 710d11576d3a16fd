#!/usr/bin/env python3
"""count_events.py FILE SIZE [LONG]: the data records in every SIZE-byte sub-buffer of a
raw ring-buffer dump, read from the record headers as the kernel writes them (type_len
1-28: 4*type_len bytes of data; 0: a length word; 29 padding; 30, 31: 8-byte time
records), little-endian; prints "bad OFFSET" and exits 1 when a walk does not end on
the commit. Independent of ktrace: the tests' count of what a dump holds."""
import struct, sys
data = open(sys.argv[1], 'rb').read()
size = int(sys.argv[2])
long_size = int(sys.argv[3]) if len(sys.argv) > 3 else 8
events = 0
for base in range(0, len(data) - len(data) % size, size):
    page = data[base:base + size]
    commit = struct.unpack_from('<Q' if long_size == 8 else '<I', page, 8)[0] & ((1 << 30) - 1)
    pos, end = 8 + long_size, 8 + long_size + commit
    while pos < end:
        word = struct.unpack_from('<I', page, pos)[0]
        type_len = word & 31
        if type_len == 29:
            if word >> 5 == 0:
                pos = end                  # the rest of the page is padding
                break
            pos += 4 + struct.unpack_from('<I', page, pos + 4)[0]
        elif type_len in (30, 31):
            pos += 8
        elif type_len == 0:
            pos += 4 + struct.unpack_from('<I', page, pos + 4)[0]
            events += 1
        else:
            pos += 4 + 4 * type_len
            events += 1
    if pos != end:
        print('bad', base)
        sys.exit(1)
print(events)
