/**
 * sys.info: what this machine is: OS, kernel, uptime, load, memory and CPUs.
 * Figures come from the proc file system where it exists (so a test can point
 * it at a fixture), and from node:os otherwise.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { define } from "../../core/capability.ts";
import type { HostFiles } from "../../core/deps.ts";
import { object } from "../../core/result.ts";
import { durationWords } from "../../core/words.ts";
import { bootSeconds } from "./bootClock.ts";
import { readProcText } from "./procFile.ts";

export const sysInfo = define({
  name: "sys.info",
  summary: "Describe this machine: OS, kernel, uptime, load, memory and CPUs",
  searchWords: ["hostname", "uname", "os version", "free memory", "load average", "cpu count"],
  safety: "read",
  inputs: {},
  result: {
    shape: "object",
    fields: [
      { name: "uptime_s", doc: "seconds since boot", unit: "seconds" },
      { name: "memory.total", doc: "memory installed", unit: "bytes" },
      { name: "memory.available", doc: "memory that can be had without swapping", unit: "bytes" },
      { name: "memory.used", doc: "total less available", unit: "bytes" },
    ],
  },
  examples: [{ command: "rta sys info", note: "what the machine running rta is" }],
  async run(_args, ctx) {
    const host = ctx.host;
    const uptime = readUptime(host) ?? os.uptime();
    const memory = readMemory(host);
    return object({
      hostname: os.hostname(),
      os: osName(host),
      platform: process.platform,
      kernel: KERNEL,
      arch: ARCH,
      uptime_s: Math.floor(uptime),
      uptime: `up ${durationWords(uptime)}`,
      load: readLoad(host) ?? os.loadavg().map((n) => Math.round(n * 100) / 100),
      memory,
      cpus: cpuSummary(),
    });
  },
});

// What does not change while a server runs is read once: os.cpus() alone costs about 50 µs a call; the kernel's
// release and the architecture are the running kernel's. The host name can be changed, so it is asked each call.
const KERNEL = os.release();
const ARCH = os.arch();
let cpusOnce: { count: number; model: string } | undefined;
function cpuSummary(): { count: number; model: string } {
  if (!cpusOnce) {
    const cpus = os.cpus();
    cpusOnce = { count: cpus.length || os.availableParallelism(), model: cpus[0]?.model.trim() ?? "unknown" };
  }
  return cpusOnce;
}

const osNames = new Map<string, string>();
function osName(host: HostFiles): string {
  let name = osNames.get(host.osReleaseFile);
  if (name === undefined) {
    name = readOsName(host) ?? `${os.type()} ${os.release()}`;
    osNames.set(host.osReleaseFile, name);
  }
  return name;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** PRETTY_NAME from os-release, unquoted. */
export function readOsName(host: HostFiles): string | undefined {
  const body = readText(host.osReleaseFile);
  const match = body?.match(/^PRETTY_NAME=(.*)$/m);
  return match?.[1]?.replace(/^["']|["']$/g, "") || undefined;
}

function readUptime(host: HostFiles): number | undefined {
  // the machine's own proc: its boot clock, with no file read (bootClock.ts)
  if (host.procRoot === "/proc") {
    const seconds = bootSeconds();
    if (seconds !== undefined) return seconds;
  }
  const first = readProcText(`${host.procRoot}/uptime`)?.split(SPACES, 1)[0];
  const seconds = Number(first);
  return first && Number.isFinite(seconds) ? seconds : undefined;
}

function readLoad(host: HostFiles): number[] | undefined {
  const fields = readProcText(`${host.procRoot}/loadavg`)?.split(SPACES, 3).map(Number);
  return fields && fields.length === 3 && fields.every(Number.isFinite) ? fields : undefined;
}

const MEM_TOTAL = /^MemTotal:\s+(\d+) kB$/m;
const MEM_AVAILABLE = /^MemAvailable:\s+(\d+) kB$/m;
const SPACES = /\s+/;

/** The bytes a meminfo line (its kB) says, found by `re`; undefined when there is none. */
function kib(body: string | undefined, re: RegExp): number | undefined {
  const m = body === undefined ? null : re.exec(body);
  return m ? Number(m[1]) * 1024 : undefined;
}

/** Memory in bytes; `used` is what is not available, as `free` counts it. */
export function readMemory(host: HostFiles): { total: number; available: number; used: number } {
  const body = readProcText(`${host.procRoot}/meminfo`);
  const total = kib(body, MEM_TOTAL) ?? os.totalmem();
  const available = kib(body, MEM_AVAILABLE) ?? os.freemem();
  return { total, available, used: total - available };
}
