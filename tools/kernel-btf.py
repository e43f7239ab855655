#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Copy the kernel's own BTF out of an uncompressed kernel image.

    tools/kernel-btf.py IMAGE > vmlinux.btf

Debian's arm64 vmlinuz is a raw Image (no ELF sections to name .BTF), so
the blob is found by its header: magic 0xeB9F, version 1, a 24-byte header,
types first, strings right after them, and more than a megabyte of types
(a module's or a program's BTF is far smaller).  bpftool reads the result:
bpftool btf dump file vmlinux.btf format c > vmlinux.h
"""
import struct
import sys

HEADER = struct.Struct("<HBBIIIII")
MAGIC = b"\x9f\xeb\x01\x00\x18\x00\x00\x00"


def find_btf(image):
    at = image.find(MAGIC)
    while at >= 0:
        _, _, _, hdr_len, type_off, type_len, str_off, str_len = \
            HEADER.unpack_from(image, at)
        end = at + hdr_len + str_off + str_len
        if (type_off == 0 and str_off == type_len and type_len > 1 << 20
                and end <= len(image)):
            return image[at:end]
        at = image.find(MAGIC, at + 1)
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: kernel-btf.py IMAGE > vmlinux.btf")
    with open(sys.argv[1], "rb") as f:
        image = f.read()
    if image[:2] == b"\x1f\x8b":
        sys.exit("kernel-btf.py: %s is gzip-compressed: gunzip it first"
                 % sys.argv[1])
    btf = find_btf(image)
    if btf is None:
        sys.exit("kernel-btf.py: no kernel BTF in %s" % sys.argv[1])
    sys.stdout.buffer.write(btf)


main()
