/**
 * disk.usage: size, use and room left on each mounted file system, as `df`
 * shows them. Pseudo file systems (proc, sysfs, cgroup, ...) and those of
 * size zero are left out.
 */
import { readFileSync, statfsSync } from "node:fs";
import { join } from "node:path";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";

/** Kernel file systems that hold no data of their own; `df` hides them too. */
const PSEUDO = new Set([
  "autofs",
  "binfmt_misc",
  "bpf",
  "cgroup",
  "cgroup2",
  "configfs",
  "debugfs",
  "devpts",
  "efivarfs",
  "fusectl",
  "hugetlbfs",
  "mqueue",
  "nsfs",
  "proc",
  "pstore",
  "rpc_pipefs",
  "securityfs",
  "sysfs",
  "tracefs",
]);

export interface Mount {
  device: string;
  mount: string;
  type: string;
}

export const diskUsage = define({
  name: "disk.usage",
  summary: "Show size, use and room left on each mounted file system",
  searchWords: ["df", "free space", "disk space", "storage", "mounts", "volume"],
  safety: "read",
  inputs: {},
  result: {
    shape: "table",
    columns: [
      { name: "mount", doc: "where it is mounted" },
      { name: "filesystem", doc: "the device or source" },
      { name: "type", doc: "file system type" },
      { name: "size", doc: "total size", unit: "bytes" },
      { name: "used", doc: "bytes in use", unit: "bytes" },
      { name: "available", doc: "bytes an unprivileged user can still write", unit: "bytes" },
      { name: "use%", doc: "used as a percent of used plus available, rounded up as df does", unit: "percent" },
    ],
  },
  examples: [{ command: "rta disk usage", note: "every mounted file system" }],
  async run(_args, ctx) {
    let body: string;
    try {
      body = readFileSync(join(ctx.host.procRoot, "self", "mounts"), "utf8");
    } catch {
      throw new RtaError(
        "disk.unreadable",
        "the mount table could not be read",
        "disk.usage reads /proc/self/mounts, which Linux provides",
      );
    }
    const out = ctx.rows();
    for (const m of parseMounts(body)) {
      const usage = usageOf(m.mount);
      if (usage) out.add([m.mount, m.device, m.type, usage.size, usage.used, usage.available, usage.percent]);
    }
    return out.finish();
  },
});

/**
 * The mounts worth showing, from the text of /proc/self/mounts: pseudo file
 * systems dropped, octal escapes (`\040` for a space) decoded, and a mount
 * point mounted over more than once kept once, as its last mount.
 */
export function parseMounts(body: string): Mount[] {
  const byMount = new Map<string, Mount>();
  for (const line of body.split("\n")) {
    const [device, mount, type] = line.split(" ");
    if (!device || !mount || !type || PSEUDO.has(type)) continue;
    const m = { device: unescapeOctal(device), mount: unescapeOctal(mount), type };
    byMount.delete(m.mount);
    byMount.set(m.mount, m);
  }
  return [...byMount.values()];
}

function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

interface Usage {
  size: number;
  used: number;
  available: number;
  percent: number;
}

function usageOf(mount: string): Usage | undefined {
  let s: ReturnType<typeof statfsSync>;
  try {
    s = statfsSync(mount);
  } catch {
    return undefined; // gone, or not ours to look at: df skips it too
  }
  if (s.blocks === 0) return undefined;
  const unit = s.bsize;
  const size = s.blocks * unit;
  const used = (s.blocks - s.bfree) * unit;
  const available = s.bavail * unit;
  const percent = used + available > 0 ? Math.ceil((used / (used + available)) * 100) : 0;
  return { size, used, available, percent };
}
