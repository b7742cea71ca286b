/**
 * The Dockerfile's final stage, made with buildah where no base image can be
 * pulled: `buildah from scratch`, a stand-in for the base holding what the
 * distroless image holds that rta needs, then the final stage's own
 * instructions applied as a builder would, from what the build stage makes
 * (dist/rta from `npm run build`, and the directories its last RUN makes).
 * Nothing is run in the image: it is committed, then read from outside.
 * buildah keeps its storage in a directory of the test's own, with the vfs
 * driver, so nothing is left in the machine's container storage.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { copyOf, envOf, execForm, type Instruction, ROOT, type Stage } from "./dockerfile.ts";

/**
 * The distroless base's accounts (its /etc/passwd and /etc/group): root,
 * nobody, and nonroot, 65532, whom the final stage runs as.
 */
const BASE_PASSWD = [
  "root:x:0:0:root:/root:/sbin/nologin",
  "nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin",
  "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin",
];
const BASE_GROUP = ["root:x:0:", "nobody:x:65534:", "nonroot:x:65532:"];

/** The build stage's RUN lines whose products the local tree already holds (node_modules, dist/rta). */
const LOCAL_RUNS = ["npm ci", "npm run build"];

export interface Assembled {
  /** the committed image's name in the test's storage */
  image: string;
  /** runs buildah on the test's storage; throws with its stderr when it fails */
  buildah: (...args: string[]) => string;
}

/** Why buildah cannot assemble here, or undefined when it can: it needs root on Linux and buildah on PATH. */
export function cannotAssemble(): string | undefined {
  if (process.platform !== "linux") return "buildah builds on Linux only";
  if (process.getuid?.() !== 0) return "buildah without root needs subordinate ids this test does not set up";
  if (spawnSync("buildah", ["--version"]).status !== 0) return "buildah is not installed (apt-get install buildah)";
  return undefined;
}

/** buildah on the storage under `dir`, which it makes. */
export function buildahIn(dir: string): (...args: string[]) => string {
  const where = ["--root", join(dir, "storage"), "--runroot", join(dir, "run"), "--storage-driver", "vfs"];
  return (...args: string[]) => {
    const r = spawnSync("buildah", [...where, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`buildah ${args.join(" ")}: ${r.stderr || r.error?.message}`);
    return r.stdout.trim();
  };
}

/**
 * Makes the final stage of `stages` as an image in buildah's storage under
 * `dir`. `libraries` are the files (host paths, kept at the same path in the
 * image) the base stands in with. Refuses (throws) an instruction it does not
 * know how to apply, and a build stage RUN whose products it cannot name.
 */
export function assembleFinalStage(stages: Stage[], dir: string, libraries: string[]): Assembled {
  const [build, final] = [stages[0] as Stage, stages.at(-1) as Stage];
  const staged = join(dir, "build-stage");
  const fromBuild = buildStageFiles(build, staged);
  const buildah = buildahIn(dir);
  const container = buildah("from", "scratch");
  try {
    const rootfs = buildah("mount", container);
    standInBase(rootfs, libraries);
    const config = final.instructions.flatMap((ins) => apply(ins, rootfs, fromBuild));
    buildah("umount", container);
    buildah("config", ...config, container);
    const image = `localhost/rta-image-check:${process.pid}`;
    buildah("commit", "--quiet", container, image);
    return { image, buildah };
  } finally {
    buildah("rm", container);
  }
}

/**
 * Applies one final-stage instruction: a COPY into `rootfs` now, a WORKDIR
 * made there; the rest as the `buildah config` flags it comes to. Throws on
 * an instruction it does not know, and on a COPY from anything but the build
 * stage.
 */
function apply(ins: Instruction, rootfs: string, fromBuild: (path: string) => string): string[] {
  switch (ins.op) {
    case "COPY": {
      const copy = copyOf(ins);
      if (copy.from !== "build") throw new Error(`Dockerfile:${ins.line}: only COPY --from=build is assembled`);
      for (const source of copy.sources) put(fromBuild(source), join(rootfs, copy.dest), copy.chown);
      return [];
    }
    case "WORKDIR":
      mkdirSync(join(rootfs, ins.args), { recursive: true });
      return ["--workingdir", ins.args];
    case "ENV":
      return Object.entries(envOf({ from: "", instructions: [ins] })).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
    case "VOLUME":
      return (execForm(ins) ?? ins.args.split(/\s+/)).flatMap((v) => ["--volume", v]);
    case "USER":
      return ["--user", ins.args];
    case "EXPOSE":
      // as Docker records it: a port with no protocol is TCP
      return ins.args.split(/\s+/).flatMap((p) => ["--port", p.includes("/") ? p : `${p}/tcp`]);
    case "ENTRYPOINT":
    case "CMD": {
      const form = execForm(ins);
      if (!form) throw new Error(`Dockerfile:${ins.line}: ${ins.op} is assembled in exec form only`);
      return [ins.op === "CMD" ? "--cmd" : "--entrypoint", JSON.stringify(form)];
    }
    default:
      throw new Error(`Dockerfile:${ins.line}: ${ins.op} is not assembled here`);
  }
}

/**
 * What the build stage leaves at an absolute path: under its WORKDIR, the
 * local tree (where npm ci and npm run build have run); elsewhere, what its
 * `mkdir -p … && chmod MODE …` RUN made, made again under `staged`. Throws for
 * any other RUN, and for a path that is not there.
 */
function buildStageFiles(build: Stage, staged: string): (path: string) => string {
  const workdir = build.instructions.find((i) => i.op === "WORKDIR")?.args ?? "/";
  for (const ins of build.instructions.filter((i) => i.op === "RUN")) {
    if (LOCAL_RUNS.includes(ins.args)) continue;
    const m = /^mkdir -p ((?:\/\S+ ?)+) && chmod ([0-7]{3,4}) ((?:\/\S+ ?)+)$/.exec(ins.args);
    if (!m) throw new Error(`Dockerfile:${ins.line}: the assembler cannot tell what this RUN makes: ${ins.args}`);
    for (const made of (m[1] as string).trim().split(" ")) mkdirSync(join(staged, made), { recursive: true });
    for (const path of (m[3] as string).trim().split(" "))
      chmodSync(join(staged, path), Number.parseInt(m[2] as string, 8));
  }
  return (path: string) => {
    const local = path.startsWith(`${workdir}/`) ? join(ROOT, path.slice(workdir.length + 1)) : join(staged, path);
    if (!existsSync(local)) throw new Error(`the build stage leaves nothing at ${path} (looked at ${local})`);
    return local;
  };
}

/** The base's stand-in: the libraries, the accounts, a home for nonroot, and /tmp. */
function standInBase(rootfs: string, libraries: string[]): void {
  for (const lib of libraries) {
    mkdirSync(dirname(join(rootfs, lib)), { recursive: true });
    copyFileSync(lib, join(rootfs, lib));
  }
  mkdirSync(join(rootfs, "etc"), { recursive: true });
  writeFileSync(join(rootfs, "etc", "passwd"), `${BASE_PASSWD.join("\n")}\n`);
  writeFileSync(join(rootfs, "etc", "group"), `${BASE_GROUP.join("\n")}\n`);
  mkdirSync(join(rootfs, "home", "nonroot"), { recursive: true, mode: 0o700 });
  chownSync(join(rootfs, "home", "nonroot"), 65532, 65532);
  mkdirSync(join(rootfs, "tmp"), { recursive: true });
  chmodSync(join(rootfs, "tmp"), 0o1777);
}

/**
 * COPY's rule: a directory's contents go into the destination, a file to it;
 * with --chown=UID:GID everything copied (the destination made for it too)
 * is theirs, else root's.
 */
function put(source: string, dest: string, chown: string | undefined): void {
  mkdirSync(dest.endsWith("/") ? dest : dirname(dest), { recursive: true });
  const r = spawnSync("cp", ["-a", "--no-preserve=ownership", `${source}${isDir(source) ? "/." : ""}`, dest]);
  if (r.status !== 0) throw new Error(`cp ${source} ${dest}: ${r.stderr}`);
  const [uid, gid] = (chown ?? "0:0").split(":").map(Number);
  const own = spawnSync("chown", ["-R", `${uid}:${gid}`, dest]);
  if (own.status !== 0) throw new Error(`chown ${dest}: ${own.stderr}`);
}

function isDir(path: string): boolean {
  return statSync(path).isDirectory();
}
