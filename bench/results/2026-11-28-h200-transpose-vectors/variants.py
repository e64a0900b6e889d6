"""Hand variants of tmetal's CUDA for the 128x128 f32 transpose tile (tmetal_transpose_7e98288.cu: its CUDA at
7e98288), to find what its remaining gap to Triton costs."""
import re, sys

def vec4_writes(src):
    """Groups of four scalar stores of consecutive registers to consecutive words -> one float4 store."""
    lines = src.split("\n")
    pat = re.compile(r"^(\s*)tg_conversion\[(.*)\] = (tile_20)\[(\d+)\];$")
    out, i = [], 0
    while i < len(lines):
        m = pat.match(lines[i])
        if m and int(m.group(4)) % 4 == 0 and i + 3 < len(lines):
            ms = [pat.match(lines[i + k]) for k in range(4)]
            if all(ms) and [int(x.group(4)) for x in ms] == [int(m.group(4)) + k for k in range(4)]:
                r = int(m.group(4))
                out.append(f"{m.group(1)}*reinterpret_cast<float4*>(&tg_conversion[{m.group(2)}]) = "
                           f"make_float4(tile_20[{r}], tile_20[{r+1}], tile_20[{r+2}], tile_20[{r+3}]);")
                i += 4
                continue
        out.append(lines[i]); i += 1
    return "\n".join(out)

def one_piece(src):
    """The whole 64 KB tile staged at once in dynamic shared memory (what Triton does on an H200)."""
    src = src.replace("__shared__ __align__(16) float tg_conversion[8192];",
                      "extern __shared__ __align__(16) float tg_conversion[];")
    src = src.replace("& 8191]", "& 16383]")
    # [writes 0] sync [if p==0 reads] sync [writes 1] sync [if p==1 reads]
    w0_end = src.index("  __syncthreads();\n  if (((L1_o1 + L1_o0 * 128) >> 13) == 0) {")
    r0_end = src.index("  __syncthreads();\n  int tg_conversion_at0")
    w1_end = src.index("  __syncthreads();\n  if (((L1_o1 + L1_o0 * 128) >> 13) == 1) {")
    r1_end = src.index("\n  }\n", w1_end) + len("\n  }\n")
    writes0, reads0 = src[:w0_end], src[w0_end:r0_end]
    writes1 = src[r0_end + len("  __syncthreads();\n"):w1_end]
    reads0 = reads0.replace("if (((L1_o1 + L1_o0 * 128) >> 13) == 0) {", "{")
    return writes0 + writes1 + reads0 + src[r1_end:]

VARIANTS = {"base": lambda s: s, "vec4w": vec4_writes, "onepiece": one_piece,
            "onepiece_vec4w": lambda s: vec4_writes(one_piece(s))}

if __name__ == "__main__":
    src = open(sys.argv[1]).read()
    for name in sys.argv[3:]:
        open(f"{sys.argv[2]}/{name}.cu", "w").write(VARIANTS[name](src))
