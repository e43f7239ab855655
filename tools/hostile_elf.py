#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hostile_elf.py VARIANT IN OUT: a copy of the ELF64 program IN with hostile
symbol tables or DWARF added, written to OUT (mode 0755).  The program still
runs as before: only sections no loader reads are added or rewritten, and
the new section header table goes at the end of the file.

Variants (issue 23), each against what clocktrace reads at report time:
  deep-scopes    .debug_info rewritten: one unit whose code sits inside
                 60,000 nested DW_TAG_lexical_block's (a recursive scope
                 walk overflows its stack)
  many-symtabs   one symbol table listed by 20 section headers, with 2,000
                 functions whose names are 32 KiB each (they share bytes)
  entsize-one    40,000 FUNC and OBJECT symbols listed by 64 headers with
                 sh_entsize 1, whose names run to the end of a 512 KiB
                 string table with no NUL at its end: each name looked up
                 costs a scan of the table
  zlib-bomb      .debug_str SHF_COMPRESSED: zlib of 256 MiB of zeros
  tiny           no change but the section header table moved to the end

Tests build these into their temporary directory: nothing here is kept.
"""
import os
import struct
import sys
import zlib

SHT_SYMTAB, SHT_STRTAB = 2, 3
SHF_COMPRESSED = 0x800
STT_OBJECT, STT_FUNC, STB_GLOBAL = 1, 2, 1
ELFCOMPRESS_ZLIB = 1
SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")


class Elf:
    """An ELF64 little-endian file whose sections can be added or replaced."""

    def __init__(self, data):
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            sys.exit("hostile_elf: not an ELF64 little-endian file")
        self.data = bytearray(data)
        (self.shoff,) = struct.unpack_from("<Q", data, 0x28)
        self.shentsize, self.shnum, self.shstrndx = \
            struct.unpack_from("<HHH", data, 0x3a)
        self.shdrs = [list(SHDR.unpack_from(data, self.shoff + i * SHDR.size))
                      for i in range(self.shnum)]
        self.names = bytearray(self.section(self.shstrndx))

    def section(self, idx):
        h = self.shdrs[idx]
        return bytes(self.data[h[4]:h[4] + h[5]])

    def name(self, idx):
        off = self.shdrs[idx][0]
        return self.names[off:self.names.index(b"\0", off)].decode()

    def index(self, name):
        for i in range(self.shnum):
            if self.name(i) == name:
                return i
        sys.exit("hostile_elf: no section " + name)

    def append(self, blob, align=8):
        """Puts blob at the end of the file: its offset."""
        self.data += b"\0" * (-len(self.data) % align)
        off = len(self.data)
        self.data += blob
        return off

    def replace(self, idx, blob, align=1):
        h = self.shdrs[idx]
        h[4], h[5] = self.append(blob, align), len(blob)

    def add(self, name, sh_type, off, size, link=0, info=0, align=8,
            entsize=0, flags=0):
        name_off = len(self.names)
        self.names += name.encode() + b"\0"
        self.shdrs.append([name_off, sh_type, flags, 0, off, size, link,
                           info, align, entsize])
        self.shnum += 1
        return self.shnum - 1

    def write(self, path):
        self.replace(self.shstrndx, bytes(self.names))
        shoff = self.append(b"".join(SHDR.pack(*h) for h in self.shdrs))
        struct.pack_into("<Q", self.data, 0x28, shoff)
        struct.pack_into("<H", self.data, 0x3c, self.shnum)
        with open(path, "wb") as f:
            f.write(self.data)
        os.chmod(path, 0o755)


def uleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7f, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


# DWARF 5 constants used below.
DW_TAG_compile_unit, DW_TAG_subprogram, DW_TAG_lexical_block = 0x11, 0x2e, 0xb
DW_AT_name, DW_AT_stmt_list, DW_AT_low_pc, DW_AT_high_pc = 0x3, 0x10, 0x11, 0x12
DW_AT_comp_dir = 0x1b
DW_FORM_addr, DW_FORM_data4, DW_FORM_data8 = 0x1, 0x6, 0x7
DW_FORM_string, DW_FORM_sec_offset = 0x8, 0x17
NESTING = 60000
ENTSIZE_SYMS, ENTSIZE_HEADERS = 40000, 64


def abbrev(code, tag, attrs):
    out = uleb(code) + uleb(tag) + b"\x01"	# every one has children
    for at, form in attrs:
        out += uleb(at) + uleb(form)
    return out + b"\0\0"


def deep_scopes(elf):
    """One unit over all of .text, its code inside NESTING blocks."""
    text = elf.shdrs[elf.index(".text")]
    lo, size = text[3], text[5]
    abbrevs = abbrev(1, DW_TAG_compile_unit, [
        (DW_AT_name, DW_FORM_string), (DW_AT_comp_dir, DW_FORM_string),
        (DW_AT_low_pc, DW_FORM_addr), (DW_AT_high_pc, DW_FORM_data8),
        (DW_AT_stmt_list, DW_FORM_sec_offset)])
    abbrevs += abbrev(2, DW_TAG_subprogram, [
        (DW_AT_name, DW_FORM_string), (DW_AT_low_pc, DW_FORM_addr),
        (DW_AT_high_pc, DW_FORM_data8)])
    abbrevs += abbrev(3, DW_TAG_lexical_block, [
        (DW_AT_low_pc, DW_FORM_addr), (DW_AT_high_pc, DW_FORM_data4)])
    abbrevs += b"\0"
    dies = uleb(1) + b"nested.c\0/hostile\0" + struct.pack("<QQI", lo, size, 0)
    dies += uleb(2) + b"main\0" + struct.pack("<QQ", lo, size)
    dies += (uleb(3) + struct.pack("<QI", lo, size)) * NESTING
    dies += b"\0" * (NESTING + 2)
    unit = struct.pack("<HBBI", 5, 1, 8, 0) + dies
    elf.replace(elf.index(".debug_abbrev"), abbrevs)
    elf.replace(elf.index(".debug_info"), struct.pack("<I", len(unit)) + unit)


def text_symbol(elf, name):
    """st_value of the named symbol in .symtab."""
    symtab = elf.index(".symtab")
    strtab = elf.section(elf.shdrs[symtab][6])
    data = elf.section(symtab)
    for i in range(len(data) // SYM.size):
        sym = SYM.unpack_from(data, i * SYM.size)
        if strtab[sym[0]:strtab.index(b"\0", sym[0])] == name:
            return sym[4], sym[3]
    sys.exit("hostile_elf: no symbol " + name.decode())


def many_symtabs(elf):
    """.symtab grown by 2,000 long names, then listed 19 more times."""
    symtab = elf.index(".symtab")
    old = elf.shdrs[symtab]
    strtab = elf.section(old[6])
    value, shndx = text_symbol(elf, b"_start")
    base = len(strtab)
    strtab += b"f" * (32768 + 2000) + b"\0"
    syms = elf.section(symtab) + b"".join(
        SYM.pack(base + i, (STB_GLOBAL << 4) | STT_FUNC, 0, shndx, value, 1)
        for i in range(2000))
    old[4], old[5] = elf.append(syms), len(syms)
    str_idx = elf.add(".strtab.long", SHT_STRTAB, elf.append(strtab, 1),
                      len(strtab), align=1)
    old[6] = str_idx
    for i in range(19):
        elf.add(".symtab.%d" % i, SHT_SYMTAB, old[4], old[5], link=str_idx,
                info=old[7], entsize=SYM.size)


def entsize_one(elf):
    """Symbols named near the end of a string table with no final NUL,
    listed with sh_entsize 1 by ENTSIZE_HEADERS headers, the first of them
    before .symtab: each name looked up is a scan to the end of the table."""
    value, shndx = text_symbol(elf, b"main")
    strtab = b"\0" + b"o" * (512 << 10)
    syms = SYM.pack(0, 0, 0, 0, 0, 0) + b"".join(
        SYM.pack(1 + i, (STB_GLOBAL << 4) | (STT_FUNC, STT_OBJECT)[i & 1],
                 0, shndx, value, 8)
        for i in range(ENTSIZE_SYMS))
    str_idx = elf.add(".strtab.obj", SHT_STRTAB, elf.append(strtab, 1),
                      len(strtab), align=1)
    sym_off = elf.append(syms)
    first = elf.index(".symtab")
    for i in range(ENTSIZE_HEADERS):
        idx = elf.add(".symtab.obj%d" % i, SHT_SYMTAB, sym_off, len(syms),
                      link=str_idx, info=1, entsize=1)
    # Nothing links to .symtab: it can trade places with the last one.
    elf.shdrs[first], elf.shdrs[idx] = elf.shdrs[idx], elf.shdrs[first]


def zlib_bomb(elf):
    """.debug_str inflating to 256 MiB, stored as a few hundred KiB."""
    size = 256 << 20
    z = zlib.compressobj(9)
    chunk = bytes(16 << 20)
    blob = bytearray(struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, size, 1))
    for _ in range(size // len(chunk)):
        blob += z.compress(chunk)
    blob += z.flush()
    idx = elf.index(".debug_str")
    elf.replace(idx, bytes(blob), 8)
    h = elf.shdrs[idx]
    h[2] |= SHF_COMPRESSED
    h[8] = 8


VARIANTS = {
    "deep-scopes": deep_scopes,
    "many-symtabs": many_symtabs,
    "entsize-one": entsize_one,
    "zlib-bomb": zlib_bomb,
    "tiny": lambda elf: None,
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in VARIANTS:
        sys.exit("usage: hostile_elf.py {%s} IN OUT" % "|".join(VARIANTS))
    with open(sys.argv[2], "rb") as f:
        elf = Elf(f.read())
    VARIANTS[sys.argv[1]](elf)
    elf.write(sys.argv[3])


if __name__ == "__main__":
    main()
