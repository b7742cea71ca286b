/**
 * The final stage, assembled with buildah and read back from the committed
 * image (assemble.ts says how, and what stands in for the base image, which
 * no registry here can give). Skipped, saying so, where buildah cannot run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { RTA } from "../support/rta.ts";
import { type Assembled, assembleFinalStage, cannotAssemble } from "./assemble.ts";
import { envOf, execForm, only, ROOT, repoDockerfile, type Stage, volumesOf } from "./dockerfile.ts";
import { inImage, missingInImage } from "./elf.ts";

/** Names of shells and of the multi-call binaries that bring one. */
const SHELLS = new Set(["sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "fish", "busybox", "toybox"]);

const why = cannotAssemble();
if (why) process.stderr.write(`image assembly tests skipped: ${why}\n`);

const stages = repoDockerfile();
const final = stages.at(-1) as Stage;

describe.skipIf(why !== undefined)("the final stage, assembled with buildah", () => {
  const dir = tempDir("rta-image-");
  let made: Assembled;
  let rootfs: string;
  let container: string;
  let config: Record<string, unknown>;

  beforeAll(() => {
    if (!existsSync(RTA)) throw new Error("dist/rta is missing: run `npm run build` first");
    made = assembleFinalStage(stages, dir, librariesOf(RTA));
    config = JSON.parse(made.buildah("inspect", "--type", "image", made.image)).OCIv1.config;
    container = made.buildah("from", made.image);
    rootfs = made.buildah("mount", container);
  });

  afterAll(() => {
    if (!made) return;
    made.buildah("rm", "--all");
    made.buildah("rmi", "--all", "--force");
    rmSync(dir, { recursive: true, force: true });
  });

  test("the image's config is the Dockerfile's: user, entrypoint, command, port, volume, working directory", () => {
    expect(config.User).toBe(only(final, "USER").args);
    expect(config.Entrypoint).toEqual(execForm(only(final, "ENTRYPOINT")) as string[]);
    expect(config.Cmd).toEqual(["mcp", "serve", "--http", "0.0.0.0:8722"]);
    expect(config.ExposedPorts).toEqual({ "8722/tcp": {} });
    expect(config.Volumes).toEqual({ "/var/lib/rta": {} });
    expect(config.WorkingDir).toBe("/work");
    const env = config.Env as string[];
    for (const [key, value] of Object.entries(envOf(final))) expect(env).toContain(`${key}=${value}`);
  });

  test("holds no shell, anywhere", () => {
    expect(everything(rootfs).filter((path) => SHELLS.has(path.split("/").at(-1) as string))).toEqual([]);
    expect(inImage(rootfs, "/bin/sh")).toBeUndefined();
  });

  test("its entrypoint, found on its PATH, is the binary npm run build made, root's and not the user's to change", () => {
    const path = (config.Env as string[]).find((e) => e.startsWith("PATH="))?.slice(5) ?? "";
    const entry = (config.Entrypoint as string[])[0] as string;
    const found = path
      .split(":")
      .map((d) => inImage(rootfs, join(d, entry)))
      .find((p) => p !== undefined);
    expect(found).toBeDefined();
    const st = statSync(found as string);
    expect({ uid: st.uid, mode: (st.mode & 0o777).toString(8) }).toEqual({ uid: 0, mode: "755" });
    expect(sha256(found as string)).toBe(sha256(RTA));
  });

  test("its loader and every library it needs, or opens by name, are in the image", () => {
    const opened = dlopened();
    expect(opened).toContain("libc.so.6");
    expect(missingInImage(rootfs, "/usr/local/bin/rta", opened)).toEqual([]);
    // and the check can fail: an image without the C library cannot start it
    expect(missingInImage(join(rootfs, "usr"), "/local/bin/rta", opened)).toContain("libc.so.6");
  });

  test("rta's data and config dirs are on the volume, the user's alone; the user has an account and a home", () => {
    const [uid, gid] = only(final, "USER").args.split(":").map(Number);
    const volume = volumesOf(final)[0] as string;
    for (const key of ["RTA_DATA_DIR", "RTA_CONFIG_DIR"]) {
      const path = envOf(final)[key] as string;
      expect(path.startsWith(`${volume}/`)).toBe(true);
      const st = statSync(join(rootfs, path));
      expect({ key, dir: st.isDirectory(), uid: st.uid, gid: st.gid, mode: (st.mode & 0o777).toString(8) }).toEqual({
        key,
        dir: true,
        uid: uid as number,
        gid: gid as number,
        mode: "700",
      });
    }
    const account = readFileSync(join(rootfs, "etc", "passwd"), "utf8")
      .split("\n")
      .map((l) => l.split(":"))
      .find((f) => f[2] === String(uid));
    expect(account?.[0]).toBe("nonroot");
    expect(statSync(join(rootfs, account?.[5] as string)).uid).toBe(uid as number);
    // the served root, empty, is root's: nothing lands there unless a mount is made writable
    const work = statSync(join(rootfs, "work"));
    expect({ uid: work.uid, mode: (work.mode & 0o777).toString(8) }).toEqual({ uid: 0, mode: "755" });
  });
});

/** The files `ldd` says the binary loads (loader included), as host paths. */
function librariesOf(binary: string): string[] {
  const out = spawnSync("ldd", [binary], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(`ldd ${binary}: ${out.stderr}`);
  return [...out.stdout.matchAll(/(?:=> |^\s*)(\/\S+) \(0x/gm)].map((m) => m[1] as string);
}

/** The sonames src/ names as libraries to dlopen (libc.so.6, for statx and the like). */
function dlopened(): string[] {
  const names = new Set<string>();
  for (const file of everything(join(ROOT, "src")).filter((f) => f.endsWith(".ts") && !f.includes("/generated/")))
    for (const m of readFileSync(join(ROOT, "src", file), "utf8").matchAll(/"(lib[\w+-]+\.so(?:\.\d+)*)"/g))
      names.add(m[1] as string);
  return [...names];
}

/** Every path under `root`, relative to it, links included and not followed. */
function everything(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: false }) as string[];
}

function sha256(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}
