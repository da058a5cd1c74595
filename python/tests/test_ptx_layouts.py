"""The GPU emulation's PTX layouts against the ISA's, stated apart from it.

Linea's GPU code is checked on this machine by running it on CPU threads
(linea-emulate-gpu-threads, runtime/LineaGpuEmulation.cpp). The code
generator (lib/GPU) and the emulation were written from the same reading of
the PTX ISA, so a misreading shared by both would pass every differential
test. Here the emulation's warp instructions (ldmatrix, mma.sync m16n8k16,
wgmma m64nNk16 with both operands in shared memory) are called directly,
with no generated code, on operands laid out as the ISA's figures and tables
say: data/ptx_isa_layouts.txt, transcribed from the ISA, which nothing in
Linea reads. Each element of each operand is distinct, so a lane, register
half, row, swizzle or descriptor field read from the wrong place changes the
result.
"""

import ctypes
import multiprocessing
import threading
from pathlib import Path

import numpy as np
import pytest

from linea.runner import build_dir

LAYOUTS = Path(__file__).parent / "data" / "ptx_isa_layouts.txt"


def read_layouts():
    """The file's figures (grids of cells) and tables (rows of dicts)."""
    figures, tables = {}, {}
    lines = iter(LAYOUTS.read_text().splitlines())
    for line in lines:
        words = line.split()
        if line.startswith("figure "):
            name, rows, cols = words[1], int(words[2]), int(words[3])
            grid = [next(lines).split() for _ in range(rows)]
            assert all(len(row) == cols for row in grid), name
            figures[name] = grid
        elif line.startswith("table "):
            rows = []
            for row in lines:
                if not row.strip():
                    break
                rows.append(dict(zip(words[2:], row.split())))
            tables[words[1]] = rows
    return figures, tables


FIGURES, TABLES = read_layouts()


def owners(figure):
    """{(lane, element): (row, col)} from a figure's cells `T<lane>:<x><i>`."""
    where = {}
    for r, row in enumerate(FIGURES[figure]):
        for c, cell in enumerate(row):
            lane, element = cell[1:].split(":")
            key = (int(lane), int(element.lstrip("abcd")))
            assert key not in where, f"{figure}: {cell} twice"
            where[key] = (r, c)
    return where


def accumulator_owners(n):
    """wgmma's accumulator figure widened to N columns: the ISA's figure
    repeats every 8 columns with the next four elements (transcribed at
    N = 24, three repeats)."""
    base = owners("wgmma_m64n24k16_d")
    return {(thread, element + 4 * block): (r, c + 8 * block)
            for (thread, element), (r, c) in base.items() if c < 8
            for block in range(n // 8)}


# -- running the emulation's entry points -----------------------------------

def emulation():
    lib = ctypes.CDLL(str(build_dir() / "lib" / "libLineaGpuEmulation.so"))
    i64 = ctypes.c_int64
    for name, arity in [("linea_gpu_emu_begin_block", 1),
                        ("linea_gpu_emu_ldmatrix", 5),
                        ("linea_gpu_emu_mma_m16n8k16", 5),
                        ("linea_gpu_emu_shared_window", 2),
                        ("linea_gpu_emu_wgmma", 8)]:
        getattr(lib, name).argtypes = [i64] * arity
        getattr(lib, name).restype = None
    return lib


def run_block(threads, call):
    """`call(thread)` on `threads` OS threads at once, as one block (the
    warp instructions wait for their warp at barriers; ctypes lets go of
    the GIL during each call)."""
    workers = [threading.Thread(target=call, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def _child(connection, function, args):
    connection.send(function(*args))


def in_child(function, *args):
    """`function(*args)` in a forked process: the emulation ends its process
    on a malformed instruction (its other threads wait at barriers), which
    must fail this test, not end pytest."""
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe()
    process = context.Process(target=_child, args=(child, function, args))
    process.start()
    child.close()  # so that the child's end closing ends recv
    if not parent.poll(300):
        process.kill()
        pytest.fail("the emulation did not finish in 300 s")
    try:
        got = parent.recv()
    except EOFError:
        got = None
    process.join()
    assert got is not None, f"the emulation's process ended with {process.exitcode}"
    return got


def aligned(nbytes, alignment=1024):
    """A zeroed buffer of `nbytes` at an `alignment`-byte boundary (the
    wgmma swizzle atoms are 1024-byte aligned)."""
    raw = np.zeros(nbytes + alignment, np.uint8)
    offset = -raw.ctypes.data % alignment
    return raw[offset:offset + nbytes]


def as_16bit(values, bf16):
    """float32 values (small integers: exact in both types) as 16-bit bits."""
    if bf16:
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return values.astype(np.float16).view(np.uint16)


def small_integers(rng, shape):
    return rng.integers(-8, 9, shape).astype(np.float32)


# -- ldmatrix ----------------------------------------------------------------

def ldmatrix_case(tiles, transpose):
    lib = emulation()
    rng = np.random.default_rng(7 + tiles + 10 * transpose)
    matrices = rng.permutation(65536)[:4 * 64].astype(np.uint16).reshape(4, 8, 8)
    # The 32 rows at shuffled places: each lane's address must be used.
    slots = rng.permutation(33)
    memory = np.zeros((33, 8), np.uint16)
    memory[slots[32]] = 0xdead  # what lanes past the `tiles` matrices point at
    for m in range(4):
        for r in range(8):
            memory[slots[8 * m + r]] = matrices[m, r]
    row_of = {}
    for entry in TABLES["ldmatrix_addresses"]:
        first, last = (int(t[1:]) for t in entry["threads"].split("-"))
        for place, thread in enumerate(range(first, last + 1)):
            row_of[thread] = (int(entry["matrix"]), place)
    out = np.zeros((32, 8), np.uint16)
    lib.linea_gpu_emu_begin_block(32)

    def lane(t):
        m, r = row_of[t]
        slot = slots[8 * m + r] if m < tiles else slots[32]
        lib.linea_gpu_emu_ldmatrix(t, tiles, int(transpose),
                                   memory[slot].ctypes.data, out[t].ctypes.data)

    run_block(32, lane)
    return matrices, out


@pytest.mark.parametrize("tiles", [1, 2, 4])
@pytest.mark.parametrize("transpose", [False, True])
def test_ldmatrix_delivers_the_isa_fragments(tiles, transpose):
    matrices, out = in_child(ldmatrix_case, tiles, transpose)
    for m in range(tiles):
        for (lane, half), (r, c) in owners("ldmatrix_m8n8_b16").items():
            want = matrices[m, c, r] if transpose else matrices[m, r, c]
            assert out[lane, 2 * m + half] == want, (
                f"x{tiles}{' .trans' if transpose else ''}: lane {lane} register "
                f"{m} half {half} should hold matrix {m} element "
                f"{(c, r) if transpose else (r, c)}")


# -- mma.sync.m16n8k16 -------------------------------------------------------

def registers(matrix, figure, lanes, count, bf16):
    """Each lane's `count` elements of `matrix` by the figure, as 16-bit
    bits in order (two per 32-bit register, the lower element low)."""
    bits = as_16bit(matrix, bf16)
    where = owners(figure)
    regs = np.zeros((lanes, count), np.uint16)
    for (lane, element), (r, c) in where.items():
        regs[lane, element] = bits[r, c]
    return regs


def mma_case(bf16):
    lib = emulation()
    rng = np.random.default_rng(11 + bf16)
    a, b, c = (small_integers(rng, shape) for shape in [(16, 16), (16, 8), (16, 8)])
    a_regs = registers(a, "mma_m16n8k16_a", 32, 8, bf16)
    b_regs = registers(b, "mma_m16n8k16_b", 32, 4, bf16)
    acc = np.zeros((32, 4), np.float32)
    for (lane, element), (r, col) in owners("mma_m16n8k16_c").items():
        acc[lane, element] = c[r, col]
    lib.linea_gpu_emu_begin_block(32)
    run_block(32, lambda t: lib.linea_gpu_emu_mma_m16n8k16(
        t, bf16, a_regs[t].ctypes.data, b_regs[t].ctypes.data, acc[t].ctypes.data))
    return a, b, c, acc


@pytest.mark.parametrize("bf16", [1, 0], ids=["bf16", "f16"])
def test_mma_m16n8k16_reads_and_writes_the_isa_fragments(bf16):
    a, b, c, acc = in_child(mma_case, bf16)
    want = c + a @ b  # small integers: exact in f32 in any order
    for (lane, element), (r, col) in owners("mma_m16n8k16_c").items():
        assert acc[lane, element] == want[r, col], (
            f"lane {lane} c{element} should be D{(r, col)}")


# -- wgmma.mma_async.m64nNk16 from shared memory -----------------------------

def byte_offset(major, mn, k, lbo, sbo):
    """Element (mn, k)'s byte offset in the canonical 128B layout, before the
    swizzle, by the table's parts."""
    strides = {"LBO": lbo, "SBO": sbo}
    offset = 0
    for dim, index in [("mn", mn), ("k", k)]:
        for part in (p for p in TABLES["canonical_128b"]
                     if p["major"] == major and p["dim"] == dim):
            size = index + 1 if part["size"] == "rest" else int(part["size"])
            stride = strides.get(part["stride"]) or int(part["stride"])
            offset += (index % size) * stride
            index //= size
    return offset


def swizzled(offset):
    """The 16-byte unit of `offset`'s 128-byte row moved as the swizzle
    figure says (the row is bits 7-9, the unit bits 4-6)."""
    row, unit = (offset >> 7) & 7, (offset >> 4) & 7
    place = [int(x) for x in FIGURES["swizzle_128b"][row]].index(unit)
    return offset & ~0x70 | place << 4


def lay_out(matrix, major, lbo, sbo, bf16):
    """`matrix` ([mn, k]) in shared memory as the ISA lays it out."""
    bits = as_16bit(matrix, bf16)
    rows, depth = matrix.shape
    end = max(byte_offset(major, x, k, lbo, sbo)
              for x in range(rows) for k in range(depth)) + 2
    buffer = aligned(-(-end // 1024) * 1024)
    for x in range(rows):
        for k in range(depth):
            place = swizzled(byte_offset(major, x, k, lbo, sbo))
            buffer[place:place + 2] = bits[x, k:k + 1].view(np.uint8)
    return buffer


def descriptor(address, lbo, sbo):
    """A 128B-swizzle descriptor by the descriptor table."""
    values = {"start_address": address, "leading_byte_offset": lbo,
              "stride_byte_offset": sbo, "base_offset": 0, "layout_type": 1}
    bits = 0
    for field in TABLES["wgmma_descriptor"]:
        unit, width = int(field["unit_bytes"]), int(field["bits"])
        value = values[field["field"]] // unit & ((1 << width) - 1)
        bits |= value << int(field["first_bit"])
    return bits


def wgmma_case(n, depth, a_major, b_major, k_step, bf16):
    """D (64 x n) += A[:, 16 k_step:][:, :16] B[:, 16 k_step:][:, :16]^T,
    A (64 x depth) and B (n x depth) laid out `a_major` / `b_major` with
    distinct LBO and SBO, the descriptors' starts advanced to the step."""
    lib = emulation()
    rng = np.random.default_rng(n + depth + k_step + 5 * bf16)
    a, b = small_integers(rng, (64, depth)), small_integers(rng, (n, depth))
    c = small_integers(rng, (64, n))
    strides = {"K": (16, 2048), "MN": (1024, 3072)}  # (LBO, SBO) bytes
    # One block's shared memory is one window of under 256 KB, which is why
    # the descriptor's 18 address bits name a place in it: both operands go
    # in one arena, as in a block (two separate host buffers can alias
    # modulo 2^18, and the emulation rightly refuses the address then).
    layouts = [(matrix, major, lay_out(matrix, major, *strides[major], bf16))
               for matrix, major in [(a, a_major), (b, b_major)]]
    arena = aligned(sum(layout.nbytes for _, _, layout in layouts))
    operands, used = [], 0
    for _, major, layout in layouts:
        lbo, sbo = strides[major]
        buffer = arena[used:used + layout.nbytes]
        buffer[:] = layout
        used += layout.nbytes
        # The k-th group of 16: 32 bytes on along a K-major row, two
        # 8-row groups (2 SBO) on in an MN-major one.
        start = 32 * k_step if major == "K" else 2 * sbo * k_step
        operands.append((buffer, descriptor(buffer.ctypes.data + start, lbo, sbo)))
    (a_buffer, a_desc), (b_buffer, b_desc) = operands
    acc = np.zeros((128, n // 2), np.float32)
    where = accumulator_owners(n)
    for (thread, element), (r, col) in where.items():
        acc[thread, element] = c[r, col]
    lib.linea_gpu_emu_begin_block(128)
    for buffer, _ in operands:
        lib.linea_gpu_emu_shared_window(buffer.ctypes.data, buffer.nbytes)
    run_block(128, lambda t: lib.linea_gpu_emu_wgmma(
        t, n, bf16, int(a_major == "MN"), int(b_major == "MN"), a_desc, b_desc,
        acc[t].ctypes.data))
    ks = slice(16 * k_step, 16 * k_step + 16)
    return c + a[:, ks] @ b[:, ks].T, acc


@pytest.mark.parametrize("n, depth, a_major, b_major, k_step, bf16", [
    (24, 64, "K", "K", 0, 1),
    (24, 64, "K", "K", 3, 0),    # the last 32 bytes of each 128-byte row
    (128, 16, "MN", "MN", 0, 1), # B spans two 64-wide atoms: LBO
    (16, 32, "MN", "K", 1, 1),   # the second 16 of K: 2 SBO on
    (8, 64, "K", "MN", 2, 0),
])
def test_wgmma_reads_the_isa_shared_layouts(n, depth, a_major, b_major, k_step, bf16):
    want, acc = in_child(wgmma_case, n, depth, a_major, b_major, k_step, bf16)
    wrong = [(thread, element, (r, col))
             for (thread, element), (r, col) in accumulator_owners(n).items()
             if acc[thread, element] != want[r, col]]
    assert not wrong, (f"{len(wrong)} of {64 * n} accumulators differ, e.g. thread "
                       f"{wrong[0][0]} d{wrong[0][1]} should be D{wrong[0][2]}")


def test_the_transcription_is_complete():
    """Every lane holds each of its elements once, in every figure."""
    assert len(owners("mma_m16n8k16_a")) == 32 * 8
    assert len(owners("mma_m16n8k16_b")) == 32 * 4
    assert len(owners("mma_m16n8k16_c")) == 32 * 4
    assert len(owners("ldmatrix_m8n8_b16")) == 32 * 2
    assert len(owners("wgmma_m64n24k16_d")) == 128 * 12
    assert accumulator_owners(24) == owners("wgmma_m64n24k16_d")
    assert len(accumulator_owners(256)) == 128 * 128
    for row in FIGURES["swizzle_128b"]:
        assert sorted(int(x) for x in row) == list(range(8))
