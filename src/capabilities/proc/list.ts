/**
 * proc.list: the running processes, read from the proc file system (Linux).
 * CPU is the share of one CPU over the process's life, as `ps` reports it;
 * memory is resident memory as a share of the machine's total.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { define } from "../../core/capability.ts";
import type { HostFiles } from "../../core/deps.ts";
import { RtaError } from "../../core/errors.ts";
import { readMemory } from "../sys/info.ts";

/** USER_HZ: the unit of the times in /proc/<pid>/stat; 100 on every Linux architecture in use. */
const CLOCK_TICKS = 100;

export interface ProcessRow {
  pid: number;
  user: string;
  cpu: number;
  mem: number;
  command: string;
}

const SORTS = ["cpu", "mem", "pid"] as const;

export const procList = define({
  name: "proc.list",
  summary: "List running processes with their user, CPU and memory share",
  searchWords: ["ps", "top", "tasks", "pid", "running programs"],
  safety: "read",
  inputs: {
    sort: {
      type: "string",
      description: "the column to sort by, largest first (pid: lowest first)",
      options: SORTS,
      default: "cpu",
    },
    limit: { type: "integer", description: "how many rows to return", range: [1, 1000], default: 50 },
  },
  result: {
    shape: "table",
    columns: [
      { name: "pid", doc: "process id" },
      { name: "user", doc: "owner, by name where the user database has one" },
      { name: "cpu", doc: "percent of one CPU over the process's life", unit: "percent" },
      { name: "mem", doc: "resident memory as a percent of the machine's", unit: "percent" },
      { name: "command", doc: "the command line, or [name] for a kernel thread" },
    ],
  },
  examples: [
    { command: "rta proc list", note: "the busiest processes" },
    { command: "rta proc list --sort mem --limit 5", note: "the five largest by memory" },
  ],
  async run(args, ctx) {
    const rows = readProcesses(ctx.host);
    const key = args.sort;
    rows.sort(key === "pid" ? (a, b) => a.pid - b.pid : (a, b) => b[key] - a[key] || a.pid - b.pid);
    const out = ctx.rows(["pid", "user", "cpu", "mem", "command"]);
    for (const r of rows.slice(0, args.limit)) out.add([r.pid, r.user, r.cpu, r.mem, r.command]);
    return out.finish(rows.length);
  },
});

/** Every process the proc file system shows; a process that exits mid-scan is skipped. */
export function readProcesses(host: HostFiles): ProcessRow[] {
  let entries: string[];
  let uptime: number;
  try {
    entries = readdirSync(host.procRoot);
    uptime = Number(readFileSync(join(host.procRoot, "uptime"), "utf8").split(" ")[0]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      throw new RtaError(
        "core.platform.unsupported",
        "this machine has no proc file system to list processes from",
        "proc.list reads /proc, which Linux provides",
      );
    }
    throw new RtaError(
      "proc.unreadable",
      "the process table could not be read",
      "check that /proc is mounted and readable",
    );
  }
  const memTotal = readMemory(host).total;
  const users = readUsers(host.passwdFile);
  const rows: ProcessRow[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const row = readProcess(join(host.procRoot, name), Number(name), { uptime, memTotal, users });
    if (row) rows.push(row);
  }
  return rows;
}

interface Machine {
  uptime: number;
  memTotal: number;
  users: Map<number, string>;
}

function readProcess(dir: string, pid: number, machine: Machine): ProcessRow | undefined {
  let stat: string;
  let status: string;
  let cmdline: string;
  try {
    stat = readFileSync(join(dir, "stat"), "utf8");
    status = readFileSync(join(dir, "status"), "utf8");
    cmdline = readFileSync(join(dir, "cmdline"), "utf8");
  } catch {
    return undefined; // it exited while we looked, or it is not ours to read
  }
  // The name in parentheses may itself hold spaces and parentheses: split after the last one.
  const close = stat.lastIndexOf(")");
  const comm = stat.slice(stat.indexOf("(") + 1, close);
  const rest = stat.slice(close + 2).split(" ");
  const ticks = Number(rest[11]) + Number(rest[12]);
  const started = Number(rest[19]) / CLOCK_TICKS;
  const alive = machine.uptime - started;
  const cpu = alive > 0 ? round1((ticks / CLOCK_TICKS / alive) * 100) : 0;
  const rssKiB = Number(status.match(/^VmRSS:\s+(\d+) kB$/m)?.[1] ?? 0);
  const mem = machine.memTotal > 0 ? round1(((rssKiB * 1024) / machine.memTotal) * 100) : 0;
  const uid = Number(status.match(/^Uid:\s+(\d+)/m)?.[1] ?? -1);
  const command = cmdline.replaceAll("\0", " ").trim() || `[${comm}]`;
  return { pid, user: machine.users.get(uid) ?? String(uid), cpu, mem, command };
}

function readUsers(passwdFile: string): Map<number, string> {
  const users = new Map<number, string>();
  let body = "";
  try {
    body = readFileSync(passwdFile, "utf8");
  } catch {
    return users; // ids are shown as numbers
  }
  for (const line of body.split("\n")) {
    const [name, , uid] = line.split(":");
    if (name && uid && /^\d+$/.test(uid)) users.set(Number(uid), name);
  }
  return users;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
