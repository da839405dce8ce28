"""Writes the first gpu.binary object's bytes (the `bin = "..."` string of
qmat-opt's printed IR) to argv[1]. MLIR prints a string attribute with
llvm::printEscapedString: a backslash as two backslashes, printable
characters as they are, everything else (and the quote) as a backslash and
two hex digits."""
import sys

text = sys.stdin.buffer.read()
start = text.find(b'bin = "')
if start < 0:
    sys.exit('no gpu.binary object with a bin = "..." payload on stdin')
i = start + len(b'bin = "')
out = bytearray()
while text[i:i + 1] != b'"':
    if text[i:i + 1] == b"\\":
        if text[i + 1:i + 2] == b"\\":
            out.append(0x5C)
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    else:
        out.append(text[i])
        i += 1
with open(sys.argv[1], "wb") as f:
    f.write(out)
