"""bench/table.py: turns bench-guest.sh's "R"/"Q" lines (stdin) into the
markdown table of `make bench`: per job the median and minimum of the rounds
for every system, the ratio of each median to kernel ext4's (1.00: as fast;
higher is faster), then the FUSE requests each ext4cell job cost.
usage: table.py ROUNDS MIB FILES SECONDS WALL-SECONDS KERNEL SYSTEM..."""
import statistics
import sys

rounds, mib, files, secs, wall, kernel = sys.argv[1:7]
systems = sys.argv[7:]
rates, counts, jobs, counted = {}, {}, [], []
for line in sys.stdin:
    f = line.split(None, 4)
    if len(f) < 5 or f[0] not in ("R", "Q"):
        continue
    kind, system, job, _, value = f
    order = jobs if kind == "R" else counted
    if job not in order:
        order.append(job)
    if kind == "R":
        rates.setdefault((system, job), []).append(float(value))
    else:
        counts.setdefault((system, job), value.strip())
if not rates:
    sys.exit("table.py: no measurements in the input")

def unit(job):
    if job.startswith("seq") or job in ("direct-write", "direct-read"):
        return "MB/s"
    if "rand" in job:
        return "IOPS"
    return "1/s"


def cell(v):
    return "%.0f" % v if v >= 100 else "%.1f" % v


print("# make bench: %s round(s), %s MiB files, %s small files, %s s random jobs, %s s in all"
      % (rounds, mib, files, secs, wall))
print()
print("Kernel %s; medians (minimum) of the rounds; ratios: median / kernel ext4's median "
      "(1.00: as fast, higher is faster)." % kernel)
print()
head = ["job", "unit"] + ["%s med (min)" % s for s in systems]
others = [s for s in systems if s != "ext4"]
if "ext4" in systems:
    head += ["%s/ext4" % s for s in others]
print("| " + " | ".join(head) + " |")
print("|" + " --- |" * len(head))
for job in jobs:
    row, med = [job, unit(job)], {}
    for s in systems:
        v = rates.get((s, job))
        if v:
            med[s] = statistics.median(v)
            row.append("%s (%s)" % (cell(med[s]), cell(min(v))))
        else:
            row.append("-")
    if "ext4" in systems:
        for s in others:
            ok = s in med and med.get("ext4")
            row.append("%.2f" % (med[s] / med["ext4"]) if ok else "-")
    print("| " + " | ".join(row) + " |")
if counts:
    print()
    print("FUSE requests each ext4cell job cost (first round)")
    print()
    ecs = [s for s in systems if s in ("classic", "iomap")]
    print("| job | " + " | ".join(ecs) + " |")
    print("|" + " --- |" * (len(ecs) + 1))
    for job in counted:
        if any((s, job) in counts for s in ecs):
            print("| %s | %s |" % (job, " | ".join(counts.get((s, job), "-") for s in ecs)))
