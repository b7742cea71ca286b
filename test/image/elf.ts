/**
 * What a dynamically linked ELF binary needs from the file system it runs
 * on: its loader (PT_INTERP) and the libraries it names (DT_NEEDED), each
 * looked for inside an image's root, never on the machine running the test.
 * Only 64-bit little-endian ELF is read (x86-64 and arm64 Linux).
 */
import { closeSync, existsSync, lstatSync, openSync, readlinkSync, readSync } from "node:fs";
import { dirname, join } from "node:path";

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const DT_NEEDED = 1n;
const DT_STRTAB = 5n;
const EM_X86_64 = 62;
const EM_AARCH64 = 183;
/** The longest soname read: a longer one is cut, and then not found. */
const SONAME_MAX = 256;
/** More links than this on one path is a loop. */
const MAX_LINKS = 40;

export interface ElfNeeds {
  machine: number;
  /** the loader's path, absent for a static binary or a library */
  interpreter?: string;
  /** the sonames DT_NEEDED lists, in order */
  needed: string[];
}

/** What the ELF file at `path` names as its loader and libraries. Throws on a file that is not 64-bit little-endian ELF. */
export function elfNeeds(path: string): ElfNeeds {
  const fd = openSync(path, "r");
  try {
    const read = (offset: bigint | number, length: number, whole = true): Buffer => {
      const buf = Buffer.alloc(length);
      const got = readSync(fd, buf, 0, length, Number(offset));
      if (whole && got !== length) throw new Error(`${path}: cut short at ${offset}`);
      return buf.subarray(0, got);
    };
    const head = read(0, 64);
    if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1)
      throw new Error(`${path}: not 64-bit little-endian ELF`);
    const machine = head.readUInt16LE(0x12);
    const phoff = head.readBigUInt64LE(0x20);
    const phentsize = head.readUInt16LE(0x36);
    const phnum = head.readUInt16LE(0x38);
    const headers = Array.from({ length: phnum }, (_, n) => {
      const ph = read(phoff + BigInt(n * phentsize), 56);
      return {
        type: ph.readUInt32LE(0),
        offset: ph.readBigUInt64LE(8),
        vaddr: ph.readBigUInt64LE(16),
        filesz: ph.readBigUInt64LE(32),
      };
    });
    const found: ElfNeeds = { machine, needed: [] };
    const interp = headers.find((h) => h.type === PT_INTERP);
    if (interp) found.interpreter = cString(read(interp.offset, Number(interp.filesz)), 0);
    const dynamic = headers.find((h) => h.type === PT_DYNAMIC);
    if (!dynamic) return found;
    const table = read(dynamic.offset, Number(dynamic.filesz));
    const entries: [bigint, bigint][] = [];
    for (let at = 0; at + 16 <= table.length; at += 16) {
      const tag = table.readBigInt64LE(at);
      if (tag === 0n) break;
      entries.push([tag, table.readBigUInt64LE(at + 8)]);
    }
    const strtab = entries.find(([tag]) => tag === DT_STRTAB)?.[1];
    if (strtab === undefined) return found;
    // DT_STRTAB is an address: the PT_LOAD segment holding it says where that is in the file
    const load = headers.find((h) => h.type === PT_LOAD && h.vaddr <= strtab && strtab < h.vaddr + h.filesz);
    if (!load) throw new Error(`${path}: DT_STRTAB is in no loaded segment`);
    const strOffset = load.offset + (strtab - load.vaddr);
    for (const [tag, value] of entries)
      if (tag === DT_NEEDED) found.needed.push(cString(read(strOffset + value, SONAME_MAX, false), 0));
    return found;
  } finally {
    closeSync(fd);
  }
}

/** The directories glibc's loader searches by default for `machine`, as a path inside an image. Throws on another machine. */
export function libraryDirs(machine: number): string[] {
  const triplet = machine === EM_X86_64 ? "x86_64-linux-gnu" : machine === EM_AARCH64 ? "aarch64-linux-gnu" : undefined;
  if (!triplet) throw new Error(`ELF machine ${machine} is not read here`);
  return [`/lib/${triplet}`, `/usr/lib/${triplet}`, "/lib64", "/usr/lib64", "/lib", "/usr/lib"];
}

/**
 * `path` (absolute, as the image sees it) resolved inside the image at
 * `root`: each symbolic link followed as the image would, an absolute target
 * from the image's root. Undefined when it is not there or loops.
 */
export function inImage(root: string, path: string): string | undefined {
  let current = path;
  for (let hops = 0; hops < MAX_LINKS; hops++) {
    const host = join(root, current);
    if (!existsSync(host) && !isLink(host)) return undefined;
    if (!isLink(host)) return host;
    const target = readlinkSync(host);
    current = target.startsWith("/") ? target : join(dirname(current), target);
  }
  return undefined;
}

/**
 * Every loader and library the binary at `binary` (a path inside the image
 * at `root`) needs to start, followed through the libraries' own needs, that
 * the image does not hold. Empty: it can start there. `alsoOpened` are
 * sonames it dlopens by name at run time, looked for the same way.
 */
export function missingInImage(root: string, binary: string, alsoOpened: string[] = []): string[] {
  const start = inImage(root, binary);
  if (!start) return [binary];
  const first = elfNeeds(start);
  const dirs = libraryDirs(first.machine);
  const missing: string[] = [];
  if (first.interpreter && !inImage(root, first.interpreter)) missing.push(first.interpreter);
  const seen = new Set<string>();
  const queue = [...first.needed, ...alsoOpened];
  while (queue.length > 0) {
    const soname = queue.shift() as string;
    if (seen.has(soname)) continue;
    seen.add(soname);
    const found = dirs.map((d) => inImage(root, join(d, soname))).find((p) => p !== undefined);
    if (!found) {
      missing.push(soname);
      continue;
    }
    queue.push(...elfNeeds(found).needed);
  }
  return missing;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function cString(buf: Buffer, at: number): string {
  const end = buf.indexOf(0, at);
  return buf.toString("latin1", at, end === -1 ? buf.length : end);
}
