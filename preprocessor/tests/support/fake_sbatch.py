#!/usr/bin/env python3
"""A stand-in for Slurm's `sbatch` (copied onto PATH as `sbatch` by tests/it/fleet.rs): runs the batch
script at once on this machine, every task of an `--array=LO-HI` concurrently, as Slurm would on
its nodes, with SLURM_ARRAY_TASK_ID / SLURM_ARRAY_JOB_ID / SLURM_JOB_ID and, like Slurm for a
`--gres=gpu` job, CUDA_VISIBLE_DEVICES (here `task<K>`, so the test can tell the tasks apart).
Accepts only what scripts/slurm uses: --parsable, --array, --dependency=afterany:<id> (an
earlier job of this fake), --export=ALL. Appends `<id> <args>` to $FAKE_SBATCH_LOG."""
import os
import subprocess
import sys

log = os.environ["FAKE_SBATCH_LOG"]
opts, script = {}, None
for a in sys.argv[1:]:
    if a.startswith("--") and script is None:
        key, _, value = a[2:].partition("=")
        opts[key] = value
    elif script is None:
        script = a
    else:
        sys.exit("fake sbatch: script arguments are not supported")
unknown = set(opts) - {"parsable", "array", "dependency", "export"}
if unknown or script is None or opts.get("export", "ALL") != "ALL":
    sys.exit("fake sbatch: unsupported use: %s" % sys.argv[1:])
if not any(l.startswith("#SBATCH ") for l in open(script)):
    sys.exit("fake sbatch: %s has no #SBATCH lines" % script)
earlier = [l.split()[0] for l in open(log)] if os.path.exists(log) else []
if "dependency" in opts:
    kind, _, dep = opts["dependency"].partition(":")
    if kind != "afterany" or dep not in earlier:
        sys.exit("fake sbatch: dependency on an unknown job: %s" % opts["dependency"])
job = str(1000 + len(earlier))
with open(log, "a") as f:
    f.write("%s %s\n" % (job, " ".join(sys.argv[1:])))
tasks = [None]
if "array" in opts:
    lo, hi = opts["array"].split("-")
    tasks = list(range(int(lo), int(hi) + 1))
procs = []
for k in tasks:
    env = dict(os.environ, SLURM_JOB_ID=job)
    if k is not None:
        env.update(SLURM_ARRAY_JOB_ID=job, SLURM_ARRAY_TASK_ID=str(k), CUDA_VISIBLE_DEVICES="task%d" % k)
    out = open("fake-slurm-%s-%s.out" % (job, k or 0), "w")  # Slurm's --output, in the cwd
    procs.append(subprocess.Popen(["bash", script], env=env, stdout=out, stderr=subprocess.STDOUT))
codes = [p.wait() for p in procs]
with open(log, "a") as f:
    f.write("%s exit %s\n" % (job, " ".join(map(str, codes))))
print(job if "parsable" in opts else "Submitted batch job %s" % job)
