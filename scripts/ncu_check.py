#!/usr/bin/env python3
"""Independent check of the recorded timings with Nsight Compute (issue 12, item 4).

For a fixed list of points spanning every experiment (short and long kernels), this script times each
point with `ncu --metrics gpu__time_duration.sum` and compares the median with the engine's median of the
same point, twice: as recorded in data/<slug>/<experiment>.json (made in another session, often on another
machine of the same model), and as the engine measures it in this call, on this GPU (`mdbook-gpulab record`
in a scratch copy of the book from which the checked points were removed; data/ is not touched). The
verdict is on the second: it compares two timers on one machine at one time, so that what it finds is a
difference of method, not of machines. Nothing of the engine's measurement is used: the launch
configuration (grid, block, dynamic shared memory, buffer lengths, defines and NVRTC options, arguments,
host loops and multi-pass sequences) is read from kernels/<experiment>/experiment.toml and evaluated by
this script's own small evaluator of the spec's expression language; the inputs are generated here (with
the spec's init distribution, not the engine's generator). The kernels are the engine's own machine
code (`mdbook-gpulab launch-info --image` compiles each exactly as the engine does), so that both sides
time the same code; with --own-compile (or without the binary) they are compiled here with
cupy.RawModule and the engine's documented options instead, whose NVRTC may differ (session 7: two
kernels compiled that way ran 1.5 % and 13 % differently from the engine's, by ncu on both).

Profiler settings, chosen so that both sides measure the same thing:
  --clock-control none   the engine does not lock clocks: the GPU runs at its own boost clock on both sides;
  --cache-control all    for single-launch points recorded in cold mode (the engine flushes L2 before
                         each sample); with --cold-flush script, `none` and this script's own L2 flush
                         before each run instead, as for several launches below (ncu's `all` flushes more
                         than the engine's L2 flush: see --cold-flush);
  --cache-control none   for multi-launch cold points, which this script flushes itself before each run
                         of the sequence, as the engine does before each sample (ncu's `all` would flush
                         before every launch, so the later launches would start cold here but warm in
                         the engine);
  --cache-control none   for points recorded in hot mode;
  one warm-up run, then SAMPLES runs per point; the point's time is the median over runs of the sum of
  its launches' gpu__time_duration. ncu's sum excludes the gaps between launches, which the engine's
  events include: the engine's side is the book's value (less the event overhead) less the calibrated
  gap between two launches (data/<slug>/checks/event_offset.json, `gap_ms`) per extra launch.
Target: the engine's median within +-2 % of ncu's for kernels of 10 us or more, +-5 % below.

Usage:
  python3 scripts/ncu_check.py --dry-run [--slug SLUG] [--json PLANS]   # CPU only: plans every point from the specs and
                                                         # checks it is recorded (ok, timed) on each device
  python3 scripts/ncu_check.py --dry-run --scratch DIR   # also prepares the scratch copy the engine's
                                                         # same-call run would use (CPU only)
  python3 scripts/ncu_check.py [--slug SLUG] [--no-same-run]
                                                         # on the GPU: times the points with the engine
                                                         # (unless --no-same-run), profiles, writes
                                                         # data/<slug>/checks/ncu.json and ncu.log
"""
import argparse, datetime, json, math, os, re, shutil, statistics, subprocess, sys, tempfile, time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = 7
WARMUP = 1
SHORT_US = 10.0
TARGET = {"long": 0.02, "short": 0.05}
METRIC = "gpu__time_duration.sum"
# The engine's fixed NVRTC options (gpu/compile.rs, DESIGN.md), besides the architecture.
FIXED_OPTIONS = ["-lineinfo", "--std=c++17"]
# At most this many launches per sample: a host loop of hundreds of launches is not a kernel timing.
MAX_LAUNCHES = 8

# (experiment, variant, the recorded point's parameters): short (< 10 us) and long kernels of every experiment.
POINTS = [
    ("aat_lab3", "nopad", {"BS": 16, "N": 1024}),
    ("aat_lab3", "pad", {"BS": 32, "N": 1024}),
    ("bank_conflicts", "lds", {"BLOCK": 256, "BLOCKS": 1056, "ITERS": 4096, "S": 3}),
    ("bank_conflicts", "lds", {"BLOCK": 256, "BLOCKS": 1056, "ITERS": 4096, "S": 64}),
    ("coalescing", "copy_bulk", {"N": 2048, "OFFSET": 0, "STRIDE": 1}),
    ("coalescing", "offset", {"N": 2048, "OFFSET": 25, "STRIDE": 1}),
    ("coalescing", "copy", {"N": 16384, "OFFSET": 0, "STRIDE": 1}),
    ("constant_coef", "coef_const", {"N": 4194304}),
    ("constant_coef", "coef_ldg", {"N": 67108864}),
    ("constant_table", "table", {"N": 1048576}),
    ("constant_table", "table_xin", {"N": 67108864}),
    ("lab3_col_mean", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("lab3_col_mean", "shared", {"ALIGN": 1, "SIZE": 10001}),
    ("lab3_dot", "shfl", {"N": 1000}),
    ("lab3_dot", "shared", {"N": 67108864}),
    ("lab3_row_max", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("lab3_row_mean", "global", {"ALIGN": 32, "SIZE": 10001}),
    ("lab3_row_min", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("lab3_row_sum", "shared", {"ALIGN": 32, "SIZE": 10001}),
    ("lab3_row_sumsq", "shared", {"ALIGN": 1, "SIZE": 1000}),
    ("latency", "shared", {"LEN": 67108864, "SLEN": 8192, "HOP": 8209, "STEPS": 65539}),
    ("latency", "global", {"LEN": 67108864, "SLEN": 8192, "HOP": 8209, "STEPS": 65539}),
    ("local_memory", "direct", {"ARR": 4, "TOTAL": 4194304}),
    ("local_memory", "direct", {"ARR": 128, "TOTAL": 67108864}),
    ("matmul_lab3", "shared", {"BS": 16, "N": 1024}),
    ("matmul_lab3", "naive", {"BS": 16, "N": 2048}),
    ("matmul_szczepanski", "v4", {"BS": 16, "N": 64}),
    ("matmul_szczepanski", "v4", {"BS": 8, "N": 352}),
    ("matmul_widuch", "shared_2d_mm", {"M": 16, "N": 160}),
    ("matmul_widuch", "global_2d_mm", {"M": 16, "N": 2400}),
    ("reduction", "best", {"B": 128, "N": 4194304}),
    ("reduction", "reduce1", {"B": 128, "N": 268435456}),
    ("sgemm", "warptile", {"BK": 16, "N": 1024}),
    ("sgemm", "naive", {"BK": 16, "N": 2048}),
    ("transpose_conrad", "copy", {"N": 256, "ROWPAD": 0, "TILE": 16}),
    ("transpose_conrad", "shared", {"N": 2816, "ROWPAD": 0, "TILE": 16}),
    ("transpose_conrad", "naive", {"N": 16384, "ROWPAD": 0, "TILE": 16}),
    ("transpose_kb", "shared_pad", {"BX": 4, "BY": 128, "N": 1024, "TILE": 16}),
    ("transpose_kb", "naive", {"BX": 32, "BY": 1, "N": 8192, "TILE": 16}),
    ("transpose_lab3", "transpose1", {"BS": 16, "N": 1024}),
    ("transpose_lab3", "transpose1", {"BS": 16, "N": 8192}),
]


class PlanError(Exception):
    pass


# ---------------------------------------------------------------- expressions
# The spec's expression language (book/adding-an-experiment.md), for launch geometry, lengths, defines
# and arguments: integers and floats, + - * / % ^, comparisons, && || !, if(), div, ceil_div, min, max,
# abs, floor, ceil, sqrt, log2, pow2. `/` between integers truncates toward zero, as in C; `^` binds
# tighter than unary minus and is right-associative.

TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\.\d+(?:[eE][-+]?\d+)?)|(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(&&|\|\||<=|>=|==|!=|[-+*/%^()<>!,]))")


def tokens(src):
    out, pos = [], 0
    src = src.strip()
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m or m.end() == pos:
            raise PlanError(f"cannot read the expression `{src}` at `{src[pos:]}`")
        f, i, name, op = m.groups()
        out.append(("num", float(f)) if f else ("num", int(i)) if i else ("name", name) if name else ("op", op))
        pos = m.end()
    return out


def trunc_div(a, b):
    if b == 0:
        raise PlanError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_rem(a, b):
    if b == 0:
        raise PlanError("division by zero")
    return a - b * trunc_div(a, b)


class Parser:
    def __init__(self, src, env):
        self.src, self.toks, self.i, self.env = src, tokens(src), 0, env

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, op=None):
        t = self.peek()
        if op is not None and t != ("op", op):
            raise PlanError(f"expected `{op}` in `{self.src}`")
        self.i += 1
        return t

    def parse(self):
        v = self.or_()
        if self.i != len(self.toks):
            raise PlanError(f"unexpected `{self.peek()[1]}` in `{self.src}`")
        return v

    def or_(self):
        v = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            r = self.and_()
            v = int(bool(v) or bool(r))
        return v

    def and_(self):
        v = self.cmp()
        while self.peek() == ("op", "&&"):
            self.take()
            r = self.cmp()
            v = int(bool(v) and bool(r))
        return v

    def cmp(self):
        v = self.sum()
        t = self.peek()
        if t[0] == "op" and t[1] in ("<", "<=", ">", ">=", "==", "!="):
            self.take()
            r = self.sum()
            v = int({"<": v < r, "<=": v <= r, ">": v > r, ">=": v >= r, "==": v == r, "!=": v != r}[t[1]])
        return v

    def sum(self):
        v = self.product()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            r = self.product()
            v = v + r if op == "+" else v - r
        return v

    def product(self):
        v = self.unary()
        while self.peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            op = self.take()[1]
            r = self.unary()
            ints = isinstance(v, int) and isinstance(r, int)
            if op == "*":
                v = v * r
            elif op == "/":
                if not ints and r == 0:
                    raise PlanError("division by zero")
                v = trunc_div(v, r) if ints else v / r
            else:
                v = c_rem(v, r) if ints else math.fmod(v, r)
        return v

    def unary(self):
        t = self.peek()
        if t in (("op", "-"), ("op", "+"), ("op", "!")):
            self.take()
            v = self.unary()
            return -v if t[1] == "-" else v if t[1] == "+" else int(not v)
        return self.power()

    def power(self):
        base = self.primary()
        if self.peek() == ("op", "^"):
            self.take()
            exp = self.unary()
            if isinstance(base, int) and isinstance(exp, int) and exp >= 0:
                return base ** exp
            return float(base) ** float(exp)
        return base

    def primary(self):
        kind, val = self.take()
        if kind == "num":
            return val
        if kind == "op" and val == "(":
            v = self.or_()
            self.take(")")
            return v
        if kind == "name":
            if self.peek() == ("op", "("):
                self.take()
                args = [self.or_()]
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.or_())
                self.take(")")
                return call(val, args, self.src)
            if val not in self.env:
                raise PlanError(f"unknown variable `{val}` in `{self.src}`")
            return self.env[val]
        raise PlanError(f"unexpected `{val}` in `{self.src}`")


def call(name, a, src):
    one = {"abs": abs, "floor": math.floor, "ceil": math.ceil, "sqrt": math.sqrt, "log2": math.log2,
           "pow2": lambda k: 2 ** k}
    if name in one and len(a) == 1:
        v = one[name](a[0])
        return int(v) if name in ("floor", "ceil") else v
    if name == "div" and len(a) == 2:
        return trunc_div(a[0], a[1]) if all(isinstance(x, int) for x in a) else float(math.trunc(a[0] / a[1]))
    if name == "ceil_div" and len(a) == 2:
        if a[1] == 0:
            raise PlanError("division by zero")
        return -((-a[0]) // a[1]) if all(isinstance(x, int) for x in a) else float(math.ceil(a[0] / a[1]))
    if name in ("min", "max") and len(a) >= 2:
        return (min if name == "min" else max)(a)
    if name == "if" and len(a) == 3:  # (both branches are evaluated here; launch expressions have no side effects)
        return a[1] if a[0] else a[2]
    raise PlanError(f"unknown function `{name}` with {len(a)} argument(s) in `{src}`")


def evaluate(src, env):
    if isinstance(src, bool):
        raise PlanError(f"a boolean is not an expression: {src}")
    if isinstance(src, (int, float)):
        return src
    return Parser(str(src), env).parse()


def integer(src, env, what):
    v = evaluate(src, env)
    if isinstance(v, float):
        if not v.is_integer():
            raise PlanError(f"{what} `{src}` = {v} is not an integer")
        v = int(v)
    return v


# ---------------------------------------------------------------- plans

def load_spec(exp):
    path = os.path.join(ROOT, "kernels", exp, "experiment.toml")
    with open(path, "rb") as f:
        return tomllib.load(f)


def point_env(spec, params, device):
    """Variables of a point: the spec's defaults, the recorded parameters, "AxB" strings, device variables."""
    values = dict(spec.get("params", {}))
    values.update(params)
    env = {}
    for k, v in values.items():
        if isinstance(v, str):
            m = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", v)
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                env[f"{k}_X"], env[f"{k}_Y"], env[k] = a, b, a * b
        elif not isinstance(v, bool):
            env[k] = v
    env.update({"WARP": 32, "SM_COUNT": device["sm_count"], "L2_BYTES": device["l2_bytes"], "MAX_THREADS": 1024})
    return env


def variant_of(spec, name):
    base = {k: v for k, v in spec.items() if k != "variant"}
    for v in spec.get("variant", []):
        if v["name"] == name:
            return v, base
    raise PlanError(f"no variant `{name}` in the spec")


def dims(exprs, env, what):
    out = [1, 1, 1]
    for i, e in enumerate(list(exprs)[:3]):
        out[i] = integer(e, env, what)
    return out


def resolve_args(variant, env, buffers, pass_in=None, pass_out=None):
    out = []
    for a in variant.get("args", []):
        if isinstance(a, dict):
            ((ty, e),) = a.items()
            v = evaluate(e, env)
            out.append([ty, float(v) if ty in ("f32", "f64") else int(v)])
        elif a == "@in":
            out.append(["buffer", pass_in])
        elif a == "@out":
            out.append(["buffer", pass_out])
        elif isinstance(a, str) and a in buffers:
            out.append(["buffer", a])
        else:
            out.append(["i32", integer(a, env, "argument")])
    return out


def launch_sequence(variant, env, buffers):
    """One sample's launches: one launch, a host loop, or multi-pass ping-pong (as the spec reference says)."""
    def one(e, pin=None, pout=None):
        return {
            "grid": dims(variant["grid"], e, "grid"),
            "block": dims(variant["block"], e, "block"),
            "shared": integer(variant.get("shared", 0), e, "shared"),
            "args": resolve_args(variant, e, buffers, pin, pout),
        }
    if "loop" in variant:
        count = integer(variant["loop"]["count"], env, "loop count")
        return [one({**env, variant["loop"]["var"]: i}) for i in range(max(count, 0))]
    if "passes" in variant:
        p = variant["passes"]
        count = integer(p["count"], env, "passes.count")
        src, k, out = p["input"], 0, []
        while True:
            e = {**env, "count": count}
            nxt = integer(p["next"], e, "passes.next")
            if nxt >= count > 1:
                raise PlanError(f"passes.next({count}) = {nxt} does not shrink")
            dst = p["result"] if nxt <= 1 else p["scratch"][k % 2]
            out.append(one(e, src, dst))
            if nxt <= 1 or len(out) > 64:
                return out
            src, count, k = dst, nxt, k + 1
    return [one(env)]


def plan_point(exp, variant_name, params, device):
    spec = load_spec(exp)
    variant, base = variant_of(spec, variant_name)
    if "kernel" not in variant:
        raise PlanError("not a kernel variant (CPU baselines and library calls are not profiled)")
    env = point_env(spec, params, device)
    buffers = {}
    for b in spec.get("buffer", []):
        init = b.get("init", "zero")
        buffers[b["name"]] = {
            "name": b["name"], "type": b["type"], "len": integer(b["len"], env, f"buffer {b['name']} len"),
            "init": init, "constant": bool(b.get("constant", False)),
        }
    defines = []
    for name, value in variant.get("defines", {}).items():
        if isinstance(value, dict):
            text = str(value["text"])
        elif isinstance(value, str):
            text = str(evaluate(value, env))
        else:
            text = str(value)
        defines.append(f"-D{name}={text}")
    source = os.path.join(ROOT, "kernels", exp, variant.get("source", base.get("source", "")))
    launches = launch_sequence(variant, env, buffers)
    if len(launches) > MAX_LAUNCHES:
        raise PlanError(f"{len(launches)} launches per sample (a host loop): not a kernel timing")
    return {
        "experiment": exp, "variant": variant_name, "params": params, "function": variant["kernel"],
        "source": source,
        "options": FIXED_OPTIONS + [f"-I{os.path.dirname(source)}"] + defines + list(variant.get("options", [])),
        "buffers": list(buffers.values()), "launches": launches,
    }


def recorded_point(slug, exp, variant, params):
    """(the device block, the recorded point) or (device, None) / (None, None) when not recorded."""
    path = os.path.join(ROOT, "data", slug, f"{exp}.json")
    if not os.path.exists(path):
        return None, None
    rec = json.load(open(path))
    for p in rec["points"]:
        if p["variant"] == variant and p["params"] == params:
            return rec["device"], p
    return rec["device"], None


def any_device(slug):
    """The device block of any recording of `slug`."""
    folder = os.path.join(ROOT, "data", slug)
    name = next(f for f in sorted(os.listdir(folder)) if f.endswith(".json"))
    return json.load(open(os.path.join(folder, name)))["device"]


def plan_all(slug):
    """Every point planned against the recordings of `slug`: (plans, problems, notes)."""
    plans, problems, notes = [], [], []
    for exp, variant, params in POINTS:
        label = f"{exp}/{variant} {params}"
        device, p = recorded_point(slug, exp, variant, params)
        if device is None:
            # Still planned (with this device's variables from another recording), so a spec the script
            # cannot read fails the dry run before the experiment is ever recorded.
            try:
                plan_point(exp, variant, params, any_device(slug))
                notes.append(f"{label}: planned, but {exp} is not recorded on {slug}")
            except (PlanError, KeyError, ValueError, OSError, StopIteration) as e:
                problems.append(f"{label}: cannot plan from the spec: {e}")
            continue
        if p is None:
            problems.append(f"{label}: not in data/{slug}/{exp}.json (was the directive's sweep changed?)")
            continue
        timing = p.get("timing") or {}
        if p.get("outcome") != "ok" or "median_ms" not in timing:
            problems.append(f"{label}: recorded as {p.get('outcome')} without a timing")
            continue
        if timing.get("mode") not in ("cold", "hot"):
            problems.append(f"{label}: recorded in {timing.get('mode')} mode, not on the GPU")
            continue
        try:
            plan = plan_point(exp, variant, params, device)
        except (PlanError, KeyError, ValueError, OSError) as e:
            problems.append(f"{label}: cannot plan from the spec: {e}")
            continue
        plan.update({
            "mode": timing["mode"], "engine_ms": timing["median_ms"], "engine_samples": timing.get("samples"),
            "engine_noise": timing.get("noise"), "runs_per_sample": timing.get("runs_per_sample", 1),
            "empty_kernel_ms": timing.get("empty_kernel_ms"), "min_ms": timing.get("min_ms"),
            "clock": timing.get("clock", "events"),
            "recorded_at": p.get("recorded_at"), "recorded_commit": p.get("commit"),
        })
        plans.append(plan)
    return plans, problems, notes


def event_offset(slug):
    """The event-overhead calibration of `slug` (scripts/event_offset.py), or None."""
    path = os.path.join(ROOT, "data", slug, "checks", "event_offset.json")
    return json.load(open(path)) if os.path.exists(path) else None


def launch_gaps(calibration, plan):
    """What the engine's events of a point include and ncu's sum of its launches' durations does not:
    the calibrated gap between two launches (event_offset.json's `gap_ms`), once per launch after the
    first in a sample. A sample of R runs of n launches has n*R - 1 of them; the engine's median is per
    run, so (n*R - 1) / R gaps. 0 for one launch per sample, or without a calibration of the gap."""
    n = len(plan["launches"])
    r = max(1, plan.get("runs_per_sample") or 1)
    if calibration is None or calibration.get("gap_ms") is None or plan.get("clock") == "kernel":
        return 0.0
    return max(0.0, calibration["gap_ms"]) * (n * r - 1) / r


def calibration_is_sane(calibration):
    """results/event_offset.rs's is_sane: finite, a positive ncu time, and an offset smaller than the
    empty kernel's own event time; the book subtracts nothing with any other calibration."""
    try:
        values = [float(calibration[k]) for k in ("events_ms", "ncu_ms", "offset_ms")]
    except (KeyError, TypeError, ValueError):
        return False
    events, ncu, offset = values
    return all(math.isfinite(v) for v in values) and ncu > 0 and abs(offset) < events


def own_empty_kernel(calibration, plan):
    """The empty kernel the point's own run timed, when the book uses it for this point's overhead
    (results/event_offset.rs: longer than ncu's, and RUN_EMPTY_KERNEL_MAX (3) times the
    calibration's at most); None when the calibrated offset applies or nothing is subtracted."""
    if calibration is None or plan.get("clock") == "kernel" or not calibration_is_sane(calibration):
        return None
    own = plan.get("empty_kernel_ms")
    if (isinstance(own, (int, float)) and math.isfinite(own) and own > calibration["ncu_ms"]
            and own <= 3.0 * calibration["events_ms"]):
        return own
    return None


def corrected_offset(calibration, plan):
    """What the book subtracts from this point's recorded median (results/event_offset.rs): per
    sample, the events' overhead of one launch (the point's own run's empty kernel less the
    calibration's ncu duration when the run timed one, else the calibrated offset), for event-timed
    points; 0 without a (sane) calibration or when the median, or the fastest sample (`min_ms`, when
    the plan has it), would not stay positive."""
    if calibration is None or plan.get("clock") == "kernel" or not calibration_is_sane(calibration):
        return 0.0
    own = own_empty_kernel(calibration, plan)
    per_launch = calibration["offset_ms"] if own is None else own - calibration["ncu_ms"]
    off = per_launch / max(1, plan.get("runs_per_sample") or 1)
    fastest = plan.get("min_ms")
    if plan["engine_ms"] - off <= 0 or (isinstance(fastest, (int, float)) and fastest - off <= 0):
        return 0.0
    return off


def subtracted_empty_kernel(calibration, plan):
    """The run's own empty kernel when the book subtracted it from this point (for the check's rows,
    whose range the rendered headline gives); None when it subtracted the calibration, or nothing."""
    return own_empty_kernel(calibration, plan) if corrected_offset(calibration, plan) > 0 else None


# ---------------------------------------------------------------- the engine, in the same call

# What of the book `mdbook-gpulab record` reads (the compile cache is left behind: it compiles afresh).
BOOK_PARTS = ("book.toml", "book", "kernels", "data")


def point_matches(q, plan):
    return q["variant"] == plan["variant"] and q["params"] == plan["params"]


def copy_book(scratch):
    """A copy of the book in `scratch` (what `record` reads of it)."""
    os.makedirs(scratch, exist_ok=True)
    for part in BOOK_PARTS:
        src, dst = os.path.join(ROOT, part), os.path.join(scratch, part)
        if os.path.isdir(src):
            shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)


def prepare_scratch(slug, plans, scratch):
    """Removes the checked points from the recordings of `slug` in the book copy at `scratch`
    (copy_book), so that `mdbook-gpulab record` there runs exactly those (and nothing else while the
    book is current). The book's own data/ is not touched. Returns {experiment: points removed}."""
    removed = {}
    for exp in sorted({p["experiment"] for p in plans}):
        mine = [p for p in plans if p["experiment"] == exp]
        path = os.path.join(scratch, "data", slug, f"{exp}.json")
        rec = json.load(open(path))
        kept = [q for q in rec["points"] if not any(point_matches(q, p) for p in mine)]
        removed[exp] = len(rec["points"]) - len(kept)
        rec["points"] = kept
        with open(path, "w") as f:
            json.dump(rec, f, indent=1)
            f.write("\n")
    return removed


def failure_text(failure):
    """A recording's failure ({"kind", "message"}) as one line."""
    if isinstance(failure, dict):
        return ": ".join(str(failure[k]) for k in ("kind", "message") if failure.get(k) is not None)
    return None if failure is None else str(failure)


def engine_binary():
    return os.environ.get("GPULAB_BIN") or shutil.which("mdbook-gpulab")


def same_run(slug, plans, scratch, commit):
    """Times every checked point with the engine on this GPU, now: `mdbook-gpulab record` in a scratch
    copy of the book without those points. Sets plan["same_run"] (the new point's timing, or its
    failure) and returns what the run did, for the report."""
    binary = engine_binary()
    if not binary:
        raise SystemExit("no mdbook-gpulab binary (GPULAB_BIN or PATH) to time the points with the engine; "
                         "--no-same-run compares with the recordings only")
    copy_book(scratch)
    removed = prepare_scratch(slug, plans, scratch)
    env = dict(os.environ)
    if commit:
        env["GPULAB_COMMIT"] = commit
    start = time.time()
    cmd = [binary, "record", scratch, "--experiment", ",".join(sorted(removed))]
    print("$ " + " ".join(cmd), flush=True)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        raise SystemExit(f"the engine's run failed (status {out.returncode})")
    ran = sum(int(m) for m in re.findall(r"^recorded (\d+) point\(s\) of ", out.stderr, re.M))
    for p in plans:
        path = os.path.join(scratch, "data", slug, f"{p['experiment']}.json")
        rec = json.load(open(path)) if os.path.exists(path) else {"points": []}
        q = next((q for q in rec["points"] if point_matches(q, p)), None)
        if q is None:
            raise SystemExit(f"the engine's run did not record {p['experiment']}/{p['variant']} {p['params']} "
                             f"in data/{slug}/ (is this GPU {slug}?)")
        t = q.get("timing") or {}
        if q.get("outcome") != "ok" or "median_ms" not in t:
            p["same_run"] = {"outcome": q.get("outcome"), "failure": failure_text(q.get("failure"))}
            continue
        p["same_run"] = {
            "outcome": "ok", "raw_ms": t["median_ms"], "samples": t.get("samples"), "noise": t.get("noise"),
            "runs_per_sample": t.get("runs_per_sample", 1), "clock": t.get("clock", "events"),
            "empty_kernel_ms": t.get("empty_kernel_ms"), "min_ms": t.get("min_ms"),
            "mode": t.get("mode"), "recorded_at": q.get("recorded_at"), "commit": q.get("commit"),
        }
    return {"command": "mdbook-gpulab record <scratch copy> --experiment " + ",".join(sorted(removed)),
            "points_removed": sum(removed.values()), "points_recorded": ran,
            "seconds": round(time.time() - start, 1)}


def slugs():
    data = os.path.join(ROOT, "data")
    return sorted(d for d in os.listdir(data) if d != "papers" and os.path.isdir(os.path.join(data, d)))


def describe(plan):
    ls = plan["launches"]
    l0 = ls[0]
    geo = f"grid {tuple(l0['grid'])} block {tuple(l0['block'])} shared {l0['shared']}"
    args = ", ".join(f"{a[1]}" if a[0] == "buffer" else f"{a[0]} {a[1]}" for a in l0["args"])
    bufs = ", ".join(f"{b['name']}[{b['len']}] {b['type']}" for b in plan["buffers"])
    more = f" (+{len(ls) - 1} more launch(es))" if len(ls) > 1 else ""
    return (f"{plan['experiment']}/{plan['variant']} {plan['params']} [{plan['mode']}, engine {plan['engine_ms']:.4f} ms]\n"
            f"    {plan['function']}<<<{geo}>>>({args}){more}\n"
            f"    options {' '.join(o for o in plan['options'] if not o.startswith('-I'))}\n"
            f"    buffers {bufs}")


def dry_run(selected, json_path=None, scratch=None):
    failed = False
    dumped = {}
    if scratch:
        copy_book(scratch)
    for slug in selected:
        plans, problems, notes = plan_all(slug)
        dumped[slug] = plans
        print(f"== {slug}: {len(plans)} of {len(POINTS)} points planned")
        for p in plans:
            print(describe(p))
        for n in notes:
            print(f"  note: {n}")
        for p in problems:
            print(f"  PROBLEM: {p}")
        short = sum(1 for p in plans if p["engine_ms"] * 1000 < SHORT_US)
        exps = {p["experiment"] for p in plans}
        print(f"   {len(plans)} points, {short} below {SHORT_US:g} us, {len(exps)} experiments")
        failed |= bool(problems)
        if scratch:
            removed = prepare_scratch(slug, plans, scratch)
            print(f"   scratch copy for the engine's same-call run: {scratch} "
                  f"({sum(removed.values())} point(s) removed from {len(removed)} recording(s) of {slug})")
    all_exps = {e for e, _, _ in POINTS}
    specs = {d for d in os.listdir(os.path.join(ROOT, "kernels")) if os.path.exists(os.path.join(ROOT, "kernels", d, "experiment.toml"))}
    if specs - all_exps:
        print(f"PROBLEM: experiments without a checked point: {sorted(specs - all_exps)}")
        failed = True
    if len(POINTS) < 30:
        print(f"PROBLEM: only {len(POINTS)} points (at least 30)")
        failed = True
    if json_path:
        with open(json_path, "w") as f:
            json.dump(dumped, f, indent=1)
    print("DRY RUN: " + ("problems found" if failed else "every point plans and is recorded"))
    return 1 if failed else 0


# ---------------------------------------------------------------- the GPU side

class L2Flush:
    """The engine's L2 flush before a cold sample (gpu::l2_clean): a memset of twice the L2 size, then
    `discard.global.L2` over it (sm_80+), so that no dirty line of the flush is left for the kernel to
    write back. Used with --cache-control none for multi-launch cold points: one flush per run of the
    sequence, as the engine does per sample. Neither is one of the profiled kernels (--kernel-name)."""

    def __init__(self):
        import cupy as cp
        self.cp = cp
        l2 = cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
        self.buf = cp.empty(2 * l2, dtype=cp.uint8)
        major = cp.cuda.runtime.getDeviceProperties(0)["major"]
        self.discard = None
        self.runs = 0
        if int(major) >= 8:
            self.discard = cp.RawKernel(r'''extern "C" __global__ void gpulab_ncu_check_discard(char* p, unsigned long long n) {
                unsigned long long i = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * 128ull;
                if (i < n) asm volatile("discard.global.L2 [%0], 128;" :: "l"(p + i) : "memory");
            }''', "gpulab_ncu_check_discard")

    def run(self):
        n = self.buf.nbytes
        # A different byte each time, as the engine's flush (no write can be skipped as unchanged).
        self.runs += 1
        self.buf.data.memset_async(1 + self.runs % 255, n)
        if self.discard is not None:
            lines = n // 128
            self.discard(((lines + 255) // 256,), (256,), (self.buf, self.cp.uint64(n)))


def worker(plan_path):
    """Runs inside ncu: for each point, one warm-up run and SAMPLES runs of its launch sequence."""
    import cupy as cp
    plan = json.load(open(plan_path))
    types = {"f32": cp.float32, "f64": cp.float64, "i32": cp.int32, "u32": cp.uint32}
    scalars = {"i32": cp.int32, "u32": cp.uint32, "i64": cp.int64, "f32": cp.float32, "f64": cp.float64}
    rng = cp.random.default_rng(20261123)
    cc = cp.cuda.Device().compute_capability
    # Every buffer its own cudaMalloc, as the engine allocates them (cuMemAlloc), not a piece of
    # CuPy's memory pool: a small kernel's time depends on where its buffers lie (session 7: the
    # H100's transpose_lab3 at N = 1024 read 10.7 us under ncu from the engine's launches, 11.8 us
    # from pooled buffers, the same machine code).
    cp.cuda.set_allocator(None)
    for point in plan["points"]:
        if point.get("image"):   # the engine's own machine code (launch-info --image)
            mod = cp.RawModule(path=point["image"])
        else:
            src = open(point["source"]).read()
            mod = cp.RawModule(code=src, options=tuple(point["options"]) + (f"--gpu-architecture=sm_{cc}",))
        fn = mod.get_function(point["function"])
        bufs = {}
        for b in point["buffers"]:
            dt, n, init = types[b["type"]], max(int(b["len"]), 1), b["init"]
            if isinstance(init, dict) and "random" in init:
                lo, hi = init["random"]
                if dt in (cp.int32, cp.uint32):
                    arr = rng.integers(int(lo), int(hi) + 1, size=n, dtype=cp.int64).astype(dt)
                else:
                    arr = (lo + (hi - lo) * rng.random(n, dtype=cp.float64)).astype(dt)
            elif isinstance(init, dict) and "constant" in init:
                arr = cp.full(n, init["constant"], dtype=dt)
            elif init == "iota":
                arr = cp.arange(n, dtype=cp.int64).astype(dt)
            else:
                arr = cp.zeros(n, dtype=dt)
            if b["constant"]:
                ptr = mod.get_global(b["name"])
                cp.ndarray((n,), dt, ptr)[...] = arr
            bufs[b["name"]] = arr

        def arg(a):
            return bufs[a[1]] if a[0] == "buffer" else scalars[a[0]](a[1])

        launches = [(tuple(l["grid"]), tuple(l["block"]), tuple(arg(a) for a in l["args"]), int(l["shared"]))
                    for l in point["launches"]]
        biggest = max(s for *_, s in launches)
        if biggest > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = biggest
        flush = L2Flush() if point.get("flush") else None
        for _ in range(WARMUP + SAMPLES):
            if flush:
                flush.run()
            for grid, block, args, shared in launches:
                fn(grid, block, args, shared_mem=shared)
            cp.cuda.Device().synchronize()
        del bufs, launches
        cp.get_default_memory_pool().free_all_blocks()
        print(f"ran {point['experiment']}/{point['variant']} {point['params']}", file=sys.stderr, flush=True)


def ncu_version(ncu):
    out = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout
    lines = [l for l in out.splitlines() if "Version" in l]
    return lines[-1].strip() if lines else out.strip()


def profile(ncu, plans, cache_control, tmp, tag=""):
    """Profiles `plans` in one ncu run; returns the kernel durations in ns, in launch order, with names."""
    cache_control_tag = cache_control + (f"-{tag}" if tag else "")
    plan_path = os.path.join(tmp, f"plan-{cache_control_tag}.json")
    json.dump({"points": plans}, open(plan_path, "w"))
    names = sorted({p["function"] for p in plans})
    report = os.path.join(tmp, f"report-{cache_control_tag}")
    cmd = [ncu, "--clock-control", "none", "--cache-control", cache_control, "--metrics", METRIC,
           "--kernel-name-base", "function", "--kernel-name", "regex:^(" + "|".join(map(re.escape, names)) + ")$",
           "--export", report, "--force-overwrite",
           sys.executable, os.path.abspath(__file__), "--worker", plan_path]
    print("$ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    csv_text = subprocess.run([ncu, "--import", report + ".ncu-rep", "--csv", "--page", "raw", "--print-units", "base"],
                              check=True, capture_output=True, text=True).stdout
    import csv
    rows = list(csv.reader(csv_text.splitlines()))
    header_at = next(i for i, r in enumerate(rows) if METRIC in r)
    header = rows[header_at]
    col, name_col, id_col = header.index(METRIC), header.index("Kernel Name"), header.index("ID")
    out = []
    for r in rows[header_at + 1:]:
        if len(r) <= col or not r[id_col].strip().isdigit():
            continue  # the units row
        # (A demangled name may carry its parameter list; the spec's kernels are extern "C".)
        out.append((int(r[id_col]), r[name_col].split("(")[0].strip(), float(r[col].replace(",", ""))))
    out.sort()
    return [(name, ns) for _, name, ns in out]


def slug_of(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def git_commit():
    if os.environ.get("GPULAB_COMMIT"):
        return os.environ["GPULAB_COMMIT"]
    binary = engine_binary()
    stamp = binary and os.path.join(os.path.dirname(os.path.abspath(binary)), "COMMIT")
    if stamp and os.path.exists(stamp):   # what the binaries were built from (build-device-bin.sh)
        return open(stamp).read().strip()
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def engine_images(plans, tmp, own_compile):
    """Each plan's kernel compiled exactly as the engine compiles it (`mdbook-gpulab launch-info
    --image`: the same NVRTC, options and architecture), so that both sides time the same machine
    code; the launch configuration stays the script's own. Without the binary, or with
    --own-compile, the kernels are compiled here with CuPy (whose NVRTC and options may differ: in
    session 7 two kernels compiled that way ran 1.5 % and 13 % differently from the engine's).
    Returns what compiled the kernels, for the report."""
    binary = engine_binary()
    if own_compile or not binary:
        return "CuPy's RawModule (this script's own compile)" + ("" if own_compile else ": no mdbook-gpulab binary")
    kinds = set()
    for i, p in enumerate(plans):
        path = os.path.join(tmp, f"point{i}.img")
        out = subprocess.run([binary, "launch-info", p["experiment"], p["variant"]]
                             + [f"{k}={v}" for k, v in p["params"].items()] + ["--dir", ROOT, "--image", path],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"launch-info --image failed for {p['experiment']}/{p['variant']}: {out.stderr}")
        img = json.loads(out.stdout)["image"]
        p["image"] = path
        kinds.add(f"{img['kind']}, NVRTC {img['nvrtc']}")
    return "the engine's own compile (mdbook-gpulab launch-info --image: " + "; ".join(sorted(kinds)) + ")"


ENGINE_LAUNCHES = 12


def engine_launches(rows, cold_flush="ncu"):
    """For each cold point outside its target against the engine in the same call: ncu's
    median duration of the ENGINE's own launches of it (scripts/ncu_engine_point.sh: `record --rerun`
    of a one-directive book under ncu, the first launch dropped), beside the engine's time. It tells a
    difference of timing (the engine's events against ncu on the same launches) from a difference of
    launch (the same machine code and configuration, launched by this script's process and buffers
    instead of the engine's). The two sides are two runs, one after the other (the engine's events
    under ncu mean nothing): the engine's time is the same-call one. The verdict stays on the
    script's own launches. A point of several launches of one kernel (a reduction's passes, flushed
    once per run by the script as the engine flushes once per sample) is timed the same way on the
    engine's side: ncu's `--cache-control none`, each sample's launches summed (PER_SAMPLE); with
    --cold-flush script, every cold point is (the engine's own flush before each sample)."""
    for r in rows:
        sr = r["same_run"]
        if sr is None or sr["within"] or sr["outcome"] != "ok" or r["mode"] != "cold":
            continue
        if r["launches"] != 1 and not r["flushed_by_script"]:
            continue
        axes = "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in r["params"].items()) + " }"
        cmd = ["bash", os.path.join(ROOT, "scripts", "ncu_engine_point.sh"), r["experiment"], r["variant"], axes,
               r["function"], str(ENGINE_LAUNCHES * r["launches"])]
        env = dict(os.environ)
        own_flush = r["launches"] != 1 or cold_flush == "script"
        if own_flush:
            env.update(PER_SAMPLE=str(r["launches"]), CACHE_CONTROL="none")
        print("$ " + " ".join(cmd) + (f"  (PER_SAMPLE={r['launches']} CACHE_CONTROL=none)" if own_flush else ""),
              flush=True)
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        m = re.search(r"median of the rest ([0-9.]+) us", out.stdout)
        if out.returncode != 0 or not m:
            print(f"note: ncu on the engine's launches of {r['experiment']}/{r['variant']} failed:\n"
                  f"{out.stdout[-1500:]}{out.stderr[-1500:]}", flush=True)
            continue
        ms = float(m.group(1)) / 1000
        ratio = sr["engine_ms"] / ms
        sr.update({"ncu_engine_launches_ms": ms, "ratio_engine_launches": ratio,
                   "within_engine_launches": abs(ratio - 1) <= r["target"]})


def same_run_row(p, ncu_ms, calibration, kind):
    """The engine's time of this point in this call, beside ncu's, as the row's `same_run`."""
    same = p.get("same_run")
    if same is None:
        return None
    if same["outcome"] != "ok":
        return {"outcome": same["outcome"], "failure": same["failure"], "within": False}
    timing = {"engine_ms": same["raw_ms"], "min_ms": same.get("min_ms"), "clock": same["clock"],
              "runs_per_sample": same["runs_per_sample"],
              "empty_kernel_ms": same.get("empty_kernel_ms"),
              "launches": p["launches"]}
    off = corrected_offset(calibration, timing)
    gaps = launch_gaps(calibration, timing)
    ms = same["raw_ms"] - off - gaps
    return {
        "outcome": "ok", "engine_raw_ms": same["raw_ms"], "engine_ms": ms, "event_offset_ms": off,
        "own_empty_kernel_ms": subtracted_empty_kernel(calibration, timing), "launch_gaps_ms": gaps,
        "ratio_raw": same["raw_ms"] / ncu_ms, "within_raw": abs(same["raw_ms"] / ncu_ms - 1) <= TARGET[kind],
        "ratio": ms / ncu_ms, "within": abs(ms / ncu_ms - 1) <= TARGET[kind],
        "samples": same["samples"], "noise": same["noise"], "mode": same["mode"],
        "recorded_at": same["recorded_at"], "commit": same["commit"],
    }


def check(slug_arg, own_compile=False, same=True, cold_flush="ncu"):
    import cupy as cp
    start = time.time()
    props = cp.cuda.runtime.getDeviceProperties(0)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    slug = slug_arg or slug_of(gpu)
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    plans, problems, notes = plan_all(slug)
    for n in notes + problems:
        print(f"note: {n}")
    if not plans:
        print(f"nothing to check: no recorded point of the list on {slug}")
        return 1
    tmp = tempfile.mkdtemp(prefix="gpulab-ncu-")
    rows = []
    calibration = event_offset(slug)
    code = engine_images(plans, tmp, own_compile)
    commit = git_commit()   # the code that made every row (the engine's point: recorded_commit)
    engine_run = None
    if same:
        engine_run = same_run(slug, plans, os.path.join(tmp, "book"), commit)
    # Single-launch cold points: ncu flushes before the kernel (--cold-flush ncu), or this script
    # does (--cold-flush script). Multi-launch cold points: this script flushes once before each run
    # of the sequence (L2Flush), as the engine does before each sample.
    for p in plans:
        p["flush"] = p["mode"] == "cold" and (len(p["launches"]) > 1 or cold_flush == "script")
    groups = (("cold", "all", False), ("cold", "none", True), ("hot", "none", False))
    for mode, cache_control, flush in groups:
        group = [p for p in plans if p["mode"] == mode and p["flush"] == flush]
        if not group:
            continue
        kernels = profile(ncu, group, cache_control, tmp, "flush" if flush else "")
        expected = [p["function"] for p in group for _ in range((WARMUP + SAMPLES) * len(p["launches"]))]
        got = [k[0] for k in kernels]
        if got != expected:
            raise SystemExit(f"ncu profiled {len(got)} kernels, expected {len(expected)} in this order: "
                             f"{expected[:5]}… got {got[:5]}…")
        at = 0
        for p in group:
            n = len(p["launches"])
            runs = []
            for s in range(WARMUP + SAMPLES):
                ns = sum(k[1] for k in kernels[at:at + n])
                at += n
                if s >= WARMUP:
                    runs.append(ns / 1e6)
            ncu_ms = statistics.median(runs)
            kind = "short" if ncu_ms * 1000 < SHORT_US else "long"
            raw = p["engine_ms"]
            off = corrected_offset(calibration, p)
            gaps = launch_gaps(calibration, p)
            # As the book shows it (less the event overhead), and less the gaps between launches
            # that ncu's sum does not count.
            engine_ms = raw - off - gaps
            ratio = engine_ms / ncu_ms
            rows.append({
                "experiment": p["experiment"], "variant": p["variant"], "params": p["params"],
                "function": p["function"], "mode": mode, "cache_control": cache_control, "launches": n,
                "grid": p["launches"][0]["grid"], "block": p["launches"][0]["block"],
                "shared": p["launches"][0]["shared"], "options": [o for o in p["options"] if not o.startswith("-I")],
                "ncu_ms": ncu_ms, "ncu_runs_ms": runs, "engine_ms": engine_ms, "engine_raw_ms": raw,
                "event_offset_ms": off, "own_empty_kernel_ms": subtracted_empty_kernel(calibration, p),
                "launch_gaps_ms": gaps, "ratio_raw": raw / ncu_ms,
                "within_raw": abs(raw / ncu_ms - 1) <= TARGET[kind],
                "engine_samples": p["engine_samples"], "engine_noise": p["engine_noise"],
                "recorded_at": p["recorded_at"], "recorded_commit": p["recorded_commit"],
                "commit": commit,
                "ratio": ratio, "target": TARGET[kind], "kind": kind, "within": abs(ratio - 1) <= TARGET[kind],
                "flushed_by_script": p["flush"],
                "same_run": same_run_row(p, ncu_ms, calibration, kind),
            })
    if engine_run is not None:
        engine_launches(rows, cold_flush)
    shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.time() - start
    within = sum(r["within"] for r in rows)
    same_rows = [r["same_run"] for r in rows if r["same_run"] is not None]
    same_within = sum(r["within"] for r in same_rows)
    same_ok = [r for r in same_rows if r["outcome"] == "ok"]
    result = {
        "schema": 1,
        "tool": "scripts/ncu_check.py",
        "commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "ncu_version": ncu_version(ncu),
        "gpu": gpu,
        "slug": slug,
        "driver": cp.cuda.runtime.driverGetVersion(),
        "cupy": cp.__version__,
        "metric": METRIC,
        "clock_control": "none",
        "cache_control": {"cold": "all", "hot": "none", "cold, several launches": "none, flushed by the script"}
        if cold_flush == "ncu" else {"cold": "none, flushed by the script", "hot": "none"},
        "cold_flush": cold_flush,
        "code": code,
        "warmup_runs": WARMUP,
        "runs_per_point": SAMPLES,
        "targets": {"long": TARGET["long"], "short": TARGET["short"], "short_below_us": SHORT_US},
        "seconds": round(elapsed, 1),
        "event_offset": None if calibration is None else {
            k: calibration.get(k) for k in ("offset_ms", "events_ms", "ncu_ms", "commit", "date")},
        "summary": {"points": len(rows), "within": within, "within_raw": sum(r["within_raw"] for r in rows),
                    "worst": max((abs(r["ratio"] - 1) for r in rows), default=None),
                    "median_ratio": statistics.median(r["ratio"] for r in rows)},
        # The engine timed in this call, on this GPU (`same_run`): the verdict of the check when present.
        "same_run": None if engine_run is None else dict(engine_run, summary={
            "points": len(same_rows), "within": same_within,
            "within_raw": sum(r.get("within_raw", False) for r in same_rows),
            "failed": len(same_rows) - len(same_ok),
            "outside_within_on_engine_launches": sum(r.get("within_engine_launches", False) for r in same_rows),
            "worst": max((abs(r["ratio"] - 1) for r in same_ok), default=None),
            "median_ratio": statistics.median(r["ratio"] for r in same_ok) if same_ok else None}),
        "not_checked": notes + problems,
        "points": rows,
    }
    out_dir = os.path.join(ROOT, "data", slug, "checks")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "ncu.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    lines = [f"ncu check on {gpu} ({slug}), {result['ncu_version']}, commit {result['commit']}, {result['date']}",
             (f"--clock-control none; --cache-control all (cold points of one launch) / none (hot points, and cold "
              f"points of several launches, which the script flushes once per run); {METRIC}; "
              if cold_flush == "ncu" else
              f"--clock-control none; --cache-control none, cold points flushed by the script once per run "
              f"(--cold-flush script: L2 only, as the engine); {METRIC}; ")
             + f"median of {SAMPLES} runs after {WARMUP} warm-up; kernels: {code}",
             "engine ms: the recorded median less the event overhead calibrated on this GPU "
             + ("(none: no data/<slug>/checks/event_offset.json)" if calibration is None else
                f"({calibration['offset_ms'] * 1000:.3f} us per sample, scripts/event_offset.py, {calibration['date']}; "
                f"a point whose run timed the empty kernel itself: that run's time less ncu's "
                f"{calibration['ncu_ms'] * 1000:.3f} us)")
             + ("" if calibration is None or calibration.get("gap_ms") is None else
                f" and the calibrated gap between launches ({max(0.0, calibration['gap_ms']) * 1000:.3f} us, "
                f"not counted by ncu's sum) per launch after a sample's first")
             + "; raw: as recorded"
             + ("" if engine_run is None else
                f"; same call: the engine's median in this call ({engine_run['command']}: "
                f"{engine_run['points_recorded']} point(s) in {engine_run['seconds']:.0f} s), less the same overhead"),
             f"{'point':58} {'launches':>8} {'ncu ms':>10} {'raw ms':>10} {'ratio':>7} {'engine ms':>10} {'ratio':>7}"
             + ("" if engine_run is None else f" {'same call':>10} {'ratio':>7}") + f" {'target':>7}"]

    def verdict(r):
        v = r["same_run"] if engine_run is not None else r
        return "ok" if v["within"] else "OUTSIDE"

    for r in rows:
        case = f"{r['experiment']}/{r['variant']} " + " ".join(f"{k}={v}" for k, v in r["params"].items())
        sr = r["same_run"]
        same_cols = "" if engine_run is None else (
            f" {sr['engine_ms']:10.4f} {sr['ratio']:7.3f}" if sr["outcome"] == "ok" else f" {sr['outcome']:>18}")
        lines.append(f"{case:58} {r['launches']:8d} {r['ncu_ms']:10.4f} {r['engine_raw_ms']:10.4f} {r['ratio_raw']:7.3f} "
                     f"{r['engine_ms']:10.4f} {r['ratio']:7.3f}{same_cols} "
                     f"{'±%g%%' % (r['target'] * 100):>7} {verdict(r)}")
    for r in rows:
        sr = r["same_run"] or {}
        if "ncu_engine_launches_ms" in sr:
            lines.append(f"  {r['experiment']}/{r['variant']} {r['params']}: ncu on the engine's own launches "
                         f"{sr['ncu_engine_launches_ms']:.4f} ms (the script's launches {r['ncu_ms']:.4f}); "
                         f"engine ÷ that {sr['ratio_engine_launches']:.3f} "
                         f"{'within' if sr['within_engine_launches'] else 'OUTSIDE'}")
    if engine_run is not None:
        ss = result["same_run"]["summary"]
        worst = "n/a" if ss["worst"] is None else f"{ss['worst'] * 100:.1f} %"
        lines.append(f"NCU CHECK (the engine in the same call): {ss['within']} of {ss['points']} points within target "
                     f"({ss['within_raw']} before the event-overhead correction; {ss['failed']} failed); "
                     f"worst deviation {worst}; of those outside, {ss['outside_within_on_engine_launches']} within "
                     f"against ncu on the engine's own launches")
    lines.append(f"NCU CHECK{'' if engine_run is None else ' (the recordings)'}: {within} of {len(rows)} points "
                 f"within target "
                 f"({result['summary']['within_raw']} before the event-overhead correction); worst deviation "
                 f"{result['summary']['worst'] * 100:.1f} %; median ratio {result['summary']['median_ratio']:.3f}; "
                 f"{elapsed:.0f} s")
    text = "\n".join(lines) + "\n"
    open(os.path.join(out_dir, "ncu.log"), "w").write(text)
    print(text)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="plan and check against the recordings, CPU only")
    ap.add_argument("--slug", help="the device's data folder (default: every one for --dry-run, this GPU's otherwise)")
    ap.add_argument("--json", help="with --dry-run: also write the plans, by device, to this file")
    ap.add_argument("--own-compile", action="store_true",
                    help="compile the kernels with CuPy instead of taking the engine's machine code")
    ap.add_argument("--no-same-run", action="store_true",
                    help="compare with the recordings only (do not time the points with the engine in this call)")
    ap.add_argument("--scratch", help="with --dry-run: prepare the scratch copy of the book for the engine's "
                                      "same-call run here (and run nothing)")
    ap.add_argument("--cold-flush", choices=["ncu", "script"], default="ncu",
                    help="who flushes the caches before a cold point of one launch: ncu (--cache-control all, "
                         "which flushes more than the engine's L2 flush) or this script (--cache-control none "
                         "and the engine's L2 flush, as for points of several launches)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker)
        return 0
    if a.dry_run:
        return dry_run([a.slug] if a.slug else slugs(), a.json, a.scratch)
    return check(a.slug, a.own_compile, not a.no_same_run, a.cold_flush)


if __name__ == "__main__":
    sys.exit(main())
