#!/usr/bin/env python3
"""Write tests/unit/data/inflate_words.deflate, the raw DEFLATE stream
test_inflate.c decodes: 2000 words picked by the C library's LCG (x = x *
1103515245 + 12345, word (x >> 16) % 16), joined by spaces, a newline, the
whole block six times (73176 bytes: dynamic Huffman blocks, matches 12196
bytes back, output past the decoder's 64 KiB ring). zlib level 9, raw."""
import os
import zlib

WORDS = [b"alpha", b"bravo", b"charlie", b"delta", b"echo", b"foxtrot", b"golf", b"hotel",
         b"india", b"juliet", b"kilo", b"lima", b"mike", b"november", b"oscar", b"papa"]


def block():
    x, out = 1, []
    for _ in range(2000):
        x = (x * 1103515245 + 12345) & 0x7fffffff
        out.append(WORDS[(x >> 16) % 16])
    return b" ".join(out) + b"\n"


c = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
data = c.compress(block() * 6) + c.flush()
with open(os.path.join(os.path.dirname(__file__), "inflate_words.deflate"), "wb") as f:
    f.write(data)
