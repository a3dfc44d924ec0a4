#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# An independent model of laige's particle system (seed 001) for both backends, written from the
# specification, not from Mote's C++: it prints the state hashes that tests/lockstep pins.
#   python3 tests/lockstep/reference/lockstep_reference.py
import struct

M64 = (1 << 64) - 1


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Prng:
    def __init__(self, seed):
        self.seed = seed
        st, self.p1 = splitmix(seed)
        st, self.p2 = splitmix(st)

    def u64(self):
        s0, s1 = self.p1, self.p2
        r = (rotl((s0 * 5) & M64, 7) * 9) & M64
        s1 ^= s0
        self.p1 = rotl(s0, 24) ^ s1 ^ ((s1 << 16) & M64)
        self.p2 = rotl(s1, 37)
        return r

    def tap24(self):
        return (self.u64() >> 32) >> 8


def round_half_even_div(num, den):  # den > 0, exact rational rounding
    q, r = divmod(num, den)  # floor division
    if 2 * r > den or (2 * r == den and q % 2 == 1):
        q += 1
    return q


def sat32(v):
    return max(-(1 << 31), min((1 << 31) - 1, v))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


class Fpx:  # values are raw ints
    @staticmethod
    def num(x):
        return round_half_even_div(int(x * (1 << 20)), 1 << 4)  # exact for the dyadic inputs used

    @staticmethod
    def add(a, b):
        return sat32(a + b)

    @staticmethod
    def lerp(a, b, u):
        return a + round_half_even_div((b - a) * u, 1 << 24)

    @staticmethod
    def bits(a):
        return a & 0xFFFFFFFF

    @staticmethod
    def step(a):  # clamp to +-2047 first, then round half even
        a = max(-2047 * 65536, min(2047 * 65536, a))
        return round_half_even_div(a, 65536)

    @staticmethod
    def xy16(x, y):
        return round_half_even_div(x + y, 1 << 12)

    @staticmethod
    def tofloat(a):
        return f32(a / 65536.0)


class Fp32:
    @staticmethod
    def num(x):
        return f32(x)

    @staticmethod
    def add(a, b):
        return f32(a + b)  # exact in double for these magnitudes, then one rounding

    @staticmethod
    def lerp(a, b, u):
        return f32(a + (b - a) * (u / float(1 << 24)))

    @staticmethod
    def bits(a):
        return f32bits(a)

    @staticmethod
    def step(a):
        a = max(-2047.0, min(2047.0, a))
        return round_half_even_div(int(a * (1 << 30)), 1 << 30)  # a is a float: exact

    @staticmethod
    def xy16(x, y):
        return round_half_even_div(int(f32(f32(x + y) * 16) * (1 << 30)), 1 << 30)

    @staticmethod
    def tofloat(a):
        return a


class Fnv:
    def __init__(self):
        self.h = 0xCBF29CE484222325

    def byte(self, b):
        self.h ^= b
        self.h = (self.h * 0x100000001B3) & M64

    def u32(self, v):
        for i in range(4):
            self.byte((v >> (8 * i)) & 0xFF)

    def u64(self, v):
        for i in range(8):
            self.byte((v >> (8 * i)) & 0xFF)


def scenario(B, seed):
    cap = 96
    E = [
        dict(origin=(10, 20), depth=2.5, vmin=(-0.5, -0.25), vmax=(0.5, 0.75), life=(10, 40),
             size=(0.25, 1.0), tint=(255, 180, 60, 255), fade=8, rate=3),
        dict(origin=(-5, 0), depth=-1, vmin=(0, 0.125), vmax=(0.25, 0.5), life=(5, 5),
             size=(1, 1), tint=(80, 80, 255, 200), fade=0, rate=1),
        dict(origin=(0, 0), depth=0, vmin=(-2, -2), vmax=(2, 2), life=(1, 60), size=(0, 2),
             tint=(255, 255, 255, 128), fade=30, rate=0),
    ]
    prng = Prng(seed)
    pool = []
    spawned = 0
    dropped = 0

    def spawn(e, count):
        nonlocal spawned, dropped
        for _ in range(count):
            if len(pool) == cap:
                dropped += 1
                continue
            vx = B.lerp(B.num(e["vmin"][0]), B.num(e["vmax"][0]), prng.tap24())
            vy = B.lerp(B.num(e["vmin"][1]), B.num(e["vmax"][1]), prng.tap24())
            lo, hi = e["life"]
            life = lo + (((hi - lo + 1) * prng.tap24()) >> 24)
            size = B.lerp(B.num(e["size"][0]), B.num(e["size"][1]), prng.tap24())
            pool.append([B.num(e["origin"][0]), B.num(e["origin"][1]), B.num(e["depth"]), vx, vy,
                         0, life, size, e["tint"], e["fade"]])
            spawned += 1

    def update():
        i = 0
        while i < len(pool):
            p = pool[i]
            p[5] += 1
            p[0] = B.add(p[0], p[3])
            p[1] = B.add(p[1], p[4])
            if p[5] >= p[6]:
                last = pool.pop()
                if i < len(pool):
                    pool[i] = last
            else:
                i += 1
        for e in E:
            if e["rate"]:
                spawn(e, e["rate"])

    for t in range(300):
        if t % 50 == 0:
            spawn(E[2], 40)
        update()

    h = Fnv()
    h.u32(len(pool))
    h.u64(spawned)
    h.u64(dropped)
    h.u64(prng.seed)
    h.u64(prng.p1)
    h.u64(prng.p2)
    for p in pool:
        for v in (p[0], p[1], p[2], p[3], p[4]):
            h.u32(B.bits(v))
        h.u32(p[5])
        h.u32(p[6])
        h.u32(B.bits(p[7]))
        for c in p[8]:
            h.byte(c)
        h.u32(p[9])
    # The declared sequence of declareParticles (laige seed 000): per live particle, in live order,
    # the iso depth key (layer 0) and the render-float position bits.
    d = Fnv()
    for p in pool:
        depth = p[2]
        z = B.step(depth)
        field = B.xy16(p[0], p[1]) - z * 16 + (1 << 21)
        field = max(0, min((1 << 22) - 1, field))
        d.u32((512 << 22) | field)
        d.u32(f32bits(B.tofloat(p[0])))
        d.u32(f32bits(B.tofloat(p[1])))
    return h.h, len(pool), spawned, dropped, d.h


for name, B in (("Fpx16_16", Fpx), ("Fp32", Fp32)):
    for seed in (0x5EED, 0x5EEE):
        hsh, live, spawned, dropped, declared = scenario(B, seed)
        print(f"{name} seed={seed:#x} STATE_HASH={hsh:#018x} live={live} spawned={spawned} "
              f"dropped={dropped} DECLARE_HASH={declared:#018x}")
