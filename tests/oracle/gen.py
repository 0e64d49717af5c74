#!/usr/bin/python3
"""Generate the PyTorch-oracle tests of lazyview.

Run with the Debian interpreter that has torch 1.13:  /usr/bin/python3 tests/oracle/gen.py
It rewrites tests/oracle/generated/*.cpp and tests/oracle/CMakeLists.txt.  The output is
deterministic (fixed seed, no dependence on dict order or addresses), so re-running it on an
unchanged generator gives byte-identical files; the generated files are committed so that CI
needs no torch.

Model of a case
---------------
* A float buffer `buf` holds 0, 1, ..., N-1 (torch.arange).  The base tensor is
  `storage.as_strided(sizes, strides, offset)` in torch and `lazyview::from_blob(p + offset,
  {sizes}, {strides})` in C++ (or `from_blob(p, {sizes})` for a contiguous base).  Because the
  buffer holds arange, every value of a result equals the storage offset of the element it
  reads, so the value checks also check the address arithmetic.
* The chain is applied op by op in torch.  `reshape`/`flatten` copy in torch exactly when
  `view` with the same target fails (aten reshape = computeStride or clone); we record that,
  and `is_view` of the result is "no op of the chain copied".  The generator cross-checks this
  against storage aliasing (data_ptr of the storage) for every successful case.
* Success cases check, through oracle_check.hpp: sizes(), size(d), numel(), dim(),
  is_view(), is_contiguous(); if is_view: strides() (size-1 dims excepted, as the mission
  allows) and the offset `&e(0,..,0) - p` (numel > 0 only); the values of contiguous(), of
  e(i...), of copy() into a contiguous destination and into a transposed (column-major)
  destination view.
* Error cases run the chain inside a lambda, record the index of the op being called, and
  require the exception type (IndexError -> lazyview::index_error, RuntimeError ->
  lazyview::shape_error), the exact what() text from torch and the op index where it was thrown.

Choices documented here (see also the report of the tests engineer):
* Contiguous bases built with the two-argument from_blob are compared with torch.empty(sizes)
  strides, i.e. stride[d] = stride[d+1] * max(size[d+1], 1) (c10's contiguous strides; what
  `torch.arange(n).view(...)` shows).  Zero-size cases mostly pass explicit strides.
* slice(d, start, end, step) is compared with torch.ops.aten.slice.Tensor (the C++ op: clamps
  start/end, message `slice step must be positive` for step <= 0).  Python's `x[a:b:k]` raises
  ValueError("step must be greater than zero") in the Python layer instead; lazyview is a C++
  library, so the ATen text is the reference.
* Errors that are necessarily static in lazyview (the number of dims given to permute /
  expand, t() on rank > 2, flatten's compile-time dims) are compile_fail tests, not here.
  movedim(int, int) cannot repeat a dim, so `movedim: repeated dim` has no runtime case.
* Messages lazyview defines itself (spec): squeeze of a non-1 dim, and expand with a negative
  size other than -1 where torch 1.13 reports garbage (`numel: integer multiplication
  overflow`).  Those cases use the spec's texts and are marked "lazyview-defined".
"""

import json
import os
import random
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "generated")
SEED = 20261121
MAX_RANK = 6
MAX_NUMEL = 600
# compile time: a success case costs ~0.3 s of g++ -O1 (contiguous + two copies instantiated per
# chain type), an error case ~0.15 s; keep every TU well under 20 s
CASES_PER_TU = {"special": 45, "single": 48, "chain": 45, "errors": 80}

rng = random.Random(SEED)


# ---------------------------------------------------------------------------------------------
# small helpers

def prod(xs):
    p = 1
    for v in xs:
        p *= v
    return p


def contig_strides(sizes):
    """c10 contiguous strides (torch.empty(sizes).stride())."""
    st = [0] * len(sizes)
    acc = 1
    for d in range(len(sizes) - 1, -1, -1):
        st[d] = acc
        acc *= max(sizes[d], 1)
    return st


def wrap(d, r):
    return d + r if d < 0 else d


def maybe_neg(d, r, p=0.3):
    """Return d or its negative spelling d - r (PyTorch wraps both)."""
    return d - r if rng.random() < p else d


def factorize(n):
    fs = []
    k = 2
    while k * k <= n:
        while n % k == 0:
            fs.append(k)
            n //= k
        k += 1
    if n > 1:
        fs.append(n)
    return fs


def random_split(n, k):
    """Split n (> 0) into k positive factors whose product is n (random)."""
    parts = [1] * k
    for f in factorize(n):
        parts[rng.randrange(k)] *= f
    return parts


def cpp_str(s):
    # json escapes are valid C++ escapes for the ASCII messages we have (\n, \", \\)
    assert all(ord(ch) < 128 for ch in s)
    return json.dumps(s)


def tup(xs):
    return "(" + ", ".join(str(v) for v in xs) + ("," if len(xs) == 1 else "") + ")"


def brace(xs):
    return "{" + ", ".join(str(v) for v in xs) + "}"


# ---------------------------------------------------------------------------------------------
# bases

class Base:
    def __init__(self, kind, sizes, strides, offset, n, explicit=True):
        self.kind = kind
        self.sizes = list(sizes)
        self.strides = list(strides)
        self.offset = offset
        self.n = max(n, 1)
        self.explicit = explicit  # False: two-argument (contiguous) from_blob

    def torch(self, storage):
        return storage.as_strided(self.sizes, self.strides, self.offset)

    def cpp(self):
        ptr = "p" if self.offset == 0 else "p + %d" % self.offset
        if not self.explicit:
            return "lv::from_blob(%s, %s)" % (ptr, brace(self.sizes))
        return "lv::from_blob(%s, %s, %s)" % (ptr, brace(self.sizes), brace(self.strides))

    def py(self):
        if not self.explicit:
            return "arange(%d).view%s" % (self.n, tup(self.sizes))
        return "arange(%d).as_strided(%s, %s, %d)" % (self.n, tup(self.sizes), tup(self.strides), self.offset)


def rand_sizes(rank, maxn=120, lo=1, hi=5, p1=0.15):
    while True:
        s = [1 if rng.random() < p1 else rng.randint(max(lo, 2) if lo <= 1 else lo, hi) for _ in range(rank)]
        if prod(s) <= maxn:
            return s


def base_contiguous(rank=None):
    rank = rank or rng.randint(1, 4)
    s = rand_sizes(rank)
    return Base("contiguous", s, contig_strides(s), 0, prod(s), explicit=False)


def base_permuted(rank=None):
    rank = rank or rng.randint(2, 4)
    s = rand_sizes(rank, p1=0.1)
    st = contig_strides(s)
    while True:
        perm = list(range(rank))
        rng.shuffle(perm)
        if perm != list(range(rank)):
            break
    return Base("permuted", [s[i] for i in perm], [st[i] for i in perm], 0, prod(s))


def base_sliced(rank=None, permute=None):
    rank = rank or rng.randint(1, 4)
    while True:
        big = rand_sizes(rank, maxn=300, lo=2, hi=7, p1=0.0)
        cs = contig_strides(big)
        sizes, strides, off = [], [], 0
        cut = False
        for d in range(rank):
            step = rng.choice([1, 1, 1, 2, 3])
            start = rng.randrange(0, big[d]) if rng.random() < 0.6 else 0
            maxlen = (big[d] - start + step - 1) // step
            ln = rng.randint(1, maxlen)
            if step != 1 or start != 0 or ln != big[d]:
                cut = True
            sizes.append(ln)
            strides.append(cs[d] * step)
            off += start * cs[d]
        if cut and prod(sizes) <= 150:
            break
    if permute is None:
        permute = rng.random() < 0.25
    kind = "sliced"
    if permute and rank > 1:
        perm = list(range(rank))
        rng.shuffle(perm)
        sizes = [sizes[i] for i in perm]
        strides = [strides[i] for i in perm]
        kind = "sliced+permuted"
    return Base(kind, sizes, strides, off, prod(big))


def base_expanded(rank=None):
    rank = rank or rng.randint(1, 4)
    while True:
        s = rand_sizes(rank, p1=0.1)
        if any(v > 1 for v in s):
            break
    stored = list(s)
    bdims = [d for d in range(rank) if s[d] > 1]
    ndims = rng.randint(1, max(1, len(bdims) - (1 if len(bdims) > 1 else 0)))
    chosen = rng.sample(bdims, min(ndims, len(bdims)))
    for d in chosen:
        stored[d] = 1
    st = contig_strides(stored)
    for d in chosen:
        st[d] = 0
    if rank < 4 and rng.random() < 0.3:  # a new leading broadcast dim
        k = rng.randint(2, 3)
        if prod(s) * k <= 200:
            s = [k] + s
            st = [0] + st
    return Base("expanded", s, st, 0, prod(stored))


def base_size1(rank=None):
    """Shapes with size-1 dims whose strides are odd (torch ignores them)."""
    rank = rank or rng.randint(2, 5)
    while True:
        s = rand_sizes(rank, p1=0.5)
        if 1 in s and prod(s) > 1:
            break
    st = contig_strides(s)
    for d in range(rank):
        if s[d] == 1:
            st[d] = rng.choice([0, 7, 100, st[d]])
    return Base("size1", s, st, 0, prod(s))


def base_zero(rank=None):
    rank = rank or rng.randint(1, 4)
    s = rand_sizes(rank, p1=0.2)
    s[rng.randrange(rank)] = 0
    if rng.random() < 0.35:
        return Base("zero-size", s, contig_strides(s), 0, 1, explicit=False)
    st = contig_strides(s)
    if rng.random() < 0.5:
        st = [v * rng.choice([1, 2, 3]) for v in st]
    if rank > 1 and rng.random() < 0.5:
        perm = list(range(rank))
        rng.shuffle(perm)
        s = [s[i] for i in perm]
        st = [st[i] for i in perm]
    return Base("zero-size", s, st, 0, 1)


BASE_MAKERS = {
    "contiguous": base_contiguous,
    "permuted": base_permuted,
    "sliced": base_sliced,
    "expanded": base_expanded,
    "size1": base_size1,
    "zero": base_zero,
}


# ---------------------------------------------------------------------------------------------
# ops: name, args, torch application, C++ spelling

class Op:
    def __init__(self, name, *args, form=None):
        self.name = name
        self.args = args
        self.form = form  # spelling variant (static forms, defaults)

    # returns (tensor, copied)
    def apply(self, x):
        n, a = self.name, self.args
        if n == "view":
            return x.view(*a), False
        if n == "reshape":
            r = x.reshape(*a)
            return r, not _view_ok(x, list(r.shape))
        if n == "permute":
            return x.permute(*a), False
        if n == "transpose":
            return x.transpose(*a), False
        if n == "t":
            return x.t(), False
        if n == "flatten":
            s, e = a
            r = x.flatten(s, e)
            r_ = x.dim()
            if wrap(s, r_) == wrap(e, r_):
                return r, False
            return r, not _view_ok(x, list(r.shape))
        if n == "unflatten":
            return x.unflatten(a[0], tuple(a[1])), False
        if n == "squeeze":
            return x.squeeze(*a), False
        if n == "unsqueeze":
            return x.unsqueeze(*a), False
        if n == "expand":
            return x.expand(*a), False
        if n == "narrow":
            return x.narrow(*a), False
        if n == "select":
            return x.select(*a), False
        if n == "slice":
            d, s, e, k = a
            return torch.ops.aten.slice(x, d, s, e, k), False
        if n == "movedim":
            return x.movedim(*a), False
        if n == "diagonal":
            return x.diagonal(*a), False
        if n == "unfold":
            return x.unfold(*a), False
        raise AssertionError(n)

    def cpp(self):
        n, a, f = self.name, self.args, self.form
        if n in ("view", "reshape", "permute") and f == "static":
            return ".%s<%s>()" % (n, ", ".join(str(v) for v in a))
        if n in ("view", "reshape") and f and f.startswith("mixed"):
            # sizes at positions in f (e.g. "mixed:0,2") spelled lv::c<N>
            pos = [int(t) for t in f.split(":")[1].split(",")]
            parts = ["lv::c<%d>" % v if i in pos else str(v) for i, v in enumerate(a)]
            return ".%s(%s)" % (n, ", ".join(parts))
        if n == "t":
            return ".t()"
        if n == "flatten":
            if f == "all":
                return ".flatten()"
            if f == "tmpl":
                return ".flatten<%d, %d>()" % a
            return ".flatten(lv::c<%d>, lv::c<%d>)" % a
        if n == "unflatten":
            return ".unflatten(%d, %s)" % (a[0], brace(a[1]))
        if n == "slice" and f == "default_step":
            return ".slice(%d, %d, %d)" % a[:3]
        if n == "diagonal" and f == "default":
            return ".diagonal()"
        if n == "diagonal" and f == "offset_only":
            return ".diagonal(%d)" % a[0]
        return ".%s(%s)" % (n, ", ".join(str(v) for v in a))

    def py(self):
        n, a = self.name, self.args
        if n == "t":
            return ".t()"
        if n == "slice":
            return ".slice(dim=%d, start=%d, end=%d, step=%d)" % a
        if n == "unflatten":
            return ".unflatten(%d, %s)" % (a[0], tup(a[1]))
        return ".%s(%s)" % (n, ", ".join(str(v) for v in a))


def _view_ok(x, shape):
    try:
        x.view(shape)
        return True
    except RuntimeError:
        return False


# ---------------------------------------------------------------------------------------------
# random valid op generators (each returns an Op or None when not applicable)

def gen_shape_for(x):
    """A random new shape with the same numel (split / merge / refactor / 1s)."""
    s = list(x.shape)
    n = x.numel()
    r = len(s)
    choice = rng.random()
    if n == 0:
        k = rng.randint(1, 4)
        new = [rng.randint(1, 4) for _ in range(k)]
        new[rng.randrange(k)] = 0
        return new
    if choice < 0.35 and r >= 2:
        # merge a run of adjacent dims
        i = rng.randrange(r - 1)
        j = rng.randint(i + 1, min(r - 1, i + 2))
        new = s[:i] + [prod(s[i:j + 1])] + s[j + 1:]
    elif choice < 0.7:
        # split one dim
        cands = [d for d in range(r) if len(factorize(s[d])) >= 2] or list(range(r))
        d = rng.choice(cands)
        k = rng.randint(2, 3)
        new = s[:d] + random_split(s[d], k) + s[d + 1:]
    else:
        k = rng.randint(1, 4)
        new = random_split(n, k)
    if rng.random() < 0.2 and len(new) < MAX_RANK:
        new.insert(rng.randint(0, len(new)), 1)
    while len(new) > MAX_RANK:
        new = [new[0] * new[1]] + new[2:]
    return new


def with_minus_one(shape, p=0.3):
    if rng.random() < p and 0 not in shape and len(shape) >= 1:
        i = rng.randrange(len(shape))
        shape = list(shape)
        shape[i] = -1
    return shape


def g_view(x, want_view=True):
    for _ in range(30):
        new = gen_shape_for(x)
        if _view_ok(x, new) == want_view:
            return Op("view", *with_minus_one(new))
    return None


def g_reshape(x):
    new = gen_shape_for(x)
    return Op("reshape", *with_minus_one(new))


def g_reshape_copy(x):
    for _ in range(30):
        new = gen_shape_for(x)
        if not _view_ok(x, new):
            return Op("reshape", *with_minus_one(new))
    return None


def g_permute(x):
    r = x.dim()
    perm = list(range(r))
    rng.shuffle(perm)
    return Op("permute", *[maybe_neg(d, r) for d in perm])


def g_transpose(x):
    r = x.dim()
    a = rng.randrange(r)
    b = rng.randrange(r)
    return Op("transpose", maybe_neg(a, r), maybe_neg(b, r))


def g_t(x):
    return Op("t") if x.dim() <= 2 else None


def g_flatten(x):
    r = x.dim()
    s = rng.randrange(r)
    e = rng.randrange(s, r)
    form = rng.choice(["c", "c", "tmpl"])
    if rng.random() < 0.15:
        return Op("flatten", 0, r - 1, form="all")
    return Op("flatten", maybe_neg(s, r), maybe_neg(e, r), form=form)


def g_unflatten(x):
    r = x.dim()
    if r >= MAX_RANK:
        return None
    d = rng.randrange(r)
    sz = x.shape[d]
    k = rng.randint(1, min(3, MAX_RANK - r + 1))
    if sz == 0:
        parts = [rng.randint(1, 3) for _ in range(k)]
        parts[rng.randrange(k)] = 0
    else:
        parts = random_split(sz, k)
        if rng.random() < 0.3:
            parts[rng.randrange(k)] = -1
    return Op("unflatten", maybe_neg(d, r), tuple(parts))


def g_squeeze(x):
    r = x.dim()
    ones = [d for d in range(r) if x.shape[d] == 1]
    if not ones or r < 2:
        return None
    return Op("squeeze", maybe_neg(rng.choice(ones), r))


def g_unsqueeze(x):
    r = x.dim()
    if r >= MAX_RANK:
        return None
    d = rng.randint(0, r)
    if rng.random() < 0.3:
        d = d - (r + 1)
    return Op("unsqueeze", d)


def g_expand(x):
    r = x.dim()
    for _ in range(20):
        sizes = []
        for d in range(r):
            v = x.shape[d]
            if v == 1:
                sizes.append(rng.choice([1, 2, 3, 4, -1, 2, 3]) if rng.random() > 0.05 else 0)
            else:
                sizes.append(-1 if rng.random() < 0.3 else v)
        lead = []
        if r < MAX_RANK and rng.random() < 0.35:
            lead = [rng.choice([1, 2, 3]) for _ in range(rng.randint(1, min(2, MAX_RANK - r)))]
        full = lead + sizes
        real = lead + [x.shape[d] if sizes[d] == -1 else sizes[d] for d in range(r)]
        if prod(real) <= MAX_NUMEL:
            return Op("expand", *full)
    return None


def g_narrow(x):
    r = x.dim()
    d = rng.randrange(r)
    sz = x.shape[d]
    start = rng.randint(0, sz)
    length = rng.randint(0, sz - start) if rng.random() < 0.15 else rng.randint(min(1, sz - start), sz - start)
    if rng.random() < 0.3 and start < sz:
        start -= sz  # negative spelling of the same start
    return Op("narrow", maybe_neg(d, r), start, length)


def g_select(x):
    r = x.dim()
    if r < 2:
        return None
    cands = [d for d in range(r) if x.shape[d] > 0]
    if not cands:
        return None
    d = rng.choice(cands)
    sz = x.shape[d]
    i = rng.randrange(sz)
    if rng.random() < 0.3:
        i -= sz
    return Op("select", maybe_neg(d, r), i)


def g_slice(x):
    r = x.dim()
    d = rng.randrange(r)
    sz = x.shape[d]
    start = rng.randint(-sz - 2, sz + 2) if rng.random() < 0.25 else rng.randint(0, max(sz - 1, 0))
    end = rng.randint(-sz - 2, sz + 3) if rng.random() < 0.25 else rng.randint(min(max(start, 0) + 1, sz), sz)
    step = rng.choice([1, 1, 2, 2, 3, 4])
    if step == 1 and rng.random() < 0.5:
        return Op("slice", maybe_neg(d, r), start, end, 1, form="default_step")
    return Op("slice", maybe_neg(d, r), start, end, step)


def g_movedim(x):
    r = x.dim()
    return Op("movedim", maybe_neg(rng.randrange(r), r), maybe_neg(rng.randrange(r), r))


def g_diagonal(x):
    r = x.dim()
    if r < 2:
        return None
    d1, d2 = rng.sample(range(r), 2)
    n1, n2 = x.shape[d1], x.shape[d2]
    off = rng.randint(-n1 - 1, n2 + 1) if rng.random() < 0.3 else rng.randint(-max(n1 - 1, 0), max(n2 - 1, 0))
    if rng.random() < 0.1:
        return Op("diagonal", 0, 0, 1, form="default")
    if rng.random() < 0.1:
        return Op("diagonal", off, 0, 1, form="offset_only")
    return Op("diagonal", off, maybe_neg(d1, r), maybe_neg(d2, r))


def g_unfold(x):
    r = x.dim()
    if r >= MAX_RANK:
        return None
    d = rng.randrange(r)
    sz = x.shape[d]
    size = 0 if (sz == 0 or rng.random() < 0.05) else rng.randint(1, sz)
    step = rng.choice([1, 1, 2, 3])
    return Op("unfold", maybe_neg(d, r), size, step)


GEN = {
    "view": g_view,
    "reshape": g_reshape,
    "permute": g_permute,
    "transpose": g_transpose,
    "t": g_t,
    "flatten": g_flatten,
    "unflatten": g_unflatten,
    "squeeze": g_squeeze,
    "unsqueeze": g_unsqueeze,
    "expand": g_expand,
    "narrow": g_narrow,
    "select": g_select,
    "slice": g_slice,
    "movedim": g_movedim,
    "diagonal": g_diagonal,
    "unfold": g_unfold,
}
CHAIN_WEIGHTS = {
    "view": 4, "reshape": 4, "permute": 3, "transpose": 2, "t": 1, "flatten": 2,
    "unflatten": 2, "squeeze": 1, "unsqueeze": 2, "expand": 2, "narrow": 2, "select": 2,
    "slice": 2, "movedim": 1, "diagonal": 1, "unfold": 1,
}


# ---------------------------------------------------------------------------------------------
# running a case through torch

class Case:
    def __init__(self, category, base, ops, note=""):
        self.category = category
        self.base = base
        self.ops = ops
        self.note = note
        self.run()

    def run(self):
        storage = torch.arange(self.base.n, dtype=torch.float32)
        x = self.base.torch(storage)
        copied = False
        self.error = None
        for i, op in enumerate(self.ops):
            try:
                x, c = op.apply(x)
            except IndexError as ex:
                self.error = ("lv::index_error", str(ex), i + 1)
                return
            except RuntimeError as ex:
                self.error = ("lv::shape_error", str(ex), i + 1)
                return
            copied = copied or c
        self.result = x
        self.is_view = not copied
        if x.numel() > 0:
            alias = x.storage().data_ptr() == storage.storage().data_ptr()
            assert alias == self.is_view, (self.py(), alias, self.is_view)

    def ok(self):
        return self.error is None

    def py(self):
        return self.base.py() + "".join(op.py() for op in self.ops)

    def cpp_chain(self):
        return self.base.cpp() + "".join(op.cpp() for op in self.ops)

    def key(self):
        return self.cpp_chain()


def valid_result(case):
    if not case.ok():
        return False
    r = case.result
    return 1 <= r.dim() <= MAX_RANK and r.numel() <= MAX_NUMEL


# ---------------------------------------------------------------------------------------------
# C++ emission

def emit_success(name, case):
    x = case.result
    sizes = list(x.shape)
    r = len(sizes)
    vals = x.contiguous().flatten().tolist()
    assert all(v == int(v) for v in vals)
    vals = [int(v) for v in vals]
    lines = []
    lines.append("// %s [%s]%s" % (case.py(), case.category, (" " + case.note) if case.note else ""))
    lines.append("BOOST_AUTO_TEST_CASE(%s)" % name)
    lines.append("{")
    lines.append("    auto buf = oracle::arange(%d);" % case.base.n)
    lines.append("    float* p = buf.data();")
    lines.append("    auto e = %s;" % case.cpp_chain())
    if vals:
        lines.append("    static constexpr std::int32_t ev[] = %s;" % brace(vals))
        vref = "ev"
    else:
        vref = "{}"
    if case.is_view:
        strides = list(x.stride())
        off = x.storage_offset() if x.numel() > 0 else -1
        lines.append("    oracle::check<%d>(e, p, %s, true, %s, %d, %s, %s, %s);"
                     % (r, brace(sizes), brace(strides), off, "true" if x.is_contiguous() else "false",
                        vref, cpp_str(case.py())))
    else:
        lines.append("    oracle::check<%d>(e, p, %s, false, {}, -1, %s, %s, %s);"
                     % (r, brace(sizes), "true" if x.is_contiguous() else "false", vref, cpp_str(case.py())))
    lines.append("}")
    return "\n".join(lines)


def emit_error(name, case):
    exc, msg, stage = case.error
    lines = []
    lines.append("// %s -> %s at op %d [%s]%s" % (case.py(), exc.split("::")[1], stage, case.category,
                                                 (" " + case.note) if case.note else ""))
    lines.append("BOOST_AUTO_TEST_CASE(%s)" % name)
    lines.append("{")
    lines.append("    auto buf = oracle::arange(%d);" % case.base.n)
    lines.append("    float* p = buf.data();")
    lines.append("    int stage = 0;")
    lines.append("    auto run = [&] {")
    lines.append("        auto e0 = %s;" % case.base.cpp())
    last = len(case.ops)
    assert stage == last, "error cases must fail at their last op"
    for i, op in enumerate(case.ops, start=1):
        if i < last:
            lines.append("        stage = %d; auto e%d = e%d%s;" % (i, i, i - 1, op.cpp()))
        else:
            lines.append("        stage = %d; (void)e%d%s;" % (i, i - 1, op.cpp()))
    lines.append("        stage = %d;" % (last + 1))
    lines.append("    };")
    lines.append("    oracle::check_throws<%s>(run, stage, %d, %s, %s);" % (exc, stage, cpp_str(msg), cpp_str(case.py())))
    lines.append("}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# case families

all_cases = []
seen = set()


def add(case, expect_ok=True, limit=True):
    if case.key() in seen:
        return False
    if expect_ok and not case.ok():
        raise AssertionError("expected success: " + case.py() + " " + str(case.error))
    if expect_ok and limit and not valid_result(case):
        return False
    if not expect_ok and case.ok():
        return False
    seen.add(case.key())
    all_cases.append(case)
    return True


def family_single_ops():
    """Every op on every base kind, several times (negative dims included by the generators)."""
    kinds = list(BASE_MAKERS)
    for opname in GEN:
        for kind in kinds:
            want = 3 if kind in ("contiguous", "permuted", "sliced") else 2
            got = 0
            tries = 0
            while got < want and tries < 200:
                tries += 1
                base = BASE_MAKERS[kind]()
                x = base.torch(torch.arange(base.n, dtype=torch.float32))
                op = GEN[opname](x)
                if op is None:
                    continue
                if add(Case("single:%s:%s" % (opname, base.kind), base, [op])):
                    got += 1
    # view that must stay a view / reshape that must copy, on non-contiguous bases
    for kind in ("permuted", "sliced", "expanded", "size1"):
        for _ in range(4):
            base = BASE_MAKERS[kind]()
            x = base.torch(torch.arange(base.n, dtype=torch.float32))
            op = g_view(x, want_view=True)
            if op is not None:
                add(Case("single:view-ok:%s" % base.kind, base, [op]))
            op = g_reshape_copy(x)
            if op is not None:
                add(Case("single:reshape-copy:%s" % base.kind, base, [op]))


def random_chain(base, length):
    storage = torch.arange(base.n, dtype=torch.float32)
    x = base.torch(storage)
    ops = []
    names = list(CHAIN_WEIGHTS)
    weights = [CHAIN_WEIGHTS[k] for k in names]
    attempts = 0
    while len(ops) < length and attempts < 60:
        attempts += 1
        nm = rng.choices(names, weights)[0]
        op = GEN[nm](x)
        if op is None:
            continue
        try:
            y, _ = op.apply(x)
        except (RuntimeError, IndexError):
            continue
        if not (1 <= y.dim() <= MAX_RANK and y.numel() <= MAX_NUMEL):
            continue
        ops.append(op)
        x = y
    return ops


def family_chains(per_kind):
    for kind in ("contiguous", "permuted", "sliced", "expanded", "size1", "zero"):
        n = per_kind if kind in ("contiguous", "permuted", "sliced", "expanded") else per_kind // 3
        got = 0
        tries = 0
        while got < n and tries < 20 * n:
            tries += 1
            base = BASE_MAKERS[kind]()
            ops = random_chain(base, rng.randint(2, 5))
            if len(ops) < 2:
                continue
            if add(Case("chain:%s" % base.kind, base, ops)):
                got += 1


def family_copy_chains(n):
    """Chains through a reshape that copies in PyTorch, continued by 1-3 more ops (the lazy
    hierarchical / generic-index path of lazyview; is_view() false from the copy on)."""
    kinds = ["contiguous", "permuted", "sliced", "expanded", "size1"]
    got = 0
    tries = 0
    while got < n and tries < 40 * n:
        tries += 1
        base = BASE_MAKERS[kinds[tries % len(kinds)]]()
        prefix = random_chain(base, rng.choice([0, 1, 1, 2]))
        pre = Case("tmp", base, prefix)
        if not valid_result(pre) or pre.result.numel() < 2:
            continue
        op = g_reshape_copy(pre.result)
        if op is None:
            continue
        mid = Case("tmp", base, prefix + [op])
        if not valid_result(mid):
            continue
        rest = random_chain(Base("tmp", list(mid.result.shape), list(mid.result.stride()), 0, mid.result.numel()),
                            rng.randint(1, 3))
        # random_chain drew its ops against a contiguous stand-in of the copy: same sizes, and
        # after a copy torch's strides are row-major, so every op valid there is valid here
        c = Case("copychain:%s" % base.kind, base, prefix + [op] + rest)
        if valid_result(c) and c.result.numel() > 0 and add(c):
            got += 1


# ---- errors ----------------------------------------------------------------------------------

def bad_ops(x):
    """All applicable (tag, op) pairs that must fail on x."""
    r = x.dim()
    s = list(x.shape)
    n = x.numel()
    out = []
    # view / reshape family
    for nm in ("view", "reshape"):
        out.append(("numel", Op(nm, *(s[:-1] + [s[-1] + 1]))))
        if n > 0:
            out.append(("numel", Op(nm, n + rng.randint(1, 3))))
            out.append(("indivisible", Op(nm, -1, n + 1)))
        out.append(("two-1", Op(nm, -1, -1) if n > 0 else Op(nm, -1, 0, -1)))
        out.append(("neg-size", Op(nm, rng.choice([-2, -3]), max(n, 1))))
        out.append(("minus1-zero", Op(nm, -1, 0)))
        out.append(("minus1-zero", Op(nm, 0, 2, -1)))
    if n > 1:
        for _ in range(30):
            new = gen_shape_for(x)
            if not _view_ok(x, new):
                out.append(("view-incompatible", Op("view", *with_minus_one(new))))
                break
    # permute
    if r >= 2:
        perm = list(range(r))
        rng.shuffle(perm)
        i = rng.randrange(1, r)
        dup = list(perm)
        dup[i] = dup[0] - r if rng.random() < 0.5 else dup[0]
        out.append(("permute-dup", Op("permute", *dup)))
    perm = list(range(r))
    rng.shuffle(perm)
    bad = list(perm)
    bad[rng.randrange(r)] = rng.choice([r, r + 1, -r - 1])
    out.append(("dim-range", Op("permute", *bad)))
    out.append(("dim-range", Op("transpose", 0, rng.choice([r, -r - 1]))))
    out.append(("dim-range", Op("transpose", rng.choice([r + 2, -r - 2]), 0)))
    # unflatten
    d = rng.randrange(r)
    sz = s[d]
    if sz > 1:
        out.append(("unflatten-sizes", Op("unflatten", d, (sz + 1, 1))))
        out.append(("unflatten-sizes", Op("unflatten", d - r, (2, sz))))
        if sz % 2 == 1 or sz % 3 != 0:
            k = 2 if sz % 2 == 1 else 3
            if sz % k != 0:
                out.append(("unflatten-indivisible", Op("unflatten", d, (-1, k))))
        out.append(("unflatten-two-1", Op("unflatten", d, (-1, -1))))
        out.append(("unflatten-neg", Op("unflatten", d, (-3, -1))))
    if sz == 0:
        out.append(("unflatten-minus1-zero", Op("unflatten", d, (-1, 0))))
    out.append(("dim-range", Op("unflatten", rng.choice([r, -r - 1]), (1, max(sz, 0)))))
    # squeeze / unsqueeze
    out.append(("dim-range", Op("squeeze", rng.choice([r, -r - 1]))))
    out.append(("dim-range", Op("unsqueeze", rng.choice([r + 1, -r - 2]))))
    # expand
    nonone = [k for k in range(r) if s[k] != 1]
    if nonone:
        k = rng.choice(nonone)
        tgt = list(s)
        tgt[k] = s[k] + 1 if rng.random() < 0.7 else (0 if s[k] != 0 else 2)
        out.append(("expand-mismatch", Op("expand", *tgt)))
        if s[k] != 0:
            tgt = list(s)
            tgt[k] = -2
            out.append(("expand-neg-nonsingleton", Op("expand", *tgt)))
    if r < MAX_RANK:
        out.append(("expand-lead-1", Op("expand", -1, *s)))
    # narrow
    d = rng.randrange(r)
    sz = s[d]
    if sz > 0:
        st = rng.randrange(sz)
        out.append(("narrow-exceeds", Op("narrow", d, st, sz - st + 1)))
        out.append(("narrow-exceeds", Op("narrow", d, st - sz, sz - st + rng.randint(1, 2))))
        out.append(("narrow-neg-len", Op("narrow", d, st, -1)))
    out.append(("narrow-start-range", Op("narrow", d, sz + rng.randint(1, 3), 0)))
    out.append(("narrow-start-range", Op("narrow", d, -sz - rng.randint(1, 3), 0)))
    out.append(("dim-range", Op("narrow", rng.choice([r, -r - 1]), 0, 0)))
    # select
    d = rng.randrange(r)
    sz = s[d]
    if r >= 2:
        out.append(("select-index", Op("select", d, sz + rng.randint(0, 2))))
        out.append(("select-index", Op("select", d - r, -sz - rng.randint(1, 2))))
        out.append(("dim-range", Op("select", rng.choice([r, -r - 1]), 0)))
    # slice
    d = rng.randrange(r)
    out.append(("slice-step", Op("slice", d, 0, s[d], rng.choice([0, -1, -2]))))
    out.append(("dim-range", Op("slice", rng.choice([r, -r - 1]), 0, 1, 1)))
    # unfold
    if r < MAX_RANK:
        d = rng.randrange(r)
        out.append(("unfold-size", Op("unfold", d, s[d] + rng.randint(1, 2), 1)))
        out.append(("unfold-step", Op("unfold", d, min(s[d], 1), rng.choice([0, -1]))))
        out.append(("dim-range", Op("unfold", rng.choice([r, -r - 1]), 1, 1)))
    # diagonal
    if r >= 2:
        d1 = rng.randrange(r)
        out.append(("diagonal-same", Op("diagonal", 0, d1, d1)))
        out.append(("diagonal-same", Op("diagonal", 1, d1, d1 - r)))
        out.append(("dim-range", Op("diagonal", 0, 0, rng.choice([r, -r - 1]))))
    # movedim
    out.append(("dim-range", Op("movedim", rng.choice([r, -r - 1]), 0)))
    out.append(("dim-range", Op("movedim", 0, rng.choice([r, -r - 1]))))
    return [(t + ":" + op.name if t == "dim-range" else t, op) for t, op in out]


def family_errors(target):
    # every tag on several bases, with and without a prefix chain
    kinds = ["contiguous", "permuted", "sliced", "expanded", "size1", "zero"]
    counts = {}
    tries = 0
    while sum(counts.values()) < target and tries < 5000:
        tries += 1
        kind = kinds[tries % len(kinds)]
        base = BASE_MAKERS[kind]()
        prefix = random_chain(base, rng.choice([0, 0, 1, 2, 3]))
        pre = Case("tmp", base, prefix)
        if not valid_result(pre):
            continue
        cands = bad_ops(pre.result)
        rng.shuffle(cands)
        # prefer the least covered tags
        cands.sort(key=lambda tc: counts.get(tc[0], 0))
        for tag, op in cands[:2]:
            c = Case("error:%s" % tag, base, prefix + [op])
            if c.ok() or c.error[2] != len(prefix) + 1:
                continue
            if add(c, expect_ok=False):
                counts[tag] = counts.get(tag, 0) + 1
    return counts


# ---- fixed, hand-picked cases ----------------------------------------------------------------

def contig(sizes):
    return Base("contiguous", sizes, contig_strides(sizes), 0, prod(sizes), explicit=False)


def family_special():
    # the mission's examples
    add(Case("special:agents", contig([42, 50, 6]),
             [Op("reshape", 6, 7, 50, 6), Op("permute", 0, 2, 1, 3), Op("reshape", 6, 50, -1)],
             note="mission agents example"), limit=False)
    add(Case("special:agents", contig([14, 5, 3]),
             [Op("reshape", 2, 7, 5, 3), Op("permute", 0, 2, 1, 3), Op("reshape", 2, 5, -1)],
             note="agents example, small"))
    add(Case("special:agents", contig([42, 50, 6]),
             [Op("reshape", 6, 7, 50, 6), Op("permute", 0, 2, 1, 3)], note="agents, view part"), limit=False)
    add(Case("special:cut-inside", contig([12]), [Op("view", 4, 3), Op("t"), Op("reshape", 2, 6)],
             note="arange(12).view(4,3).t().reshape(2,6): no layout exists"))
    add(Case("special:cut-inside", contig([12]),
             [Op("view", 4, 3), Op("t"), Op("reshape", 2, 6), Op("t")], note="continue after cut"))
    add(Case("special:cut-inside", contig([12]),
             [Op("view", 4, 3), Op("t"), Op("reshape", 2, 6), Op("view", 3, 4), Op("select", 0, 1)],
             note="continue after cut"))
    add(Case("special:after-copy", contig([6]), [Op("view", 2, 3), Op("t"), Op("reshape", 6), Op("view", 2, 3)],
             note="view of the copy is allowed"))
    add(Case("special:after-copy", contig([6]),
             [Op("view", 2, 3), Op("t"), Op("reshape", 6), Op("view", 2, 3), Op("permute", 1, 0)],
             note="permute after copy: not a view, strides irrelevant"))
    add(Case("special:after-copy", contig([6]),
             [Op("view", 2, 3), Op("t"), Op("reshape", 6), Op("view", 2, 3), Op("permute", 1, 0), Op("view", 6)],
             note="mission: must throw the view error (the permuted copy is not contiguous)"), expect_ok=False)
    add(Case("special:after-copy", contig([2, 3]),
             [Op("t"), Op("reshape", 6), Op("view", 2, 3), Op("permute", 1, 0), Op("view", 6)],
             note="mission: x.t().reshape(6).view(2,3).permute(1,0).view(6) throws"), expect_ok=False)
    add(Case("special:after-copy", contig([2, 3]),
             [Op("t"), Op("reshape", 6), Op("view", 2, 3), Op("permute", 1, 0), Op("reshape", 6)],
             note="second copy"))
    add(Case("special:after-copy", contig([4, 6]),
             [Op("t"), Op("reshape", 4, 6), Op("narrow", 1, 1, 4), Op("view", 2, 2, 4)],
             note="sliced copy stays viewable by torch's rules"))
    add(Case("special:after-copy", contig([4, 6]),
             [Op("t"), Op("reshape", 4, 6), Op("narrow", 1, 1, 4), Op("view", 16)],
             note="torch: copy is row-major, the narrowed copy is not viewable as 16"), expect_ok=False)
    add(Case("special:after-copy", contig([3, 4]),
             [Op("t"), Op("flatten", 0, 1), Op("unsqueeze", 0), Op("expand", 2, 12), Op("reshape", 4, 6)],
             note="expand after copy, then another copy"))
    # flatten all-dims form and flatten(s, s) identity on a non-contiguous base
    add(Case("special:flatten", base_permuted(3), [Op("flatten", 0, 2, form="all")]))
    b = Base("permuted", [3, 4, 2], [1, 6, 3], 0, 24)
    add(Case("special:flatten", b, [Op("flatten", 1, 1)], note="s == e returns self"))
    add(Case("special:flatten", b, [Op("flatten", -2, -1)]))
    # FLUX pack / unpack
    for (B, C, H, W) in [(1, 4, 4, 6), (2, 3, 4, 4), (1, 16, 8, 6), (1, 2, 2, 2), (2, 16, 4, 8)]:
        h, w = H // 2, W // 2
        pack = [Op("view", B, C, h, 2, w, 2), Op("permute", 0, 2, 4, 1, 3, 5), Op("reshape", B, h * w, C * 4)]
        add(Case("special:flux-pack", contig([B, C, H, W]), pack, note="FLUX _pack_latents"), limit=False)
        unpack = [Op("view", B, h, w, C, 2, 2), Op("permute", 0, 3, 1, 4, 2, 5), Op("reshape", B, C, H, W)]
        add(Case("special:flux-unpack", contig([B, h * w, C * 4]), unpack, note="FLUX _unpack_latents"), limit=False)
        add(Case("special:flux-roundtrip", contig([B, C, H, W]), pack + unpack, note="pack then unpack = identity"), limit=False)
    # view of the FLUX permute (torch rejects it)
    add(Case("special:flux-pack", contig([1, 4, 4, 6]),
             [Op("view", 1, 4, 2, 2, 3, 2), Op("permute", 0, 2, 4, 1, 3, 5), Op("view", 1, 6, 16)],
             note="view() must refuse what reshape() copies"), expect_ok=False)
    # semantics doc examples (§A.2)
    b = Base("permuted", [2, 4, 3], [12, 1, 4], 0, 24)
    add(Case("special:size1-strides", b, [Op("view", 2, 1, 4, 3)]))
    add(Case("special:size1-strides", b, [Op("view", 2, 4, 3, 1)]))
    add(Case("special:size1-strides", b, [Op("view", 1, 2, 4, 3)]))
    col = Base("expanded", [3, 4], [1, 0], 0, 3)
    add(Case("special:expand-view", col, [Op("view", 3, 2, 2)]))
    add(Case("special:expand-view", col, [Op("view", 12)]), expect_ok=False)
    add(Case("special:expand-view", col, [Op("reshape", 12)]))
    sl = Base("sliced", [4, 4], [6, 1], 0, 24)
    add(Case("special:slice-view", sl, [Op("view", 4, 2, 2)]))
    add(Case("special:slice-view", sl, [Op("view", 2, 2, 4)]))
    add(Case("special:slice-view", sl, [Op("view", 16)]), expect_ok=False)
    z = Base("zero-size", [0, 4, 3], [12, 3, 1], 0, 1)
    add(Case("special:zero", z, [Op("view", 4, 0, 3)]))
    add(Case("special:zero", z, [Op("view", 12, 0)]))
    add(Case("special:zero", z, [Op("view", 0, 4, 3)], note="same shape keeps strides"))
    add(Case("special:zero", z, [Op("reshape", -1, 3)]), expect_ok=False)
    add(Case("special:zero", Base("zero-size", [2, 0, 3], [3, 3, 1], 0, 1), [Op("slice", 1, 0, 5, 2)]))
    add(Case("special:zero", Base("zero-size", [2, 1, 0], [1, 1, 1], 0, 1), [Op("expand", 2, 3, 0)]))
    add(Case("special:zero", contig([2, 0, 3]), [Op("unsqueeze", 2)]))
    add(Case("special:zero", contig([2, 0, 3]), [Op("unfold", 2, 2, 1)]))
    add(Case("special:zero", contig([2, 0, 3]), [Op("unfold", 1, 0, 1)]))
    add(Case("special:zero", contig([2, 0, 3]), [Op("narrow", 1, 0, 0)]))
    add(Case("special:zero", contig([2, 0, 3]), [Op("narrow", 1, -1, 0)], note="start -1 wraps to 0 on size 0"))
    add(Case("special:zero", contig([2, 0, 3]), [Op("narrow", 1, 1, 0)], note="start 1 on size 0"), expect_ok=False)
    add(Case("special:zero", contig([2, 0, 3]), [Op("select", 1, 0)]), expect_ok=False)
    add(Case("special:zero", contig([2, 0, 3]), [Op("unfold", 1, 1, 1)]), expect_ok=False)
    add(Case("special:zero", contig([2, 0, 3]), [Op("unflatten", 1, (-1, 0))]), expect_ok=False)
    add(Case("special:zero", contig([2, 0, 3]), [Op("unflatten", 1, (2, 0))]))
    add(Case("special:zero", contig([2, 1]), [Op("expand", 2, 0)]))
    add(Case("special:zero", contig([2, 3]), [Op("diagonal", 5, 0, 1)]))
    add(Case("special:zero", contig([2, 3]), [Op("diagonal", -3, 0, 1)]))
    add(Case("special:zero", contig([3, 4]), [Op("slice", 1, 3, 1, 1)], note="end < start"))
    # odd transposes / identities
    add(Case("special:identity", contig([2, 3]), [Op("transpose", 1, -1)], note="a == b returns self"))
    add(Case("special:identity", contig([5]), [Op("t")], note="t() of 1-D is identity"))
    add(Case("special:identity", base_sliced(2), [Op("movedim", 1, 1)]))
    add(Case("special:identity", contig([2, 3, 4]), [Op("expand", 1, 2, 3, 4)], note="new leading 1 gets size*stride"))
    add(Case("special:identity", contig([2, 3, 4]), [Op("narrow", 2, -2, 2)]))
    add(Case("special:diagonal", contig([2, 3, 4]), [Op("diagonal", -1, 1, 2)]))
    add(Case("special:diagonal", contig([3, 3]), [Op("diagonal", 0, 0, 1, form="default")]))
    add(Case("special:diagonal", contig([3, 4]), [Op("diagonal", 1, 0, 1, form="offset_only")]))
    add(Case("special:unfold", contig([10]), [Op("unfold", 0, 4, 2), Op("unfold", 0, 2, 1)], note="nested windows"))
    add(Case("special:unfold", contig([3, 8]), [Op("unfold", -1, 3, 3), Op("reshape", -1)], note="windows flattened"))
    add(Case("special:unfold", contig([2, 6]), [Op("unfold", 1, 4, 1), Op("reshape", 2, -1)], note="overlapping windows copied"))


def family_static():
    add(Case("static", Base("contiguous", [4, 6], [6, 1], 0, 24, explicit=False), [Op("view", 2, 12, form="static")]))
    add(Case("static", Base("contiguous", [4, 6], [6, 1], 0, 24, explicit=False), [Op("permute", 1, 0, form="static")]))
    add(Case("static", Base("contiguous", [4, 6], [6, 1], 0, 24, explicit=False),
             [Op("permute", 1, 0, form="static"), Op("reshape", 3, 8, form="static")]))
    add(Case("static", Base("contiguous", [2, 3, 4], [12, 4, 1], 0, 24, explicit=False),
             [Op("view", 6, 4, form="mixed:0"), Op("t")]))
    add(Case("static", Base("contiguous", [2, 3, 4], [12, 4, 1], 0, 24, explicit=False),
             [Op("permute", 2, 0, 1, form="static"), Op("reshape", 4, -1, form="mixed:0")]))
    add(Case("static", Base("contiguous", [1, 4, 4, 6], [96, 24, 6, 1], 0, 96, explicit=False),
             [Op("view", 1, 4, 2, 2, 3, 2, form="static"), Op("permute", 0, 2, 4, 1, 3, 5, form="static"),
              Op("reshape", 1, 6, 16, form="static")], note="static FLUX pack"))
    add(Case("static", Base("contiguous", [4, 6], [6, 1], 0, 24, explicit=False),
             [Op("view", 2, 2, 6, form="static"), Op("flatten", 0, 1), Op("transpose", 0, 1)]))
    add(Case("static", Base("contiguous", [12], [1], 0, 12, explicit=False),
             [Op("view", 4, 3, form="static"), Op("t"), Op("reshape", 2, 6, form="static")], note="cut inside, static"))


# static bases need the from_blob<S...>(p) spelling
class StaticBase(Base):
    def cpp(self):
        return "lv::from_blob<%s>(p)" % ", ".join(str(v) for v in self.sizes)

    def py(self):
        return "static:" + Base.py(self)


def family_static_bases():
    for sizes, ops in [
        ([4, 6], [Op("view", 2, 12, form="static")]),
        ([4, 6], [Op("permute", 1, 0, form="static")]),
        ([4, 6], [Op("view", 2, 12, form="static"), Op("permute", 1, 0, form="static")]),
        ([2, 3, 4], [Op("permute", 2, 0, 1, form="static"), Op("reshape", 4, 6, form="static")]),
        ([2, 3, 4], [Op("transpose", 0, 2), Op("narrow", 1, 1, 2)]),
        ([4, 6], [Op("reshape", -1, 3), Op("select", 1, 2)]),
        ([3, 1], [Op("expand", 3, 4), Op("view", 3, 2, 2)]),
        ([1, 2, 4, 6], [Op("view", 1, 2, 2, 2, 3, 2, form="static"), Op("permute", 0, 2, 4, 1, 3, 5, form="static"),
                        Op("reshape", 1, 6, 8, form="static")]),
    ]:
        add(Case("static-base", StaticBase("static", sizes, contig_strides(sizes), 0, prod(sizes), explicit=False), ops))
    # a static base whose runtime op fails: the message must still be torch's
    add(Case("static-base", StaticBase("static", [4, 6], [6, 1], 0, 24, explicit=False),
             [Op("t"), Op("view", 24)]), expect_ok=False)
    add(Case("static-base", StaticBase("static", [4, 6], [6, 1], 0, 24, explicit=False),
             [Op("select", 0, 4)]), expect_ok=False)


def family_lazyview_defined():
    """Deviations with lazyview's own messages (spec), not produced by torch."""
    out = []
    # squeeze of a non-1 dim
    for sizes, d in [([2, 3], 1), ([4, 1, 5], 0), ([2, 3, 4], 2)]:
        base = contig(sizes)
        msg = ("squeeze(): dimension %d has size %d, not 1 (lazyview has static rank, so it cannot be a no-op)"
               % (d, sizes[d]))
        out.append((base, [Op("squeeze", d)], "lv::shape_error", msg))
    base = base_permuted(3)
    s = base.sizes
    k = next((d for d in range(3) if s[d] != 1), 0)
    out.append((base, [Op("squeeze", k)], "lv::shape_error",
                "squeeze(): dimension %d has size %d, not 1 (lazyview has static rank, so it cannot be a no-op)" % (k, s[k])))
    # expand with -2 where torch 1.13 reports `numel: integer multiplication overflow`
    out.append((contig([2, 3, 4]), [Op("expand", -2, 2, 3, 4)], "lv::shape_error",
                "expand(): invalid size -2 at dimension 0"))
    out.append((contig([2, 1, 4]), [Op("expand", 2, -2, 4)], "lv::shape_error",
                "expand(): invalid size -2 at dimension 1"))
    out.append((contig([3]), [Op("expand", 2, -3, 3)], "lv::shape_error",
                "expand(): invalid size -3 at dimension 1"))
    for base, ops, exc, msg in out:
        c = Case("lazyview-defined", base, ops, note="lazyview-defined message (spec)")
        # torch either does not raise or raises something unusable here
        c.error = (exc, msg, len(ops))
        if c.key() not in seen:
            seen.add(c.key())
            all_cases.append(c)


# ---------------------------------------------------------------------------------------------

def main():
    family_special()
    family_static()
    family_static_bases()
    family_lazyview_defined()
    family_single_ops()
    family_chains(per_kind=55)
    family_copy_chains(80)
    err_counts = family_errors(target=200)

    groups = {}
    for c in all_cases:
        top = c.category.split(":")[0]
        grp = {"single": "single", "chain": "chain", "copychain": "chain", "error": "errors"}.get(top, "special")
        if not c.ok() and grp != "errors":
            grp = "special"
        groups.setdefault(grp, []).append(c)

    os.makedirs(OUT_DIR, exist_ok=True)
    for f in os.listdir(OUT_DIR):
        if f.endswith(".cpp"):
            os.remove(os.path.join(OUT_DIR, f))
    files = []
    summary = {}
    for grp in ("special", "single", "chain", "errors"):
        cases = groups.get(grp, [])
        nparts = max(1, (len(cases) + CASES_PER_TU[grp] - 1) // CASES_PER_TU[grp])
        per = (len(cases) + nparts - 1) // nparts
        for part in range(nparts):
            chunk = cases[part * per:(part + 1) * per]
            fname = "%s_%d.cpp" % (grp, part + 1)
            body = []
            body.append("// GENERATED by tests/oracle/gen.py from torch %s -- do not edit." % torch.__version__)
            body.append("// Regenerate: /usr/bin/python3 tests/oracle/gen.py")
            body.append('#include "../oracle_check.hpp"')
            body.append("")
            body.append("namespace lv = lazyview;")
            body.append("")
            body.append("BOOST_AUTO_TEST_SUITE(oracle_%s_%d)" % (grp, part + 1))
            body.append("")
            for i, c in enumerate(chunk):
                name = "%s_%03d" % (grp, part * per + i + 1)
                body.append(emit_success(name, c) if c.ok() else emit_error(name, c))
                body.append("")
            body.append("BOOST_AUTO_TEST_SUITE_END()")
            with open(os.path.join(OUT_DIR, fname), "w") as fh:
                fh.write("\n".join(body) + "\n")
            files.append("generated/" + fname)
        for c in cases:
            cat = c.category.split(":")
            key = ":".join(cat[:3]) if cat[0] == "error" else ":".join(cat[:2])
            summary[key] = summary.get(key, 0) + 1

    with open(os.path.join(HERE, "CMakeLists.txt"), "w") as fh:
        fh.write("# GENERATED by tests/oracle/gen.py (the source list); regenerate instead of editing.\n")
        fh.write("# The PyTorch-oracle tests: one executable, one TU per group of generated cases.\n")
        fh.write("lazyview_add_test(oracle\n    oracle_main.cpp\n")
        for f in files:
            fh.write("    %s\n" % f)
        fh.write(")\n")
        fh.write("# The engine compiled once, in oracle_main.cpp (eval/engine_entry.hpp): the cases' TUs see\n"
                 "# its entry points only. This is the build that tests that way of compiling lazyview.\n")
        fh.write("target_compile_definitions(oracle PRIVATE LAZYVIEW_SEPARATE_ENGINE)\n")

    with open(os.path.join(OUT_DIR, "SUMMARY.txt"), "w") as fh:
        fh.write("# GENERATED by tests/oracle/gen.py: number of cases per category\n")
        fh.write("total %d (success %d, error %d)\n" % (len(all_cases), sum(c.ok() for c in all_cases),
                                                      sum(not c.ok() for c in all_cases)))
        for k in sorted(summary):
            fh.write("%-40s %d\n" % (k, summary[k]))
        fh.write("\n# error tags\n")
        for k in sorted(err_counts):
            fh.write("%-40s %d\n" % (k, err_counts[k]))
    print("wrote %d cases into %d files" % (len(all_cases), len(files)), file=sys.stderr)


if __name__ == "__main__":
    main()
