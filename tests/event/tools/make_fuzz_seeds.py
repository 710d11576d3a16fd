#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seeds for fuzz/fuzz_eventfmt: a real format and the payload of one of its records
(from test_evdiff --dump-first), chosen so that every print-fmt construct the formats
use appears, plus hand-written formats for the helpers no recorded event uses.

usage: make_fuzz_seeds.py OUTDIR FORMATDIR:DUMPDIR...

The seeds also go, as tests/data/eventfmt/seeds.tar.gz, to the differential test
(tests/event/seeds.sh); fuzz/eventfmt_formats.h holds their formats for
fuzz_eventfmt_records.
"""
import glob
import os
import re
import struct
import sys

SYSTEMS = ['ftrace', 'sched', 'kmem', 'timer', 'syscalls', 'kvm', 'kvmmmu', 'fuzz']
HANDLED = {'sched_switch', 'sched_wakeup', 'sched_wakeup_new', 'kmalloc', 'kfree',
           'kmem_cache_alloc', 'kmem_cache_free', 'hrtimer_start', 'hrtimer_expire_entry',
           'sys_enter_futex', 'kernel_stack', 'user_stack', 'print', 'raw_data', 'bprint'}

COMMON = """\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;
"""
HDR = struct.pack('<HBBi', 0, 0x0d, 0x21, 42)


def fmt(name, evid, fields, pf):
    return 'name: %s\nID: %d\nformat:\n%s\n%s\nprint fmt: %s\n' % (name, evid, COMMON, fields, pf)


def loc(off, n):
    return struct.pack('<I', n << 16 | off)


NET = fmt('synth_net', 900, """\tfield:u8 mac[6];\toffset:8;\tsize:6;\tsigned:0;
\tfield:u8 addr4[4];\toffset:14;\tsize:4;\tsigned:0;
\tfield:u8 addr6[16];\toffset:18;\tsize:16;\tsigned:0;
\tfield:u8 uuid[16];\toffset:34;\tsize:16;\tsigned:0;
\tfield:u8 v4mapped[16];\toffset:50;\tsize:16;\tsigned:0;
""", '"%pM %pMR %pmR %pMF %pI4 %pi4 %pI6 %pI6c %pi6 %pI6c %pU %pUb %pUL %pUl %pUB %pK %p", '
          'REC->mac, REC->mac, REC->mac, REC->mac, REC->addr4, REC->addr4, REC->addr6, REC->addr6, '
          'REC->addr6, REC->v4mapped, REC->uuid, REC->uuid, REC->uuid, REC->uuid, REC->uuid, REC->mac, REC->addr4')
NET_P = (HDR + bytes([0, 0x1b, 0x21, 0xaa, 0xbb, 0xcc]) + bytes([192, 168, 1, 20]) +
         bytes([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) + bytes(range(16)) +
         bytes([0] * 10 + [0xff, 0xff, 10, 0, 0, 1]))

DYN = fmt('synth_dyn', 901, """\tfield:__data_loc u8[] buf;\toffset:8;\tsize:4;\tsigned:0;
\tfield:__rel_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;
\tfield:__data_loc char[] str;\toffset:16;\tsize:4;\tsigned:0;
\tfield:__data_loc u8[] sa;\toffset:20;\tsize:4;\tsigned:0;
\tfield:int len;\toffset:24;\tsize:4;\tsigned:1;
""", '"%*ph|%*phC|%*phD|%*phN|%s|%s|%s|%u|%pISpc|%pIS|%s|%.*s|%-10s|%5s", '
          '__get_dynamic_array_len(buf), __get_dynamic_array(buf), REC->len, __get_dynamic_array(buf), '
          '3, __get_dynamic_array(buf), 2, __get_dynamic_array(buf), __get_rel_str(name), __get_str(str), '
          '__print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)), '
          '__get_dynamic_array_len(buf), __get_sockaddr(sa), __get_sockaddr(sa), '
          '__print_hex_str(__get_dynamic_array(buf), 4), REC->len, __get_str(str), __get_str(str), __get_rel_str(name)')
# payload: header 8, locs at 8..24, len at 24, data from 28
_buf = bytes([1, 2, 3, 4, 5, 6])
_name = b'relname\0'
_str = b'a string\0'
_sa = struct.pack('<H', 2) + struct.pack('>H', 8080) + bytes([10, 1, 2, 3]) + bytes(8)
_off = 28
DYN_P = (HDR + loc(_off, len(_buf)) + loc(_off + len(_buf) - 16, len(_name)) +
         loc(_off + len(_buf) + len(_name), len(_str)) +
         loc(_off + len(_buf) + len(_name) + len(_str), len(_sa)) + struct.pack('<i', 5) +
         _buf + _name + _str + _sa)

OPS = fmt('synth_ops', 902, """\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;
\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;
\tfield:unsigned int c;\toffset:16;\tsize:4;\tsigned:0;
\tfield:int vals[4];\toffset:20;\tsize:16;\tsigned:1;
\tfield:unsigned long ptr;\toffset:40;\tsize:8;\tsigned:0;
\tfield:short s;\toffset:48;\tsize:2;\tsigned:1;
\tfield:char ch;\toffset:50;\tsize:1;\tsigned:1;
""", '"%d %d %d %lld %d %u %u %s %c %% %hhx %hd %5.3u %-8d| %08x %#o %#x %+d % d %lu %ld %zu %Lu %llx %s %d %d", '
          'sizeof(int) + sizeof(long) + sizeof(REC->c), REC->a ? -REC->b : ~REC->c, '
          'REC->a << 3 | REC->b >> 1 & 7 ^ 1, (long long)REC->a * 3 / 2 % 5, '
          'REC->a == 1 && REC->b != 2 || !REC->c, (u8)REC->b, (unsigned short)REC->b, '
          '__print_array(REC->vals, 4, sizeof(int)), REC->a, REC->b, REC->s, REC->c, REC->b, REC->c, REC->c, '
          'REC->c, REC->a, REC->a, REC->ptr, REC->b, REC->ptr, REC->ptr, REC->ptr, '
          'REC->a > 0 ? "pos" : "neg", REC->vals[2], ((unsigned int)((REC->c) >> 20))')
OPS_P = (HDR + struct.pack('<iiI', 1, -7, 0x1234567) + struct.pack('<iiii', 10, -20, 30, 40) +
         bytes(4) + struct.pack('<Q', 0xffffffff81002010) + struct.pack('<hb', -3, -5) + bytes(5))

MASKS = fmt('synth_masks', 903, """\tfield:__data_loc unsigned long[] mask;\toffset:8;\tsize:4;\tsigned:0;
\tfield:__data_loc cpumask_t cpus;\toffset:12;\tsize:4;\tsigned:0;
\tfield:unsigned long flags;\toffset:16;\tsize:8;\tsigned:0;
\tfield:int sym;\toffset:24;\tsize:4;\tsigned:1;
""", '"mask=%s cpus=%s flags=%s sym=%s j=%lu dev=%s %s %s", __get_bitmask(mask), __get_cpumask(cpus), '
          '__print_flags(REC->flags, "|", { 0x1, "A" }, { 0x2, "B" }, { (1UL << 4) | 8, "CD" }, { 0, "NONE" }), '
          '__print_symbolic(REC->sym, { 0, "zero" }, { -1, "minus" }, { HRTIMER_RESTART, "restart" }, '
          '{ TIMER_SOFTIRQ, "timer" }), jiffies_to_msecs(REC->flags), jbd2_dev_to_name(REC->sym), '
          'xen_hypercall_name(REC->sym), __print_flags(REC->sym, "", { 1, "x" })')
MASKS_P = (HDR + loc(28, 16) + loc(44, 8) + struct.pack('<Q', 0x3b) + struct.pack('<i', 1) +
           struct.pack('<QQ', 0xf0f0000000000001, 0x8000000000000003) + struct.pack('<Q', 0x00ff00f7))

FGRAPH = fmt('funcgraph_entry', 11, """\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;
\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;
""", '"--> %ps (%u)", (void *)REC->func, REC->depth')
FGRAPH_P = HDR + struct.pack('<QI', 0xffffffff81002000, 3)

REPEATS = fmt('func_repeats', 20, """\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;
\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;
\tfield:u16 count;\toffset:24;\tsize:2;\tsigned:0;
\tfield:u16 top_delta_ts;\toffset:26;\tsize:2;\tsigned:0;
\tfield:u32 bottom_delta_ts;\toffset:28;\tsize:4;\tsigned:0;
""", '" %ps <-%ps\\t(repeats:%u  delta: -%llu)", (void *)REC->ip, (void *)REC->parent_ip, REC->count, '
          '(((u64)(REC)->top_delta_ts << 32) | (REC)->bottom_delta_ts)')
REPEATS_P = HDR + struct.pack('<QQHHI', 0xffffffff81002010, 0xffffffff81001000, 5, 0, 700)

BPRINT = fmt('bprint', 6, """\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;
\tfield:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;
\tfield:u32 buf[];\toffset:24;\tsize:0;\tsigned:0;
""", '"%ps: %s", (void *)REC->ip, REC->fmt')
BPRINT_P = HDR + struct.pack('<QQ', 0xffffffff81003004, 0xffffffff82000000) + struct.pack('<i', -12) + b'world\0'
BPRINT2_P = (HDR + struct.pack('<QQ', 0xffffffff81003004, 0xffffffff82000100) +
             struct.pack('<Q', 0xffffffff81002008) + struct.pack('<i', 3) + b'\x01\x02\x03\0' +
             struct.pack('<Q', 0xffffffff81001000))
BPRINT3_P = HDR + struct.pack('<QQ', 0x1234, 0x999) + struct.pack('<Q', 77)


SCSI = 'name: scsi_dispatch_cmd_start\nID: 354\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:unsigned int host_no;\toffset:8;\tsize:4;\tsigned:0;\n\tfield:unsigned int channel;\toffset:12;\tsize:4;\tsigned:0;\n\tfield:unsigned int id;\toffset:16;\tsize:4;\tsigned:0;\n\tfield:unsigned int lun;\toffset:20;\tsize:4;\tsigned:0;\n\tfield:unsigned int opcode;\toffset:24;\tsize:4;\tsigned:0;\n\tfield:unsigned int cmd_len;\toffset:28;\tsize:4;\tsigned:0;\n\tfield:unsigned int data_sglen;\toffset:32;\tsize:4;\tsigned:0;\n\tfield:unsigned int prot_sglen;\toffset:36;\tsize:4;\tsigned:0;\n\tfield:unsigned char prot_op;\toffset:40;\tsize:1;\tsigned:0;\n\tfield:__data_loc unsigned char[] cmnd;\toffset:44;\tsize:4;\tsigned:0;\n\nprint fmt: "host_no=%u channel=%u id=%u lun=%u data_sgl=%u prot_sgl=%u prot_op=%s cmnd=(%s %s raw=%s)", REC->host_no, REC->channel, REC->id, REC->lun, REC->data_sglen, REC->prot_sglen, __print_symbolic(REC->prot_op, { SCSI_PROT_NORMAL, "SCSI_PROT_NORMAL" }, { SCSI_PROT_READ_INSERT, "SCSI_PROT_READ_INSERT" }, { SCSI_PROT_WRITE_STRIP, "SCSI_PROT_WRITE_STRIP" }, { SCSI_PROT_READ_STRIP, "SCSI_PROT_READ_STRIP" }, { SCSI_PROT_WRITE_INSERT, "SCSI_PROT_WRITE_INSERT" }, { SCSI_PROT_READ_PASS, "SCSI_PROT_READ_PASS" }, { SCSI_PROT_WRITE_PASS, "SCSI_PROT_WRITE_PASS" }), __print_symbolic(REC->opcode, { 0x00, "TEST_UNIT_READY" }, { 0x01, "REZERO_UNIT" }, { 0x03, "REQUEST_SENSE" }, { 0x04, "FORMAT_UNIT" }, { 0x05, "READ_BLOCK_LIMITS" }, { 0x07, "REASSIGN_BLOCKS" }, { 0x07, "INITIALIZE_ELEMENT_STATUS" }, { 0x08, "READ_6" }, { 0x0a, "WRITE_6" }, { 0x0b, "SEEK_6" }, { 0x0f, "READ_REVERSE" }, { 0x10, "WRITE_FILEMARKS" }, { 0x11, "SPACE" }, { 0x12, "INQUIRY" }, { 0x14, "RECOVER_BUFFERED_DATA" }, { 0x15, "MODE_SELECT" }, { 0x16, "RESERVE" }, { 0x17, "RELEASE" }, { 0x18, "COPY" }, { 0x19, "ERASE" }, { 0x1a, "MODE_SENSE" }, { 0x1b, "START_STOP" }, { 0x1c, "RECEIVE_DIAGNOSTIC" }, { 0x1d, "SEND_DIAGNOSTIC" }, { 0x1e, "ALLOW_MEDIUM_REMOVAL" }, { 0x24, "SET_WINDOW" }, { 0x25, "READ_CAPACITY" }, { 0x28, "READ_10" }, { 0x2a, "WRITE_10" }, { 0x2b, "SEEK_10" }, { 0x2b, "POSITION_TO_ELEMENT" }, { 0x2e, "WRITE_VERIFY" }, { 0x2f, "VERIFY" }, { 0x30, "SEARCH_HIGH" }, { 0x31, "SEARCH_EQUAL" }, { 0x32, "SEARCH_LOW" }, { 0x33, "SET_LIMITS" }, { 0x34, "PRE_FETCH" }, { 0x34, "READ_POSITION" }, { 0x35, "SYNCHRONIZE_CACHE" }, { 0x36, "LOCK_UNLOCK_CACHE" }, { 0x37, "READ_DEFECT_DATA" }, { 0x38, "MEDIUM_SCAN" }, { 0x39, "COMPARE" }, { 0x3a, "COPY_VERIFY" }, { 0x3b, "WRITE_BUFFER" }, { 0x3c, "READ_BUFFER" }, { 0x3d, "UPDATE_BLOCK" }, { 0x3e, "READ_LONG" }, { 0x3f, "WRITE_LONG" }, { 0x40, "CHANGE_DEFINITION" }, { 0x41, "WRITE_SAME" }, { 0x42, "UNMAP" }, { 0x43, "READ_TOC" }, { 0x4c, "LOG_SELECT" }, { 0x4d, "LOG_SENSE" }, { 0x53, "XDWRITEREAD_10" }, { 0x55, "MODE_SELECT_10" }, { 0x56, "RESERVE_10" }, { 0x57, "RELEASE_10" }, { 0x5a, "MODE_SENSE_10" }, { 0x5e, "PERSISTENT_RESERVE_IN" }, { 0x5f, "PERSISTENT_RESERVE_OUT" }, { 0x7f, "VARIABLE_LENGTH_CMD" }, { 0xa0, "REPORT_LUNS" }, { 0xa3, "MAINTENANCE_IN" }, { 0xa4, "MAINTENANCE_OUT" }, { 0xa5, "MOVE_MEDIUM" }, { 0xa6, "EXCHANGE_MEDIUM" }, { 0xa8, "READ_12" }, { 0xaa, "WRITE_12" }, { 0xae, "WRITE_VERIFY_12" }, { 0xb0, "SEARCH_HIGH_12" }, { 0xb1, "SEARCH_EQUAL_12" }, { 0xb2, "SEARCH_LOW_12" }, { 0xb8, "READ_ELEMENT_STATUS" }, { 0xb6, "SEND_VOLUME_TAG" }, { 0xea, "WRITE_LONG_2" }, { 0x88, "READ_16" }, { 0x8a, "WRITE_16" }, { 0x8f, "VERIFY_16" }, { 0x93, "WRITE_SAME_16" }, { 0x9e, "SERVICE_ACTION_IN" }, { 0x10, "SAI_READ_CAPACITY_16" }, { 0x12, "SAI_GET_LBA_STATUS" }, { 0x0a, "MI_REPORT_TARGET_PGS" }, { 0x0a, "MO_SET_TARGET_PGS" }, { 0x09, "READ_32" }, { 0x0b, "WRITE_32" }, { 0x0d, "WRITE_SAME_32" }, { 0x85, "ATA_16" }, { 0xa1, "ATA_12" }), scsi_trace_parse_cdb(p, __get_dynamic_array(cmnd), REC->cmd_len), __print_hex(__get_dynamic_array(cmnd), REC->cmd_len)\n'


def scsi_payload(cdb):
    hdr = struct.pack('<HBBi', 0, 0, 0, 9)
    body = struct.pack('<IIIIIIII', 0, 0, 1, 0, cdb[0], len(cdb), 1, 0) + bytes([0, 0, 0, 0])
    return hdr + body + loc(48, len(cdb)) + bytes(cdb)


CDBS = [
    [0x08, 0x1f, 0x12, 0x34, 0x08, 0],                                # READ_6
    [0x2a, 0xe0, 0x80, 0x01, 0x02, 0x03, 0, 0x01, 0x00, 0],           # WRITE_10, top bit set
    [0x41, 0x08, 0, 0, 0, 1, 0, 0, 8, 0],                             # WRITE_SAME unmap
    [0xa8, 0x20, 0, 0, 1, 0, 0x80, 0, 0, 4, 0, 0],                    # READ_12
    [0x93, 0x28, 0, 0, 0, 1, 0x80, 0, 0, 2, 0, 0, 0, 8, 0, 0],        # WRITE_SAME_16
    [0x42, 0, 0, 0, 0, 0, 0, 0, 0x18, 0],                             # UNMAP
    [0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0],        # READ CAPACITY 16
    [0x9e, 0x11] + [0] * 14,                                          # unknown service action
    [0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0, 0x0d, 0x08] + [0] * 9 + [0, 0, 0, 7] + [0] * 4 + [0, 0, 1, 0],
    [0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0, 0x99],                           # unknown 32-byte
    [0x12, 0, 0, 0, 0x24, 0],                                         # INQUIRY: "-"
    [0x88],                                                           # short READ_16
]

BPUTS = fmt('bputs', 15, """\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;
\tfield:const char * str;\toffset:16;\tsize:8;\tsigned:0;
""", '"%ps: %s", (void *)REC->ip, REC->str')
BPUTS_P = HDR + struct.pack('<QQ', 0xffffffff81003004, 0xffffffff82000000)
BPUTS2_P = HDR + struct.pack('<QQ', 0xffffffff81003004, 0xffffffff82000008)

SYNTHETIC = [
    ('ftrace', BPUTS, BPUTS_P), ('ftrace', BPUTS, BPUTS2_P),
    ('fuzz', NET, NET_P), ('fuzz', DYN, DYN_P), ('fuzz', OPS, OPS_P), ('fuzz', MASKS, MASKS_P),
    ('ftrace', FGRAPH, FGRAPH_P), ('ftrace', REPEATS, REPEATS_P), ('ftrace', BPRINT, BPRINT_P),
    ('ftrace', BPRINT, BPRINT2_P), ('ftrace', BPRINT, BPRINT3_P),
] + [('scsi', SCSI, scsi_payload(c)) for c in CDBS]


def seed(system, text, payload, opts=0):
    t = text.encode() if isinstance(text, str) else text
    sysidx = SYSTEMS.index(system) if system in SYSTEMS else 7
    return bytes([opts | sysidx << 2]) + struct.pack('<H', len(t)) + t + payload


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for spec in sys.argv[2:]:
        fdir, ddir = spec.split(':')
        covered = set()
        for path in sorted(glob.glob(os.path.join(fdir, '*', '*', 'format'))):
            text = open(path, 'rb').read()
            m = re.search(rb'^ID:\s*(\d+)', text, re.M)
            if not m:
                continue
            dump = os.path.join(ddir, '%d.bin' % int(m.group(1)))
            if not os.path.exists(dump):
                continue
            system = path.split(os.sep)[-3]
            name = path.split(os.sep)[-2]
            pf = text.split(b'print fmt:', 1)[-1]
            tokens = set(re.findall(rb'__\w+|%[-#0-9.*]*[a-zA-Z]+|\?|\[|sizeof|<<|>>', pf))
            if name not in HANDLED and tokens <= covered:
                continue
            covered |= tokens
            with open(os.path.join(out, 'real-%s-%s' % (system, name)), 'wb') as f:
                f.write(seed(system, text, open(dump, 'rb').read()))
            n += 1
    for i, (system, text, payload) in enumerate(SYNTHETIC):
        name = re.search(r'name: (\w+)', text).group(1)
        for opts in ((1,) if system == 'scsi' else (0, 1)):
            with open(os.path.join(out, 'synth-%s-%d-%d' % (name, i, opts)), 'wb') as f:
                f.write(seed(system, text, payload, opts))
            n += 1
    print('%d seeds' % n)


if __name__ == '__main__':
    main()
